/// The body of `PATCH /apps/{app_id}/users/by/{alias_label}/{alias_id}`, OneSignal's
/// `update_user`: properties to set (tags merge, `""` removes one) and deltas to add.
package struct UserUpdate: Sendable, Equatable {
    package var properties: UserProperties
    package var deltas: UserDeltas

    package init(properties: UserProperties = UserProperties(), deltas: UserDeltas = UserDeltas()) {
        self.properties = properties
        self.deltas = deltas
    }

    package init(body: JSONObject) throws(InvalidInput) {
        var reader = FieldReader(body)
        let properties = reader.nestedObject("properties", UserProperties.read)
        let deltas = reader.nestedObject("deltas", UserDeltas.read)
        // OneSignal's SDK flag for refreshing the device's IP and country; OpenPush stores neither from it.
        _ = reader.bool("refresh_device_metadata")
        reader.rejectUnknownFields()
        if reader.problems.isEmpty, !reader.has("properties"), !reader.has("deltas") {
            reader.problem("properties or deltas is required")
        }
        try reader.finish()
        self.properties = properties ?? UserProperties()
        self.deltas = deltas ?? UserDeltas()
    }
}

/// OneSignal's `deltas`: amounts added to what the user has. Only additions: a count or a time
/// that goes down is not a delta OneSignal's SDKs send.
package struct UserDeltas: Sendable, Equatable {
    package var sessionCount: Int64?
    /// Seconds.
    package var sessionTime: Int64?
    package var purchases: [UserPurchase]

    package init(sessionCount: Int64? = nil, sessionTime: Int64? = nil, purchases: [UserPurchase] = []) {
        self.sessionCount = sessionCount
        self.sessionTime = sessionTime
        self.purchases = purchases
    }

    package static let sessionCounts: ClosedRange<Int64> = 0...1_000_000
    /// A year of seconds.
    package static let sessionTimes: ClosedRange<Int64> = 0...31_536_000
    package static let maxPurchases = 100

    static func read(_ reader: inout FieldReader) -> UserDeltas {
        let sessionCount = reader.integer("session_count", in: sessionCounts)
        let sessionTime = reader.integer("session_time", in: sessionTimes)
        var purchases: [UserPurchase] = []
        switch reader.value("purchases") {
        case nil, .null?:
            break
        case .array(let items)? where items.count <= maxPurchases:
            for (index, item) in items.enumerated() {
                guard case .object(let object) = item else {
                    reader.problem("purchases[\(index)] must be an object, got \(item.typeName)")
                    continue
                }
                var nested = FieldReader(object)
                let purchase = UserPurchase.read(&nested)
                for message in nested.problems { reader.problem("purchases[\(index)].\(message)") }
                if let purchase { purchases.append(purchase) }
            }
        case .array?:
            reader.problem("purchases must hold at most \(maxPurchases) purchases")
        case let other?:
            reader.problem("purchases must be an array, got \(other.typeName)")
        }
        reader.rejectUnknownFields()
        return UserDeltas(sessionCount: sessionCount, sessionTime: sessionTime, purchases: purchases)
    }
}

/// One purchase, OneSignal's `Purchase`: the amount is a decimal string, as the client sends it.
package struct UserPurchase: Sendable, Equatable {
    package var sku: String
    package var amount: String
    /// ISO 4217, upper-cased. Amounts are added up as sent, without conversion.
    package var iso: String
    package var count: Int64

    package init(sku: String, amount: String, iso: String, count: Int64 = 1) {
        self.sku = sku
        self.amount = amount
        self.iso = iso
        self.count = count
    }

    package static let maxSKULength = 128
    package static let counts: ClosedRange<Int64> = 1...10_000
    /// Digits before and after the point of an amount.
    static let maxWholeDigits = 12
    static let maxFractionDigits = 6

    static func read(_ reader: inout FieldReader) -> UserPurchase? {
        let sku = reader.string("sku", required: true, maxLength: maxSKULength)
        let amount = reader.string("amount", required: true)
        if let amount, !isAmount(amount) {
            reader.problem("amount must be a decimal string such as \"4.99\" "
                + "(at most \(maxWholeDigits) digits before the point and \(maxFractionDigits) after)")
        }
        let iso = reader.string("iso", required: true)
        let isoValid = iso.map { $0.utf8.count == 3 && $0.utf8.allSatisfy { (65...90).contains($0) || (97...122).contains($0) } }
        if isoValid == false { reader.problem("iso must be a 3-letter ISO 4217 currency code") }
        let count = reader.integer("count", in: counts)
        reader.rejectUnknownFields()
        guard reader.problems.isEmpty, let sku, let amount, let iso else { return nil }
        return UserPurchase(sku: sku, amount: amount, iso: iso.uppercased(), count: count ?? 1)
    }

    /// `4`, `4.99`, `0.5`: unsigned, plain digits, one optional point.
    package static func isAmount(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, (1...maxWholeDigits).contains(whole.count) else { return false }
        let digits = { (part: Substring) in part.utf8.allSatisfy { (48...57).contains($0) } }
        guard digits(whole) else { return false }
        if parts.count == 2 {
            return (1...maxFractionDigits).contains(parts[1].count) && digits(parts[1])
        }
        return true
    }
}
