/// Where an event stands in its app's stream: the writing transaction's id, then its row's `seq`,
/// then its index in that row. Readers go in this order (see migration 0029): an event still
/// being written always comes after every event a reader has already passed.
///
/// A row holds one event, or a job's delivery events stored compactly (`DeliveryEventBatch`,
/// migration 0034); `index` is then the member's place in it. A position whose `index` is
/// `wholeRow` stands after every event of its row: that is where the last member of a row, and
/// every single-event row, stand, so their cursors are the 22-character form handed out before
/// compact rows existed.
package struct EventPosition: Sendable, Hashable, Comparable {
    /// `xid8` of the writing transaction.
    package var xid: Int64
    package var seq: Int64
    /// The index, in row `seq`, of the last event passed; `wholeRow`: the whole row is passed.
    package var index: Int64

    /// Past every event of the row (above any index a row can hold: `int4`'s maximum).
    package static let wholeRow: Int64 = 2_147_483_647
    package static let start = EventPosition(xid: 0, seq: 0)

    package init(xid: Int64, seq: Int64, index: Int64 = wholeRow) {
        self.xid = xid
        self.seq = seq
        self.index = index
    }

    /// Where member `index` of a row of `count` events stands: the last member stands for the
    /// whole row.
    package init(xid: Int64, seq: Int64, member index: Int, of count: Int) {
        self.init(xid: xid, seq: seq, index: index >= count - 1 ? Self.wholeRow : Int64(index))
    }

    package static func < (lhs: EventPosition, rhs: EventPosition) -> Bool {
        (lhs.xid, lhs.seq, lhs.index) < (rhs.xid, rhs.seq, rhs.index)
    }

    /// The opaque cursor form, as `DeliveryCursor` tokens: xid and seq (22 characters), then the
    /// index when the position stands inside a row (33 characters).
    package var cursor: String {
        let row = DeliveryCursor.encode(xid) + DeliveryCursor.encode(seq)
        return index == Self.wholeRow ? row : row + DeliveryCursor.encode(index)
    }

    /// The position a cursor stands for; nil for anything `cursor` cannot have produced.
    package init?(cursor text: String) {
        let scalars = Array(text.unicodeScalars)
        let length = DeliveryCursor.length
        guard scalars.count == 2 * length || scalars.count == 3 * length else { return nil }
        func token(_ n: Int) -> Int64? {
            DeliveryCursor.decode(String(String.UnicodeScalarView(scalars[(n * length)..<((n + 1) * length)])))
        }
        guard let xid = token(0), let seq = token(1) else { return nil }
        if scalars.count == 2 * length {
            self.init(xid: xid, seq: seq)
        } else {
            guard let index = token(2), index < Self.wholeRow else { return nil }
            self.init(xid: xid, seq: seq, index: index)
        }
    }
}
