/// The SETTINGS an endpoint announces, plus its connection-level receive window.
public struct HTTP2Settings: Sendable, Equatable {
    /// SETTINGS_HEADER_TABLE_SIZE; nil leaves the protocol default (4096).
    public var headerTableSize: UInt32?
    /// SETTINGS_ENABLE_PUSH; only a client sends it.
    public var enablePush: Bool?
    /// SETTINGS_MAX_CONCURRENT_STREAMS the peer may open towards us; nil means unlimited.
    public var maxConcurrentStreams: UInt32?
    /// SETTINGS_INITIAL_WINDOW_SIZE: each stream's receive window.
    public var initialWindowSize: UInt32
    /// The connection's receive window, raised from 65,535 with a WINDOW_UPDATE on stream 0.
    public var connectionWindowSize: UInt32
    /// SETTINGS_MAX_FRAME_SIZE we accept; nil leaves 16,384.
    public var maxFrameSize: UInt32?
    /// SETTINGS_MAX_HEADER_LIST_SIZE; nil means unlimited.
    public var maxHeaderListSize: UInt32?

    public init(
        headerTableSize: UInt32? = nil, enablePush: Bool? = nil, maxConcurrentStreams: UInt32? = nil,
        initialWindowSize: UInt32 = 65_535, connectionWindowSize: UInt32 = 65_535,
        maxFrameSize: UInt32? = nil, maxHeaderListSize: UInt32? = nil
    ) {
        self.headerTableSize = headerTableSize
        self.enablePush = enablePush
        self.maxConcurrentStreams = maxConcurrentStreams
        self.initialWindowSize = initialWindowSize
        self.connectionWindowSize = connectionWindowSize
        self.maxFrameSize = maxFrameSize
        self.maxHeaderListSize = maxHeaderListSize
    }

    /// What Chrome announces: 64 KiB HPACK table, no push, 6 MiB stream windows, a 15 MiB
    /// connection window, 256 KiB header lists, no stream limit.
    public static let chromeClient = HTTP2Settings(
        headerTableSize: 65_536, enablePush: false, initialWindowSize: 6 * 1024 * 1024,
        connectionWindowSize: 15 * 1024 * 1024, maxHeaderListSize: 262_144)

    /// A server like nginx's defaults: 100 concurrent streams, protocol-default windows.
    public static let defaultServer = HTTP2Settings(maxConcurrentStreams: 100)
}

/// An RFC 7540 priority: the parent stream, a weight 1...256 and exclusivity
/// (Chrome builds an exclusive chain by resource priority).
public struct HTTP2Priority: Sendable, Equatable {
    public var dependsOn: Int32
    public var weight: Int
    public var exclusive: Bool

    public init(dependsOn: Int32 = 0, weight: Int = 16, exclusive: Bool = false) {
        self.dependsOn = dependsOn
        self.weight = min(max(weight, 1), 256)
        self.exclusive = exclusive
    }
}

/// An HTTP/2 error code (RFC 9113 §7), as carried by RST_STREAM and GOAWAY.
public struct HTTP2ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let noError = HTTP2ErrorCode(rawValue: 0x0)
    public static let protocolError = HTTP2ErrorCode(rawValue: 0x1)
    public static let internalError = HTTP2ErrorCode(rawValue: 0x2)
    public static let flowControlError = HTTP2ErrorCode(rawValue: 0x3)
    public static let settingsTimeout = HTTP2ErrorCode(rawValue: 0x4)
    public static let streamClosed = HTTP2ErrorCode(rawValue: 0x5)
    public static let frameSizeError = HTTP2ErrorCode(rawValue: 0x6)
    public static let refusedStream = HTTP2ErrorCode(rawValue: 0x7)
    public static let cancel = HTTP2ErrorCode(rawValue: 0x8)
    public static let compressionError = HTTP2ErrorCode(rawValue: 0x9)
    public static let connectError = HTTP2ErrorCode(rawValue: 0xA)
    public static let enhanceYourCalm = HTTP2ErrorCode(rawValue: 0xB)
    public static let inadequateSecurity = HTTP2ErrorCode(rawValue: 0xC)
    public static let http11Required = HTTP2ErrorCode(rawValue: 0xD)

    public var description: String {
        let names = [
            "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
            "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR",
            "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
        ]
        return rawValue < names.count ? names[Int(rawValue)] : "0x" + String(rawValue, radix: 16)
    }
}

