/// Where a page of a message's delivery records ends: records are listed by device
/// (subscription id), then by record id, the order of the records' index, so a tap finds its
/// device's record in one descent and a page continues from one.
package struct DeliveryPosition: Sendable, Equatable {
    package var subscriptionID: String
    package var id: Int64

    package init(subscriptionID: String, id: Int64) {
        self.subscriptionID = subscriptionID
        self.id = id
    }

    /// The record id as a `DeliveryCursor` (11 characters), a `.`, then the subscription id as it
    /// is: ids are URL-safe by construction (`sub_` and base32, or a UUID), so nothing is escaped.
    package var cursor: String { DeliveryCursor.encode(id) + "." + subscriptionID }

    /// Nil for anything `cursor` cannot have produced.
    package init?(cursor: String) {
        let scalars = Array(cursor.unicodeScalars)
        let length = DeliveryCursor.length
        guard scalars.count > length + 1, scalars.count <= length + 1 + Self.maxSubscriptionIDLength, scalars[length] == ".",
              let id = DeliveryCursor.decode(String(String.UnicodeScalarView(scalars.prefix(length))))
        else { return nil }
        let subscription = scalars.dropFirst(length + 1)
        guard subscription.allSatisfy(Self.isURLSafe) else { return nil }
        self.init(subscriptionID: String(String.UnicodeScalarView(subscription)), id: id)
    }

    static let maxSubscriptionIDLength = 128

    private static func isURLSafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "-", "_": true
        default: false
        }
    }
}
