package import OpenPushCore

/// An element of the page a `Browser` found, by its WebDriver reference. Stale once the page
/// replaces it: find it again after a navigation or a re-render.
package struct BrowserElement: Sendable {
    /// The W3C WebDriver key of an element reference in JSON.
    static let key = "element-6066-11e4-a52e-4f735466cecf"

    package let id: String
    let browser: Browser

    /// The rendered text (what a reader sees; hidden text is empty).
    package func text() async throws -> String {
        try await browser.command("GET", "element/\(id)/text").stringValue ?? ""
    }

    /// The HTML attribute, or `nil` when the element has none.
    package func attribute(_ name: String) async throws -> String? {
        try await browser.command("GET", "element/\(id)/attribute/\(name)").stringValue
    }

    /// A DOM property (`value` of an input, `checked`, …).
    package func property(_ name: String) async throws -> JSONValue {
        try await browser.command("GET", "element/\(id)/property/\(name)")
    }

    package func isDisplayed() async throws -> Bool {
        try await browser.command("GET", "element/\(id)/displayed").boolValue ?? false
    }

    package func click() async throws {
        _ = try await browser.command("POST", "element/\(id)/click", [:])
    }

    /// Types `text` as key presses; `clearing` empties the field first.
    package func type(_ text: String, clearing: Bool = true) async throws {
        if clearing { _ = try await browser.command("POST", "element/\(id)/clear", [:]) }
        _ = try await browser.command("POST", "element/\(id)/value", ["text": .string(text)])
    }

    /// Elements under this one matching a CSS selector.
    package func findAll(_ selector: String) async throws -> [BrowserElement] {
        let found = try await browser.command("POST", "element/\(id)/elements",
                                              ["using": "css selector", "value": .string(selector)])
        return (found.arrayValue ?? []).compactMap(browser.element(from:))
    }

    /// As a script argument: `execute("return arguments[0].id", [element.json])`.
    package var json: JSONValue { .object([Self.key: .string(id)]) }
}
