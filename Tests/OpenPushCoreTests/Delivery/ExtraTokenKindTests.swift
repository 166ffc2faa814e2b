import OpenPushCore
import Testing

/// Each extra token kind has its token kind (for rows and dead tokens) and its notification
/// kind (for messages), spelled alike, and back.
@Suite struct ExtraTokenKindTests {
    @Test(arguments: ExtraTokenKind.allCases)
    func eachKindMapsBothWays(_ kind: ExtraTokenKind) {
        #expect(TokenKind(kind).rawValue == kind.rawValue)
        #expect(TokenKind(kind).extraKind == kind)
        #expect(NotificationKind(kind).rawValue == kind.rawValue)
    }

    @Test func theOtherTokenKindsAreNotExtra() {
        for kind in [TokenKind.device, .update, .pushToStart, .widget, .channel] {
            #expect(kind.extraKind == nil)
        }
    }

    @Test func applesTopicsAndPushTypes() {
        #expect(ExtraTokenKind.allCases.map(\.topicSuffix)
                == [".voip", ".location-query", ".voip-ptt", ".complication", ".pushkit.fileprovider"])
        #expect(ExtraTokenKind.allCases.map(\.pushType.rawValue) == ["voip", "location", "pushtotalk", "complication", "fileprovider"])
    }
}
