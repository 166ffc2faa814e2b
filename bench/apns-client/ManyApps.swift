// `apns-client-bench --apps N URL`: N apps, each with its own new P-256 key, send one push
// each at once; then the client sits idle until its pools close. Prints one JSON line with
// what happened and this process's thread count (/proc/self/status) at its peak, after the
// sends and after the pools closed. The APNs tests run it as a child process, so no other
// test's threads are counted.
import APNs
import Crypto
import Foundation
import OpenPushCore
import Synchronization

func processThreads() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("Threads:") } ?? ""
    return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) ?? -1
}

func runManyApps(url: String, apps: Int, idleTimeout: Double) async throws {
    let credentials = try (0..<apps).map { index in
        APNSCredential(keyID: String(format: "KEY%07d", index), teamID: "TEAM123456",
                       signingKey: try P256SigningKey(pem: P256SigningKey.generatePEM()))
    }
    let configuration = APNSClientConfiguration(productionURL: url, sandboxURL: url, connectTimeout: 10,
                                                requestTimeout: 60, idleTimeout: idleTimeout)
    let client = try APNSClient(configuration: configuration)
    let headers = APNSHeaders(pushType: .alert, topic: "com.example.app", priority: 10, expiration: 0,
                              apnsID: "0f8c3a5e-2f1b-4c6d-9a7e-1b2c3d4e5f60")
    let request = APNSPush(deviceToken: String(repeating: "ab", count: 32),
                           request: APNSRequest(headers: headers, payload: ["aps": ["alert": "Hello"]]))
    let threadsBefore = processThreads()
    let peak = Mutex(threadsBefore)
    let sampling = Task {
        while !Task.isCancelled {
            let now = processThreads()
            peak.withLock { $0 = max($0, now) }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
    let statuses = await withTaskGroup(of: Int.self) { group in
        for credential in credentials {
            group.addTask { (try? await client.send(request, credential: credential, environment: .production))?.status ?? -1 }
        }
        return await group.reduce(into: [Int]()) { $0.append($1) }
    }
    let open = client.metrics
    let threadsAfterSends = processThreads()
    sampling.cancel()
    _ = await sampling.value
    // Idle: every pool should close after `idleTimeout`.
    let deadline = Date().addingTimeInterval(idleTimeout + 30)
    while Date() < deadline, client.metrics.openPools > 0 || client.metrics.openConnections > 0 {
        try await Task.sleep(for: .milliseconds(50))
    }
    let idle = client.metrics
    let threadsAfterIdle = processThreads()
    await client.shutdown()
    let report: [String: Int] = [
        "apps": apps, "accepted": statuses.filter { $0 == 200 }.count, "threadsBefore": threadsBefore,
        "peakThreads": peak.withLock { $0 }, "threadsAfterSends": threadsAfterSends, "threadsAfterIdle": threadsAfterIdle,
        "poolsOpen": open.openPools, "connectionsOpen": open.openConnections,
        "poolsAfterIdle": idle.openPools, "connectionsAfterIdle": idle.openConnections,
        "connectionsOpened": client.connectionsOpened,
    ]
    let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
    print(String(decoding: json, as: UTF8.self))
}
