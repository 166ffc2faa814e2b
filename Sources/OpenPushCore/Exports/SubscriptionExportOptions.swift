/// `POST /players/csv_export`'s body (OneSignal's `ExportSubscriptionsRequestBody`), validated.
package struct SubscriptionExportOptions: Sendable, Equatable {
    /// `defaults` plus the `extra_fields` OpenPush has, in the order asked, once each.
    package var columns: [SubscriptionExportColumn]
    /// `last_active_since`: only devices active at or after this unix second.
    package var lastActiveSince: Int64?
    /// `segment_name`: only the segment's devices (checked by the caller against the app's).
    package var segmentName: String?
    /// `extra_fields` OneSignal knows and OpenPush has no data for, as asked; not in the file.
    package var ignoredExtras: [String]

    /// An absent or empty body is every subscription with the default columns.
    package static func parse(_ object: JSONObject) throws(InvalidInput) -> SubscriptionExportOptions {
        var reader = FieldReader(object)
        let extras = reader.stringArray("extra_fields") ?? []
        let since = reader.value("last_active_since")
        let segment = reader.string("segment_name", maxLength: 128)
        // The app is named in the query; a body that names it too is not refused for that.
        _ = reader.value("app_id")
        reader.rejectUnknownFields()
        var columns = SubscriptionExportColumn.defaults
        var ignored: [String] = []
        if extras.count > ExportLimits.extraFields {
            reader.problem("extra_fields must hold \(ExportLimits.extraFields) names or fewer")
        } else {
            for name in extras {
                if let column = SubscriptionExportColumn(rawValue: name), SubscriptionExportColumn.extras.contains(column) {
                    if !columns.contains(column) { columns.append(column) }
                } else if SubscriptionExportColumn.unsupportedExtras.contains(name) {
                    if !ignored.contains(name) { ignored.append(name) }
                } else if !SubscriptionExportColumn.defaults.contains(where: { $0.rawValue == name }) {
                    let known = (SubscriptionExportColumn.extras.map(\.rawValue) + SubscriptionExportColumn.unsupportedExtras.sorted())
                    reader.problem("extra_fields: unknown field '\(String(name.prefix(64)))' (known: \(known.joined(separator: ", ")))")
                }
            }
        }
        let lastActiveSince = Self.unixSeconds(since, reader: &reader)
        if let segment, segment.isEmpty { reader.problem("segment_name must not be empty") }
        try reader.finish()
        return SubscriptionExportOptions(columns: columns, lastActiveSince: lastActiveSince, segmentName: segment,
                                         ignoredExtras: ignored)
    }

    /// OneSignal sends `last_active_since` as a string of unix seconds ("1469392779"); a number is taken too.
    private static func unixSeconds(_ value: JSONValue?, reader: inout FieldReader) -> Int64? {
        let problem = "last_active_since must be unix seconds, as a string of digits"
        switch value {
        case nil, .null?:
            return nil
        case .string(let text)?:
            guard !text.isEmpty, text.count <= 12, text.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int64(text) else {
                reader.problem(problem)
                return nil
            }
            return seconds
        case let other?:
            guard let seconds = other.intValue, seconds >= 0, seconds < 100_000_000_000 else {
                reader.problem(problem)
                return nil
            }
            return seconds
        }
    }
}

extension SubscriptionExportOptions {
    /// What the job stores (`exports.options`) for its producer.
    package var stored: JSONValue {
        var object: JSONObject = ["columns": .array(columns.map { .string($0.rawValue) })]
        if let lastActiveSince { object["last_active_since"] = .int(lastActiveSince) }
        if let segmentName { object["segment_name"] = .string(segmentName) }
        return .object(object)
    }

    /// The options a job stored; a column this build does not know is left out.
    package init(stored: JSONValue) {
        let object = stored.objectValue ?? [:]
        let names = object["columns"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let columns = names.compactMap(SubscriptionExportColumn.init(rawValue:))
        self.init(columns: columns.isEmpty ? SubscriptionExportColumn.defaults : columns,
                  lastActiveSince: object["last_active_since"]?.intValue, segmentName: object["segment_name"]?.stringValue,
                  ignoredExtras: [])
    }
}
