import Testing
import OpenPushCore
import OpenPushServer

@Suite struct RouteFamilyTests {
    @Test(arguments: [
        ("/v1/apps/app_1/live-activities", RouteFamily.native),
        ("/v1", .native),
        ("/v10/x", .rest),
        ("/apps/app_1/activities/activity/T", .rest),
        ("/notifications", .rest),
        ("/health", .operations),
        ("/metrics", .operations),
        ("/nowhere", .rest),
    ])
    func familyComesFromThePath(_ path: String, _ family: RouteFamily) {
        #expect(RouteFamily.of(path: path) == family)
    }

    @Test func nativeErrorsUseDetail() {
        #expect(RouteFamily.native.errorBody(["unknown device token for this app"])
            == ["detail": "unknown device token for this app"])
    }

    @Test func restErrorsListEveryMessage() {
        #expect(RouteFamily.rest.errorBody(["a", "b"]) == ["errors": ["a", "b"]])
    }
}
