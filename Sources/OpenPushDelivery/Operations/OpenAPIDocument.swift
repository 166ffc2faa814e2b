import Foundation
package import OpenPushCore

/// The OpenAPI document served at `/openapi.json`: `openapi/openapi.json` plus every fragment in
/// `openapi/paths/*.json` (one per route area), whose `paths` and `components` are merged in.
/// Fragments let each area document its routes next to nothing else's.
package enum OpenAPIDocument {
    package struct Invalid: Error, CustomStringConvertible {
        package var description: String
    }

    package static func load(directory: String) throws -> JSONValue {
        guard var document = try read(directory + "/openapi.json").objectValue else {
            throw Invalid(description: "openapi/openapi.json is not a JSON object")
        }
        let fragmentsDirectory = directory + "/paths"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: fragmentsDirectory)) ?? [])
            .filter { $0.hasSuffix(".json") }
            .sorted()
        for name in names {
            guard let fragment = try read(fragmentsDirectory + "/" + name).objectValue else {
                throw Invalid(description: "openapi/paths/\(name) is not a JSON object")
            }
            try merge(fragment, into: &document, source: name)
        }
        return .object(document)
    }

    static func read(_ path: String) throws -> JSONValue {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            return try JSONValue.parse(Array(data))
        } catch {
            throw Invalid(description: "\(path): \(error)")
        }
    }

    /// Adds the fragment's paths and components; a path or component defined twice is an error,
    /// so two areas can never silently overwrite each other.
    static func merge(_ fragment: JSONObject, into document: inout JSONObject, source: String) throws {
        for section in ["paths"] {
            try mergeObject(fragment[section], into: &document, key: section, source: source)
        }
        if let components = fragment["components"]?.objectValue {
            var merged = document["components"]?.objectValue ?? JSONObject()
            for (kind, _) in components {
                try mergeObject(components[kind], into: &merged, key: kind, source: source)
            }
            document["components"] = .object(merged)
        }
    }

    private static func mergeObject(_ addition: JSONValue?, into container: inout JSONObject, key: String, source: String) throws {
        guard let addition = addition?.objectValue else { return }
        var existing = container[key]?.objectValue ?? JSONObject()
        for (name, value) in addition {
            guard existing[name] == nil else {
                throw Invalid(description: "openapi/paths/\(source) defines \(key) '\(name)' again")
            }
            existing[name] = value
        }
        container[key] = .object(existing)
    }
}
