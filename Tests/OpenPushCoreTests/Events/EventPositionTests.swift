import OpenPushCore
import Testing

/// Positions and cursors of events, single rows and members of a job's compact row.
@Suite struct EventPositionTests {
    @Test func aWholeRowKeepsTheCursorFormHandedOutBeforeCompactRows() throws {
        let position = EventPosition(xid: 812, seq: 4_711)
        #expect(position.index == EventPosition.wholeRow)
        #expect(position.cursor == DeliveryCursor.encode(812) + DeliveryCursor.encode(4_711))
        #expect(position.cursor.count == 22)
        #expect(EventPosition(cursor: position.cursor) == position)
    }

    @Test func aPositionInsideARowHasTheIndexInItsCursor() throws {
        let position = EventPosition(xid: 812, seq: 4_711, index: 99)
        #expect(position.cursor.count == 33)
        #expect(position.cursor.hasPrefix(EventPosition(xid: 812, seq: 4_711).cursor))
        #expect(EventPosition(cursor: position.cursor) == position)
        #expect(EventPosition(cursor: EventPosition(xid: 1, seq: 2, index: 0).cursor)?.index == 0)
    }

    @Test func theLastMemberStandsForTheWholeRow() {
        #expect(EventPosition(xid: 5, seq: 9, member: 0, of: 3).index == 0)
        #expect(EventPosition(xid: 5, seq: 9, member: 1, of: 3).index == 1)
        #expect(EventPosition(xid: 5, seq: 9, member: 2, of: 3) == EventPosition(xid: 5, seq: 9))
        #expect(EventPosition(xid: 5, seq: 9, member: 0, of: 1) == EventPosition(xid: 5, seq: 9))
    }

    @Test func orderIsTransactionThenRowThenIndex() {
        let ordered = [EventPosition.start, EventPosition(xid: 5, seq: 9, index: 0), EventPosition(xid: 5, seq: 9, index: 7),
                       EventPosition(xid: 5, seq: 9), EventPosition(xid: 5, seq: 10, index: 0), EventPosition(xid: 6, seq: 1)]
        #expect(ordered.shuffled().sorted() == ordered)
    }

    @Test(arguments: ["", "AAAAAAAAAAA", String(repeating: "A", count: 23), String(repeating: "A", count: 44),
                      // An index of wholeRow or more is never handed out inside a row.
                      DeliveryCursor.encode(1) + DeliveryCursor.encode(2) + DeliveryCursor.encode(EventPosition.wholeRow),
                      DeliveryCursor.encode(1) + DeliveryCursor.encode(2) + "!!!!!!!!!!!"])
    func cursorsItCannotHaveProducedAreRefused(_ text: String) {
        #expect(EventPosition(cursor: text) == nil)
    }
}
