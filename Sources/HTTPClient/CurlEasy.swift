import CCurl

/// libcurl is initialised once per process, before the first handle (curl_global_init is not
/// safe to race).
private let curlGlobalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

/// One easy handle and what it points at (header lists, error buffer): freed together in
/// `deinit`, after the handle. Used by one thread at a time, handed between threads through the
/// client's locks (a transfer's hand-over, the pool of idle handles).
final class CurlEasy: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    private var lists: [CurlStringList] = []
    let errorBuffer: UnsafeMutablePointer<CChar>

    init() throws(HTTPClientError) {
        guard curlGlobalInit == CURLE_OK, let handle = curl_easy_init() else {
            throw .invalidRequest("curl_easy_init failed")
        }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        curl_easy_cleanup(handle)
        lists = []
        errorBuffer.deallocate()
    }

    /// Ready for another transfer, as if new: every option back to its default (a handle of
    /// the pool keeps its buffers, which a new one would allocate again).
    func reset() {
        curl_easy_reset(handle)
        lists = []
        errorBuffer[0] = 0
    }

    func set(_ option: CURLoption, _ value: Int) throws(HTTPClientError) {
        try check(openpush_curl_easy_setopt_long(handle, option, value), option)
    }

    func set(_ option: CURLoption, _ value: String) throws(HTTPClientError) {
        try check(value.withCString { openpush_curl_easy_setopt_string(handle, option, $0) }, option)
    }

    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(HTTPClientError) {
        try check(openpush_curl_easy_setopt_pointer(handle, option, pointer), option)
    }

    /// A string list option (headers, resolve entries); the list lives as long as the handle.
    func set(_ option: CURLoption, list values: [String]) throws(HTTPClientError) {
        guard !values.isEmpty else { return }
        try set(option, list: try CurlStringList(values))
    }

    /// A string list option with a list made before (several handles may share one).
    func set(_ option: CURLoption, list: CurlStringList) throws(HTTPClientError) {
        lists.append(list)
        try check(openpush_curl_easy_setopt_slist(handle, option, list.pointer), option)
    }

    /// The body, copied by libcurl (`CURLOPT_COPYPOSTFIELDS`), so it need not outlive this call.
    func setBody(_ body: [UInt8]) throws(HTTPClientError) {
        try check(openpush_curl_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)),
                  CURLOPT_POSTFIELDSIZE_LARGE)
        // An empty body still needs a valid pointer: libcurl reads zero bytes from it.
        let code = body.isEmpty
            ? "".withCString { openpush_curl_easy_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0)) }
            : body.withUnsafeBytes {
                openpush_curl_easy_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress!))
            }
        try check(code, CURLOPT_COPYPOSTFIELDS)
    }

    func setWriteFunction(_ function: openpush_curl_write_callback) throws(HTTPClientError) {
        try check(openpush_curl_easy_setopt_write_function(handle, function), CURLOPT_WRITEFUNCTION)
    }

    func setOpenSocketFunction(_ function: openpush_curl_opensocket_callback) throws(HTTPClientError) {
        try check(openpush_curl_easy_setopt_opensocket_function(handle, function), CURLOPT_OPENSOCKETFUNCTION)
    }

    var responseCode: Int {
        var code = 0
        _ = openpush_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// The last response's values of `names` that it had, by lower-cased name.
    func headers(_ names: [String]) -> [String: String] {
        var found: [String: String] = [:]
        for name in names {
            if let value = openpush_curl_response_header(handle, name) { found[name.lowercased()] = String(cString: value) }
        }
        return found
    }

    /// libcurl's detailed message for the last failure, or its generic text for `code`.
    func message(for code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(HTTPClientError) {
        guard code == CURLE_OK else {
            throw .invalidRequest("option \(option.rawValue): \(String(cString: curl_easy_strerror(code)))")
        }
    }
}

/// A libcurl string list (`curl_slist`), freed when the last handle using it is.
final class CurlStringList: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<curl_slist>

    init(_ values: [String]) throws(HTTPClientError) {
        var list: UnsafeMutablePointer<curl_slist>?
        for value in values {
            guard let appended = curl_slist_append(list, value) else {
                if let list { curl_slist_free_all(list) }
                throw .invalidRequest("curl_slist_append failed")
            }
            list = appended
        }
        guard let list else { throw .invalidRequest("an empty string list") }
        pointer = list
    }

    /// The header list of `request`, with no `Expect: 100-continue` round trip before a body.
    convenience init(headerListOf request: HTTPClientRequest) throws(HTTPClientError) {
        try self.init(request.headers.map { "\($0.name): \($0.value)" } + ["Expect:"])
    }

    deinit {
        curl_slist_free_all(pointer)
    }
}

/// One multi handle, driven by the client's thread only (`wakeup` is the one call libcurl
/// allows from any thread).
final class CurlMulti: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    init() throws(HTTPClientError) {
        guard curlGlobalInit == CURLE_OK, let handle = curl_multi_init() else {
            throw .invalidRequest("curl_multi_init failed")
        }
        self.handle = handle
    }

    deinit {
        curl_multi_cleanup(handle)
    }

    func set(_ option: CURLMoption, _ value: Int) throws(HTTPClientError) {
        let code = openpush_curl_multi_setopt_long(handle, option, value)
        guard code == CURLM_OK else {
            throw .invalidRequest("multi option \(option.rawValue): \(String(cString: curl_multi_strerror(code)))")
        }
    }

    func wakeup() {
        _ = curl_multi_wakeup(handle)
    }
}
