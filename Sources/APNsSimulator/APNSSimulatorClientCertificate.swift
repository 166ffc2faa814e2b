import COpenSSL

/// A client certificate as the simulator reads it, through OpenSSL: the subject's UID (the
/// bundle id, in Apple's certificates) and the topics of Apple's extension
/// 1.2.840.113635.100.6.3.6 (`SEQUENCE { UTF8String topic, SEQUENCE { kind… }, … }`). A
/// connection that presented one pushes to those topics without a provider token.
struct APNSSimulatorClientCertificate: Sendable, Equatable {
    static let topicsExtensionOID = "1.2.840.113635.100.6.3.6"

    var uid: String
    /// The UID, then the extension's topics.
    var topics: [String]

    /// nil for a certificate without a UID: it names no app.
    init?(der: [UInt8]) {
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let certificate = parsed else { return nil }
        defer { X509_free(certificate) }
        guard let uid = Self.uid(of: certificate) else { return nil }
        self.uid = uid
        var topics = [uid]
        for topic in Self.extensionTopics(of: certificate) where !topics.contains(topic) { topics.append(topic) }
        self.topics = topics
        ERR_clear_error()
    }

    /// Whether a push to `topic` (its bundle id `bundleID`, the push type's suffix removed)
    /// may go over this certificate's connection: a topic it lists, or a Live Activity or
    /// widget topic of a bundle id it lists (Apple's certificates list no `.push-type.` topics).
    func allows(topic: String, bundleID: String) -> Bool {
        topics.contains(topic) || (topic.hasPrefix(bundleID + ".push-type.") && topics.contains(bundleID))
    }

    private static func uid(of certificate: OpaquePointer) -> String? {
        guard let name = X509_get_subject_name(certificate) else { return nil }
        let index = X509_NAME_get_index_by_NID(name, NID_userId, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index),
              let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
        return text(of: data)
    }

    private static func text(of string: UnsafeMutablePointer<ASN1_STRING>) -> String? {
        var output: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&output, string)
        guard length >= 0, let output else { return nil }
        defer { CRYPTO_free(output, nil, 0) }
        return String(decoding: UnsafeBufferPointer(start: output, count: Int(length)), as: UTF8.self)
    }

    /// The UTF8String elements of the extension's outer SEQUENCE; the kinds' SEQUENCEs skipped.
    private static func extensionTopics(of certificate: OpaquePointer) -> [String] {
        guard let oid = OBJ_txt2obj(topicsExtensionOID, 1) else { return [] }
        defer { ASN1_OBJECT_free(oid) }
        let index = X509_get_ext_by_OBJ(certificate, oid, -1)
        guard index >= 0, let found = X509_get_ext(certificate, index), let data = X509_EXTENSION_get_data(found),
              let bytes = ASN1_STRING_get0_data(data) else { return [] }
        let total = Int(ASN1_STRING_length(data))
        var cursor: UnsafePointer<UInt8>? = bytes
        var length = 0
        var tag: Int32 = 0
        var tagClass: Int32 = 0
        // The outer SEQUENCE: step into it.
        let outer = ASN1_get_object(&cursor, &length, &tag, &tagClass, total)
        guard outer & 0x80 == 0, tag == V_ASN1_SEQUENCE, let start = cursor else { return [] }
        let end = start + min(length, total - (start - bytes))
        var topics: [String] = []
        while let position = cursor, position < end {
            let flags = ASN1_get_object(&cursor, &length, &tag, &tagClass, end - position)
            guard flags & 0x80 == 0, let content = cursor, length <= end - content else { break }
            if tag == V_ASN1_UTF8STRING, flags & V_ASN1_CONSTRUCTED == 0 {
                topics.append(String(decoding: UnsafeBufferPointer(start: content, count: length), as: UTF8.self))
            }
            // Over the element's content, whatever it is.
            cursor = content + length
        }
        return topics
    }
}
