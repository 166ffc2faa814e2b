import Foundation

/// PKCS#12 files made with the `openssl` command (a path independent of `Crypto`), shaped like
/// Apple's APNs certificates: the bundle id as the subject's UID, the topics in Apple's extension.
/// One self-signed certificate and key per directory.
struct TestPKCS12Files {
    let directory: URL
    let certificatePath: String
    let keyPath: String

    /// A fresh key and certificate for `bundleID`, valid `days` from now (negative: expired).
    init(bundleID: String, topics: [String]? = nil, days: Int = 365) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("openpush-p12-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        certificatePath = directory.appendingPathComponent("cert.pem").path
        keyPath = directory.appendingPathComponent("key.pem").path
        var configuration = "[v3]\nbasicConstraints = CA:FALSE\nextendedKeyUsage = clientAuth\n"
        if let topics {
            configuration += "1.2.840.113635.100.6.3.6 = ASN1:SEQUENCE:topics\n[topics]\n"
            for (index, topic) in topics.enumerated() {
                configuration += "t\(index) = UTF8:\(topic)\nk\(index) = SEQUENCE:kind\(index)\n"
            }
            for index in topics.indices { configuration += "[kind\(index)]\nk = UTF8:app\n" }
        }
        let configurationPath = directory.appendingPathComponent("v3.cnf").path
        try configuration.write(toFile: configurationPath, atomically: true, encoding: .utf8)
        let csr = directory.appendingPathComponent("req.csr").path
        try Self.openssl(["req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", keyPath, "-out", csr,
                          "-subj", "/UID=\(bundleID)/CN=Apple Push Services: \(bundleID)"])
        try Self.openssl(["x509", "-req", "-in", csr, "-signkey", keyPath, "-days", String(days),
                          "-extfile", configurationPath, "-extensions", "v3", "-out", certificatePath])
    }

    var certificatePEM: String { (try? String(contentsOfFile: certificatePath, encoding: .utf8)) ?? "" }

    /// The `.p12` bytes: AES (OpenSSL 3's default) or RC2/3DES when `legacy`; `contents` picks
    /// what goes in.
    func pkcs12(password: String, legacy: Bool = false, contents: Contents = .both) throws -> [UInt8] {
        let output = directory.appendingPathComponent("\(UUID().uuidString).p12").path
        var arguments = ["pkcs12", "-export", "-out", output, "-passout", "pass:" + password]
        switch contents {
        case .both: arguments += ["-in", certificatePath, "-inkey", keyPath]
        case .certificateOnly: arguments += ["-in", certificatePath, "-nokeys"]
        case .keyOnly: arguments += ["-inkey", keyPath, "-nocerts"]
        }
        if legacy { arguments.append("-legacy") }
        try Self.openssl(arguments)
        return Array(try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    enum Contents {
        case both, certificateOnly, keyOnly
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments[0]) failed"])
        }
    }
}
