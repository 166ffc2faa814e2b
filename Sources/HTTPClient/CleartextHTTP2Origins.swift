import CCurl

/// HTTP/2 with prior knowledge on `http://` (h2c) over a libcurl older than 8.0: a transfer that
/// asks for prior knowledge and reuses an h2c connection fails ("Error in the HTTP2 framing
/// layer": libcurl switches the connection to HTTP/2 a second time; fixed in 8.0.0). So on
/// such a libcurl, h2c transfers ask for plain HTTP/2, which reuses an h2c connection as it is
/// but would open a new one with an HTTP/1.1 upgrade: they are refused a new socket instead,
/// and one of them at a time per origin is sent again to open a new connection with prior
/// knowledge, while the others wait for it and then reuse it. The driving thread's only.
struct CleartextHTTP2Origins {
    private struct Origin {
        var held: [Transfer] = []
    }

    /// Whether this process's libcurl needs it.
    static let needed = openpush_curl_version_num() < 0x08_00_00

    /// `http://host:port` of a URL, lower-cased: transfers to it share connections.
    static func origin(of url: String) -> String {
        let lowered = url.lowercased()
        let rest = lowered.dropFirst("http://".count)
        return "http://" + rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    }

    /// Origins with a transfer opening a connection now, and the transfers waiting for it.
    private var opening: [String: Origin] = [:]

    /// A transfer of an h2c origin is done: those to add to the multi handle again (it, to open
    /// a connection, or the ones that waited for the connection it opened).
    mutating func done(_ transfer: Transfer, _ code: CURLcode) -> [Transfer] {
        guard let origin = transfer.cleartextH2Origin else {
            transfer.finish(code)
            return []
        }
        if transfer.wantedConnection {
            if opening[origin] != nil {
                opening[origin]?.held.append(transfer)
                return []
            }
            do {
                try transfer.openConnection()
            } catch {
                transfer.complete(.failure(error))
                return []
            }
            opening[origin] = Origin()
            return [transfer]
        }
        guard transfer.opensConnection, let waiting = opening.removeValue(forKey: origin)?.held else {
            transfer.finish(code)
            return []
        }
        let result = transfer.result(code)
        transfer.complete(result)
        if case .failure(let error) = result {
            // No connection to reuse: those that waited for it fail alike.
            for held in waiting { held.complete(.failure(error)) }
            return []
        }
        for held in waiting { held.wantedConnection = false }
        return waiting
    }
}
