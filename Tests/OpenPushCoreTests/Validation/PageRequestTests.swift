import Testing
import OpenPushCore

@Suite struct PageRequestTests {
    @Test func defaultsAndValues() throws {
        #expect(try PageRequest.read([:]) == PageRequest(limit: 100, offset: 0))
        #expect(try PageRequest.read(["limit": "1", "offset": "40"]) == PageRequest(limit: 1, offset: 40))
        #expect(try PageRequest.read(["limit": "100"]).limit == 100)
    }

    @Test func badValuesAreNamedTogether() {
        #expect(throws: InvalidInput(["limit must be an integer from 1 to 100",
                                                         "offset must be an integer of 0 or more"])) {
            try PageRequest.read(["limit": "101", "offset": "-1"])
        }
        for limit in ["0", "ten", "", "1.5"] {
            #expect(throws: InvalidInput.self) { try PageRequest.read(["limit": limit]) }
        }
    }

    @Test func limitAloneHasItsOwnDefaultAndMaximum() {
        var problems: [String] = []
        #expect(PageRequest.limit([:], default: 100, max: 1000, problems: &problems) == 100)
        #expect(PageRequest.limit(["limit": "1000"], default: 100, max: 1000, problems: &problems) == 1000)
        #expect(problems.isEmpty)
        #expect(PageRequest.limit(["limit": "1001"], default: 100, max: 1000, problems: &problems) == 100)
        #expect(problems == ["limit must be an integer from 1 to 1000"])
    }
}
