/// What a batch of received bytes meant to the client session.
package enum HTTP2Event: Sendable, Equatable {
    /// A stream closed after its complete response (final status, headers, body to END_STREAM).
    case response(streamID: Int32, status: Int, headers: [HTTP2Header], body: [UInt8])
    /// A stream closed without a complete response: RST_STREAM from the peer, or refused
    /// because it lay above a GOAWAY's last stream id (then `errorCode` is REFUSED_STREAM, 0x7).
    case streamReset(streamID: Int32, errorCode: UInt32)
    /// The peer will process no stream above `lastStreamID`; open no new streams.
    case goAway(lastStreamID: Int32, errorCode: UInt32)
    /// The peer sent SETTINGS (including its first); the value is its current limit.
    case settingsChanged(maxConcurrentStreams: UInt32)
    /// The peer acknowledged a PING.
    case pingAck
}
