/// Text that goes out as an HTTP/2 header value to APNs (`apns-collapse-id`, `apns-topic`, the
/// device path). HTTP/2 forbids NUL, CR and LF in a value, and a peer that meets one — or any
/// other control character — may reset the stream or the whole connection, which the pushes
/// of every app on it share. So only printable ASCII (space to `~`) is accepted, both where a
/// request body is read and again in the APNs client, just before the header is encoded.
package enum HeaderText {
    /// APNs' ceiling for `apns-collapse-id`.
    package static let maximumCollapseIDBytes = 64

    /// Every byte is printable ASCII: 0x20 (space) to 0x7E (`~`).
    package static func isPrintableASCII(_ text: String) -> Bool {
        every(byteOf: text, isPrintable)
    }

    /// Printable ASCII without spaces: for a path and what goes in one (a bundle id).
    package static func isVisibleASCII(_ text: String) -> Bool {
        every(byteOf: text, isVisible)
    }

    /// Whether `value` can go on the wire as it is: printable ASCII, and no space at either end
    /// (RFC 9113 §8.2.1 forbids one there, and a receiver treats the field as malformed).
    package static func isSendable(_ value: String) -> Bool {
        value.utf8.first != 0x20 && value.utf8.last != 0x20 && isPrintableASCII(value)
    }

    /// Every push passes here: the bytes are scanned in place when the string holds them so.
    private static func every(byteOf text: String, _ test: (UInt8) -> Bool) -> Bool {
        let bytes = text.utf8
        return bytes.withContiguousStorageIfAvailable { $0.allSatisfy(test) } ?? bytes.allSatisfy(test)
    }

    /// The value without the spaces at its ends, which are no part of a field value (RFC 9110
    /// §5.5); unchanged, without copying, when there are none.
    package static func trimmingSpaces(_ value: String) -> String {
        let bytes = value.utf8
        guard bytes.first == 0x20 || bytes.last == 0x20 else { return value }
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x20 { start = bytes.index(after: start) }
        while end > start, bytes[bytes.index(before: end)] == 0x20 { end = bytes.index(before: end) }
        return String(value[start..<end])
    }

    @inline(__always)
    static func isPrintable(_ byte: UInt8) -> Bool { byte >= 0x20 && byte <= 0x7E }

    @inline(__always)
    static func isVisible(_ byte: UInt8) -> Bool { byte > 0x20 && byte <= 0x7E }
}
