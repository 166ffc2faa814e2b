/// Where an event stands in its app's stream: the writing transaction's id, then its `seq`.
/// Readers go in this order (see migration 0029): an event still being written always comes
/// after every event a reader has already passed.
public struct EventPosition: Sendable, Hashable, Comparable {
    /// `xid8` of the writing transaction.
    public var xid: Int64
    public var seq: Int64

    public static let start = EventPosition(xid: 0, seq: 0)

    public init(xid: Int64, seq: Int64) {
        self.xid = xid
        self.seq = seq
    }

    public static func < (lhs: EventPosition, rhs: EventPosition) -> Bool {
        (lhs.xid, lhs.seq) < (rhs.xid, rhs.seq)
    }

    /// The opaque cursor form: both numbers as `DeliveryCursor` tokens, 22 characters.
    public var cursor: String { DeliveryCursor.encode(xid) + DeliveryCursor.encode(seq) }

    /// The position a cursor stands for; nil for anything `cursor` cannot have produced.
    public init?(cursor text: String) {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count == 2 * DeliveryCursor.length,
              let xid = DeliveryCursor.decode(String(String.UnicodeScalarView(scalars.prefix(DeliveryCursor.length)))),
              let seq = DeliveryCursor.decode(String(String.UnicodeScalarView(scalars.suffix(DeliveryCursor.length))))
        else { return nil }
        self.init(xid: xid, seq: seq)
    }
}
