import Testing
@testable import APNsSimulator

/// Which paths the simulator takes for channel management and broadcasts.
@Suite struct APNSChannelsSimulatorTests {
    /// A device push is not parsed as a channel request: only `/1` and `/4` and the paths under
    /// them are, whatever follows (an unknown one answers BadPath there).
    @Test func onlyTheManagementAndBroadcastPathsAreChannelRequests() {
        for path in ["/1", "/4", "/1/apps/b/channels", "/4/broadcasts/apps/b", "/1?x=1", "/4/unknown"] {
            #expect(APNSSimulator.isChannelPath(path), "\(path)")
        }
        for path in ["/3/device/aa", "/", "", "/10/apps", "/41", "1/apps", "/3/device/1"] {
            #expect(!APNSSimulator.isChannelPath(path), "\(path)")
        }
    }
}
