/// Rows for `COPY … FROM STDIN (FORMAT binary)`, encoded as they are added. PostgreSQL reads
/// each value in its binary form (no array literal, number or UUID text to parse, no plan), and
/// the client formats no literals: the cheapest way to append thousands of rows at once.
///
///     var rows = PostgresCopyRows(columns: 2)
///     rows.startRow(); rows.append("a"); rows.append(Int32(1))
///     try connection.copy(into: "items (name, n)", rows: rows)
///
/// Every row must hold exactly `columns` values, in the target's column order; the column types
/// must match the encodings (`text`, `int4`, `int8`, `timestamptz`), since binary COPY
/// does not convert.
public struct PostgresCopyRows: Sendable {
    public let columns: Int
    /// Rows added so far.
    public private(set) var count = 0
    private var bytes: [UInt8]
    private var valuesInRow = 0

    private static let signature: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00]
    /// Microseconds from the Unix epoch to PostgreSQL's (2000-01-01 UTC).
    public static let postgresEpochMicroseconds: Int64 = 946_684_800 * 1_000_000

    /// `capacity`: bytes to reserve (a guess of the whole size saves regrowing).
    public init(columns: Int, capacity: Int = 0) {
        precondition(columns > 0 && columns <= Int(Int16.max), "a COPY row needs 1…32767 columns")
        self.columns = columns
        bytes = []
        bytes.reserveCapacity(max(capacity, 32))
        bytes.append(contentsOf: Self.signature)
        appendBigEndian(Int32(0))  // flags: no OIDs
        appendBigEndian(Int32(0))  // header extension length
    }

    public var isEmpty: Bool { count == 0 }

    /// Begins a row; the previous one must be complete.
    public mutating func startRow() {
        precondition(count == 0 || valuesInRow == columns, "a COPY row got \(valuesInRow) of its \(columns) values")
        appendBigEndian(Int16(columns))
        count += 1
        valuesInRow = 0
    }

    public mutating func appendNull() {
        value(length: -1)
    }

    public mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            value(length: utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    public mutating func append(_ text: String?) {
        guard let text else { return appendNull() }
        append(text)
    }

    /// An `int4` value.
    public mutating func append(_ number: Int32) {
        value(length: 4)
        appendBigEndian(number)
    }

    /// An `int4` value, or NULL.
    public mutating func append(_ number: Int32?) {
        guard let number else { return appendNull() }
        append(number)
    }

    /// An `int8` value.
    public mutating func append(_ number: Int64) {
        value(length: 8)
        appendBigEndian(number)
    }

    /// A `timestamptz` value: microseconds since 2000-01-01 UTC (PostgreSQL's own epoch), e.g.
    /// the transaction's `now()` read from the server, so the server's clock stays the only one.
    public mutating func append(timestampSince2000 microseconds: Int64) {
        append(microseconds)
    }

    /// The whole stream: header, rows, trailer.
    public var data: [UInt8] {
        precondition(count == 0 || valuesInRow == columns, "a COPY row got \(valuesInRow) of its \(columns) values")
        return bytes + [0xFF, 0xFF]
    }

    private mutating func value(length: Int) {
        precondition(count > 0, "startRow() before the first value")
        precondition(valuesInRow < columns, "a COPY row holds \(columns) values")
        valuesInRow += 1
        appendBigEndian(Int32(length))
    }

    private mutating func appendBigEndian<T: FixedWidthInteger>(_ number: T) {
        withUnsafeBytes(of: number.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
