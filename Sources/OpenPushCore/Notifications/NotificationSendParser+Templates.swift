extension NotificationSendParser {
    /// `template_id` (already applied by the route, kept in the stored request so the view names
    /// the template) and `custom_data`, the object Liquid reads as `message.custom_data`.
    static func readTemplateReferences(_ reader: inout FieldReader) -> JSONObject? {
        _ = reader.string(TemplateMerge.field)
        guard let value = reader.value("custom_data"), value != .null else { return nil }
        guard case .object(let customData) = value else {
            reader.problem("custom_data must be an object, got \(value.typeName)")
            return nil
        }
        return customData
    }
}
