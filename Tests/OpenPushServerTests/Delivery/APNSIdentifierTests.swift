import Foundation
import Testing
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport
import Postgres

/// The `apns-id` is derived in Swift (`APNSIdentifier`, the one a push carries) and, for SQL
/// readers of stored records, by `openpush_apns_id` (`migrations/functions/openpush_apns_id.sql`):
/// the two must agree on every input, or support would look for a push under an id it never had.
@Suite struct APNSIdentifierTests {
    /// Ids as the product makes them, and the edges of the encoding: empty parts, non-ASCII
    /// (UTF-8 on both sides), separators inside a part, long parts; every token kind.
    static let inputs: [(message: String, subscription: String, tokenKind: TokenKind)] = {
        let kinds = TokenKind.allCases
        var inputs: [(String, String, TokenKind)] = (0..<200).map { n in
            ("msg_" + String(UInt64.random(in: 0...UInt64.max), radix: 16),
             "sub_" + UUID().uuidString.lowercased(), kinds[n % kinds.count])
        }
        inputs += [
            ("", "", .device), ("msg_1", "sub_2", .device), ("a\nb", "c", .device), ("a", "b\nc", .device),
            ("msg_é", "sub_日本", .widget), ("😀", "👍🏽", .update), (String(repeating: "m", count: 5_000), "s", .device),
            ("tab\there", "quote'\"", .pushToStart), ("back\\slash", "%_", .channel),
        ]
        return inputs
    }()

    @Test func postgresAndSwiftAgreeOnEveryInput() async throws {
        let pool = try await TestDatabase.create().makePool(size: 1)
        let inputs = Self.inputs
        let fromSQL = try await pool.query("""
            SELECT openpush_apns_id(m, s, k)::text AS id
            FROM unnest(\(inputs.map(\.message))::text[], \(inputs.map(\.subscription))::text[], \(inputs.map(\.tokenKind.rawValue))::text[])
                 WITH ORDINALITY AS i(m, s, k, n)
            ORDER BY n
            """).map { try $0.decode("id", as: String.self) }
        let fromSwift = inputs.map { APNSIdentifier.derive(messageID: $0.message, subscriptionID: $0.subscription, tokenKind: $0.tokenKind) }
        #expect(fromSQL.count == inputs.count)
        for (index, (sql, swift)) in zip(fromSQL, fromSwift).enumerated() {
            #expect(sql == swift, "\(inputs[index])")
        }
        // Version 8, RFC 9562 variant: what both sides set in the digest's bytes 6 and 8.
        for id in fromSwift {
            let uuid = try #require(UUID(uuidString: id))
            #expect(uuid.uuid.6 >> 4 == 8)
            #expect(uuid.uuid.8 >> 6 == 0b10)
        }
        await pool.close()
    }
}
