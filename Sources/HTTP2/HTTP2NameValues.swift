import CNghttp2

/// Header fields laid out as `nghttp2_nv`s for one submit call: the fields' bytes and the
/// entries pointing into them live in temporary (stack) storage, copied once, no allocation per
/// field. nghttp2 copies what it needs during the submit. Shared by the client and the server.
enum HTTP2NameValues {
    /// `unindexed`: names whose values HPACK must never add to the dynamic tables (a value
    /// unique to each request would only push out the entries that repeat).
    static func with<R>(
        _ fields: [(name: String, value: String)], unindexed: [String] = [], _ body: (UnsafeBufferPointer<nghttp2_nv>) -> R
    ) -> R {
        var byteCount = 0
        for field in fields { byteCount += field.name.utf8.count + field.value.utf8.count }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, byteCount)) { bytes in
            withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: max(1, fields.count)) { nameValues in
                var cursor = bytes.baseAddress!
                for (index, field) in fields.enumerated() {
                    let name = cursor
                    cursor = copyUTF8(of: field.name, to: cursor)
                    let value = cursor
                    cursor = copyUTF8(of: field.value, to: cursor)
                    let flag = unindexed.contains(field.name) ? NGHTTP2_NV_FLAG_NO_INDEX : NGHTTP2_NV_FLAG_NONE
                    nameValues.initializeElement(at: index, to: nghttp2_nv(
                        name: name, value: value, namelen: value - name, valuelen: cursor - value, flags: UInt8(flag.rawValue)))
                }
                return body(UnsafeBufferPointer(rebasing: nameValues[..<fields.count]))
            }
        }
    }

    /// Copies the text's UTF-8 to `destination`; returns the byte after it.
    private static func copyUTF8(of text: String, to destination: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var text = text
        return text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else { return destination }
            destination.update(from: base, count: utf8.count)
            return destination + utf8.count
        }
    }
}
