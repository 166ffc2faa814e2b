/// One query parameter, sent to PostgreSQL in text format; `text == nil` is SQL NULL.
public struct PostgresBind: Sendable, Hashable, CustomStringConvertible {
    public var text: String?

    public init(text: String?) {
        self.text = text
    }

    public static let null = PostgresBind(text: nil)

    public var isNull: Bool { text == nil }

    public var description: String {
        text.map { "'\($0)'" } ?? "NULL"
    }
}
