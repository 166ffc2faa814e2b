import HTTPServer
import Testing

@Suite struct HTTPHeadersTests {
    @Test func lookupIgnoresCaseAndKeepsOrder() {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        headers.add(name: "X-Tag", value: "1")
        headers.add(name: "x-tag", value: "2")
        #expect(headers["content-type"] == "application/json")
        #expect(headers["X-TAG"] == "1")
        #expect(headers.values(for: "x-Tag") == ["1", "2"])
        #expect(headers["X-Tah"] == nil)
        headers.replaceOrAdd(name: "X-Tag", value: "3")
        #expect(headers.map(\.name) == ["Content-Type", "X-Tag"])
        #expect(headers["x-tag"] == "3")
        headers.replaceOrAdd(name: "New", value: "n")
        #expect(headers.count == 3)
    }

    @Test func requestIDs() {
        let id = RequestID.generate()
        #expect(id.count == 16)
        #expect(id.allSatisfy { $0.isHexDigit })
        #expect(RequestID.isValid("abc.DEF_1-2"))
        #expect(!RequestID.isValid(""))
        #expect(!RequestID.isValid("bad id"))
        #expect(!RequestID.isValid(String(repeating: "a", count: 65)))
    }
}
