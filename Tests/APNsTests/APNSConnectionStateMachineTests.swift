import Testing
@testable import APNs

@Suite struct APNSConnectionStateMachineTests {
    @Test func placeholder() {}
}
