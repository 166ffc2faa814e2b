// The APNs client alone: N pushes of a 247-byte alert payload to an APNs-compatible server
// (normally `openpush apns-sim --accept-any-token`), in batches of 2,000 in flight.
// Usage: apns-client-bench URL [count] [connections]       (see bench/apns-client.sh)
//        apns-client-bench --apps N URL [idle seconds]    (see ManyApps.swift)
import APNs
import Crypto
import Foundation
import OpenPushCore

let arguments = CommandLine.arguments
signal(SIGPIPE, SIG_IGN)
if arguments.count >= 4, arguments[1] == "--apps", let apps = Int(arguments[2]) {
    let idleTimeout = arguments.count > 4 ? Double(arguments[4]) ?? 3 : 3
    try await runManyApps(url: arguments[3], apps: apps, idleTimeout: idleTimeout)
    exit(0)
}
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: apns-client-bench URL [count] [connections] | --apps N URL [idle seconds]\n".utf8))
    exit(2)
}
let url = arguments[1]
let count = arguments.count > 2 ? Int(arguments[2]) ?? 50_000 : 50_000
let connections = arguments.count > 3 ? Int(arguments[3]) ?? 1 : 1

let credential = APNSCredential(keyID: "BENCHKEY01", teamID: "BENCHTEAM1",
                                signingKey: try P256SigningKey(pem: P256SigningKey.generatePEM()))
let client = try APNSClient(configuration: APNSClientConfiguration(productionURL: url, sandboxURL: url,
                                                                   connectionsPerKey: connections))
let body = #"{"aps":{"alert":{"title":"Order 58213","body":"Arriving in about 24 minutes, the courier is two streets away"},"sound":"default","thread-id":"orders"},"order":{"id":"58213","eta":24,"store":"Bridge Road","items":3,"total":"42.90","courier":"Sam"}}"#
// Every push carries the same headers (and apns-id); the simulator only echoes it.
let headers = APNSHeaders(pushType: .alert, topic: "com.example.bench", priority: 10, expiration: 0,
                          apnsID: "0f8c3a5e-2f1b-4c6d-9a7e-1b2c3d4e5f60")
let request = APNSPush(deviceToken: String(repeating: "ab", count: 32),
                       request: APNSRequest(headers: headers, payload: try JSONValue.parse(body)))

func run(_ total: Int) async -> Int {
    var accepted = 0
    var sent = 0
    while sent < total {
        let batch = min(2000, total - sent)
        let results = await client.send(Array(repeating: request, count: batch), credential: credential, environment: .production)
        accepted += results.filter { (try? $0.get())?.status == 200 }.count
        sent += batch
    }
    return accepted
}

_ = await run(2000)  // connect and warm up
let started = ContinuousClock.now
let accepted = await run(count)
let elapsed = ContinuousClock.now - started
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
// The process's threads (/proc/self/status) while the connections are still open.
let threads = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8))?
    .split(separator: "\n").first { $0.hasPrefix("Threads:") }?.split(separator: "\t").last ?? "?"
print(String(format: "client: %d pushes of %d bytes, %d accepted, %d connection(s): %.2f s, %.0f req/s",
             count, request.request.payloadBytes.count, accepted, connections, seconds, Double(count) / seconds) + ", \(threads) threads")
await client.shutdown()