/// What an `HTTP2Connection` learned from the peer, or from sending.
public enum HTTP2Event: Sendable, Equatable {
    /// The peer's SETTINGS arrived (the first one completes its preface).
    case settingsReceived
    /// The peer acknowledged our SETTINGS.
    case settingsAcknowledged
    /// Server: a request head. `endStream` means no request body follows.
    case request(stream: Int32, head: HTTPRequestHead, endStream: Bool)
    /// Client: the final response head (interim 1xx heads are skipped).
    case response(stream: Int32, status: Int, headers: HTTPHeaders, endStream: Bool)
    /// `count` body bytes arrived on `stream` (counted, not kept); `endStream` ends the body.
    case data(stream: Int32, count: Int, endStream: Bool)
    /// Trailer fields; they end the stream's body.
    case trailers(stream: Int32, headers: HTTPHeaders)
    /// The stream is closed: completed (`.noError`), reset by either side, or refused.
    /// May arrive for a stream never reported (a request nghttp2 rejected as malformed).
    case streamClosed(stream: Int32, errorCode: HTTP2ErrorCode)
    /// The peer sent GOAWAY: streams above `lastStream` were not and will not be processed.
    case goAway(lastStream: Int32, errorCode: HTTP2ErrorCode, debugData: String)
    /// The library ended the connection because the peer broke the protocol: a GOAWAY with
    /// `errorCode` and `reason` was sent. Flush it, then close.
    case connectionError(errorCode: HTTP2ErrorCode, reason: String)
}

/// An nghttp2 failure, with the library's own text.
public enum HTTP2Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// `call` returned `code`; `message` is `nghttp2_strerror(code)`.
    case library(call: String, code: Int32, message: String)
    /// `submitResponse` or `submitReset` named a stream that is not open (the client may
    /// have reset it while the server waited). Normal in a race; the caller drops the work.
    case streamNotOpen(Int32)

    public var description: String {
        switch self {
        case let .library(call, code, message): "\(call): \(message) (nghttp2 error \(code))"
        case let .streamNotOpen(stream): "HTTP/2 stream \(stream) is not open"
        }
    }
}

/// What a server lets one HTTP/2 peer make it do, against the known floods: rapid reset
/// (CVE-2023-44487), CONTINUATION floods (CVE-2024-27316), HPACK header bombs, SETTINGS and PING
/// floods. A peer over a rate limit gets GOAWAY ENHANCE_YOUR_CALM; over the header list limit, its
/// stream is reset. The defaults are far above what browsers and h2load send.
public struct HTTP2Limits: Sendable, Equatable {
    /// Decoded header list of one request (names + values + 32 bytes each, as RFC 9113 counts).
    public var maxHeaderListSize: Int
    /// CONTINUATION frames after one HEADERS (nghttp2's `max_continuations`).
    public var maxContinuations: Int
    /// RST_STREAM frames from the peer in one second.
    public var maxResetsPerSecond: Int
    /// SETTINGS and PING frames from the peer in one second (below nghttp2's own limit of 1000
    /// unsent ACKs, so that a flood read in one go gets GOAWAY ENHANCE_YOUR_CALM, not just a close).
    public var maxControlFramesPerSecond: Int

    public init(
        maxHeaderListSize: Int = 65_536, maxContinuations: Int = 8, maxResetsPerSecond: Int = 200,
        maxControlFramesPerSecond: Int = 500
    ) {
        self.maxHeaderListSize = maxHeaderListSize
        self.maxContinuations = maxContinuations
        self.maxResetsPerSecond = maxResetsPerSecond
        self.maxControlFramesPerSecond = maxControlFramesPerSecond
    }
}
