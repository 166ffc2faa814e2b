import Foundation
import Subprocess

/// APNs provider certificates for tests, made with the `openssl` command (a path `Crypto` does
/// not share): a CA standing in for Apple's (the simulator trusts it), client certificates it
/// signs shaped like Apple's (the bundle id as the subject's UID, the topics in Apple's
/// extension), and PKCS#12 files of them as Keychain exports them.
package struct TestCertificates: Sendable {
    /// A signed client certificate and its key, as files and as PEM.
    package struct Issued: Sendable {
        package var certificatePath: String
        package var keyPath: String
        package var certificatePEM: String
        package var keyPEM: String
    }

    package let directory: String
    /// The CA's certificate (PEM file): what the simulator is told to trust.
    package let caPath: String
    private let caKeyPath: String

    /// A fresh CA in a fresh directory.
    package static func make() async throws -> TestCertificates {
        let directory = try TemporaryDirectory.make(prefix: "openpush-certs")
        let certificates = TestCertificates(directory: directory)
        try await run(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", certificates.caKeyPath,
                       "-out", certificates.caPath, "-days", "3650", "-subj", "/CN=OpenPush Test CA"])
        return certificates
    }

    private init(directory: String) {
        self.directory = directory
        caPath = directory + "/ca.pem"
        caKeyPath = directory + "/ca.key"
    }

    /// A client certificate for `bundleID` (its UID), valid for `days` from now (negative: it
    /// expired that long ago), with Apple's topics extension listing `topics` when given
    /// (each with its kind, as Apple writes them), signed by this CA unless `selfSigned`.
    package func issue(bundleID: String, topics: [String]? = nil, days: Int = 365, selfSigned: Bool = false,
                       name: String = UUID().uuidString) async throws -> Issued {
        let base = directory + "/" + name
        let issued = Issued(certificatePath: base + ".pem", keyPath: base + ".key", certificatePEM: "", keyPEM: "")
        var extensions = """
            [v3]
            basicConstraints = CA:FALSE
            keyUsage = digitalSignature
            extendedKeyUsage = clientAuth

            """
        if let topics {
            extensions += "1.2.840.113635.100.6.3.6 = ASN1:SEQUENCE:topics\n[topics]\n"
            for (index, topic) in topics.enumerated() {
                extensions += "t\(index) = UTF8:\(topic)\nk\(index) = SEQUENCE:kind\(index)\n"
            }
            for (index, topic) in topics.enumerated() {
                let kind = topic == bundleID ? "app" : String(topic.split(separator: ".").last ?? "app")
                extensions += "[kind\(index)]\nk = UTF8:\(kind)\n"
            }
        }
        try extensions.write(toFile: base + ".cnf", atomically: true, encoding: .utf8)
        let subject = "/UID=\(bundleID)/CN=Apple Push Services: \(bundleID)"
        try await Self.run(["req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", issued.keyPath,
                            "-out", base + ".csr", "-subj", subject])
        let signer = selfSigned ? ["-signkey", issued.keyPath] : ["-CA", caPath, "-CAkey", caKeyPath]
        try await Self.run(["x509", "-req", "-in", base + ".csr"] + signer + [
            "-set_serial", String(UInt32.random(in: 1...UInt32.max)), "-days", String(days),
            "-extfile", base + ".cnf", "-extensions", "v3", "-out", issued.certificatePath])
        var result = issued
        result.certificatePEM = try String(contentsOfFile: issued.certificatePath, encoding: .utf8)
        result.keyPEM = try String(contentsOfFile: issued.keyPath, encoding: .utf8)
        return result
    }

    /// A PKCS#12 file of `issued`, as bytes: AES-encrypted (OpenSSL 3's default), or with the
    /// RC2/3DES encryption macOS Keychain and older OpenSSL write when `legacy`. `withKey: false`
    /// leaves the private key out.
    package func pkcs12(_ issued: Issued, password: String, legacy: Bool = false, withKey: Bool = true) async throws -> [UInt8] {
        let path = directory + "/" + UUID().uuidString + ".p12"
        var arguments = ["pkcs12", "-export", "-in", issued.certificatePath, "-out", path, "-passout", "pass:" + password]
        arguments += withKey ? ["-inkey", issued.keyPath] : ["-nokeys"]
        if legacy { arguments.append("-legacy") }
        try await Self.run(arguments)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private static func run(_ arguments: [String]) async throws {
        let output = try await Subprocess.run("openssl", arguments)
        guard output.status == 0 else {
            throw Subprocess.Failure("openssl \(arguments.first ?? "") failed: \(output.text)")
        }
    }
}
