import Foundation
import Testing
import OpenPushTestSupport
import Subprocess

/// OneSignal's official Python client (`onesignal-python-api`, pinned in
/// `Tests/compat/requirements.txt`) drives a running OpenPush: `Tests/compat/onesignal_python_client.py`
/// (with the `scenarios_*.py` modules it imports)
/// creates notifications with each targeting mode, schedules with `datetime`s, reads the view and
/// the list, cancels, and checks every push against the APNs simulator's control API.
/// `make test` creates the virtual environment it runs in.
@Suite struct OneSignalPythonClientTests {
    static let venv = TestApp.repositoryRoot + "/.build/compat-venv"
    static let script = TestApp.repositoryRoot + "/Tests/compat/onesignal_python_client.py"

    @Test func oneSignalsPythonClientWorksAgainstOpenPush() async throws {
        let python = Self.venv + "/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            Issue.record("""
                OneSignal's Python client is not installed: \(python) is missing. Run `make test`, which creates \
                that virtual environment (`make compat-venv` alone creates it).
                """)
            return
        }
        let organizationKey = "org_compat_" + UUID().uuidString
        let served = try await ServedOpenPush.start(environment: ["OPENPUSH_ORG_API_KEY": organizationKey])
        defer { Task { await served.shutdown() } }
        let created = served.created
        let output = try await Subprocess.run(python, ["-u", Self.script], environment: [
            "PATH": "/usr/bin:/bin",
            "OPENPUSH_URL": served.baseURL,
            "OPENPUSH_APP_ID": created.app.id,
            "OPENPUSH_REST_API_KEY": created.restKey,
            "OPENPUSH_SDK_KEY": created.sdkKey,
            "APNS_SIMULATOR_CONTROL_URL": served.controlURL,
            "OPENPUSH_ORGANIZATION_API_KEY": organizationKey,
        ])
        #expect(output.status == 0, """
            the Python client's scenarios failed (exit \(output.status)):
            \(output.text)
            the end of openpush serve's log:
            \(served.serverLog.split(separator: "\n").suffix(40).joined(separator: "\n"))
            """)
    }
}
