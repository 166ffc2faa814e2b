extension P256SigningKey {
    /// A new P-256 private key as PKCS#8 PEM: the shape of an APNs `.p8` file. For the demo app
    /// of `openpush dev` and for tests; production keys come from Apple.
    package static func generatePEM() throws(CryptoError) -> String {
        try SelfSignedCertificate.generate(validFor: 60).privateKeyPEM
    }
}
