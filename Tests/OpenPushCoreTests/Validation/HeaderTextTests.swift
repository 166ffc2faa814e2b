import Testing
import OpenPushCore

/// Body fields that become APNs headers: printable ASCII only, so no request can put a control
/// character on a connection every app shares.
@Suite struct HeaderTextTests {
    static let target: JSONObject = ["included_segments": ["Subscribed Users"], "contents": ["en": "x"]]

    static func parse(collapseID: String) -> Result<NotificationSend, InvalidInput> {
        var body = target
        body["collapse_id"] = .string(collapseID)
        return NotificationSendParser.parse(body)
    }

    /// 64 bytes spanning the printable range, space and `~` included.
    static let printable64 = String(decoding: (0..<64).map { UInt8(0x20 + ($0 * 3) % 95) }, as: UTF8.self)

    @Test func printableASCIIIsSpaceToTilde() {
        #expect(HeaderText.isPrintableASCII(" azAZ09~!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}"))
        for bad in ["a\u{7F}", "a\nb", "a\rb", "a\tb", "\u{1B}[0m", "é", "a\u{85}", "💥"] {
            #expect(!HeaderText.isPrintableASCII(bad), "\(bad.unicodeScalars.map(\.value))")
        }
        #expect(HeaderText.isVisibleASCII("com.example.app"))
        #expect(!HeaderText.isVisibleASCII("com.example app"))
    }

    @Test func aValueIsSendableWithoutControlCharactersOrSurroundingSpaces() {
        #expect(HeaderText.isSendable("order 58213"))
        #expect(HeaderText.isSendable(""))
        for bad in ["a\nb", "a\u{0}b", "\u{7F}", "é", " a", "a "] { #expect(!HeaderText.isSendable(bad)) }
        #expect(HeaderText.trimmingSpaces("  a b  ") == "a b")
        #expect(HeaderText.trimmingSpaces("a b") == "a b")
        #expect(HeaderText.trimmingSpaces("   ") == "")
    }

    @Test func collapseIDTakes64PrintableBytes() throws {
        #expect(Self.printable64.utf8.count == 64)
        #expect(Self.printable64.contains(" ") && Self.printable64.contains("~"))
        #expect(try Self.parse(collapseID: Self.printable64).get().collapseID == Self.printable64)
    }

    @Test(arguments: ["line\nbreak", "bell\u{07}", "nul\u{0}", "del\u{7F}", "tab\tbed", "café", "📦-1"])
    func collapseIDRefusesControlAndNonASCIICharacters(_ id: String) {
        guard case .failure(let error) = Self.parse(collapseID: id) else {
            Issue.record("accepted \(id.unicodeScalars.map(\.value))")
            return
        }
        #expect(error.messages == [NotificationSendParser.Messages.collapseIDNotASCII])
        #expect(error.messages[0].hasPrefix("collapse_id "))
    }

    @Test func collapseIDRefuses65Bytes() {
        guard case .failure(let error) = Self.parse(collapseID: String(repeating: "k", count: 65)) else {
            Issue.record("65 bytes accepted")
            return
        }
        #expect(error.messages == ["collapse_id must be at most 64 bytes"])
    }

    @Test func bundleIDsBecomeTopicsSoAreVisibleASCII() throws {
        let ok = try AppFields.read(["apns_bundle_id": "com.example.app", "apns_watch_bundle_id": "com.example.app.watch"],
                                    for: .update, isP256PrivateKey: { _ in true })
        #expect(ok.apnsBundleID == .set("com.example.app"))
        #expect(throws: InvalidInput([
            "apns_bundle_id must be printable ASCII without spaces: it is sent as the apns-topic header",
            "apns_watch_bundle_id must be printable ASCII without spaces: it is sent as the apns-topic header",
        ])) {
            try AppFields.read(["apns_bundle_id": "com.example\napp", "apns_watch_bundle_id": "com.exämple.watch"],
                               for: .update, isP256PrivateKey: { _ in true })
        }
    }
}
