import HTTPCodec
import XCTest

// Only the public API is used, so `swift test -c release` builds these tests too.

extension HTTP1RequestParser {
    mutating func feed(_ bytes: [UInt8]) -> [HTTP1ServerEvent] {
        bytes.withUnsafeBytes { feed($0) }
    }

    mutating func feed(_ text: String) -> [HTTP1ServerEvent] {
        feed(Array(text.utf8))
    }
}

extension HTTP1ResponseParser {
    mutating func feed(_ bytes: [UInt8]) throws -> [HTTP1ClientEvent] {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(HTTP1ParseError) in try feed(buffer) }
        }
        return try result.get()
    }

    mutating func feed(_ text: String) throws -> [HTTP1ClientEvent] {
        try feed(Array(text.utf8))
    }
}

/// Adjacent body events merged, so that event lists from differently split input compare.
func mergingBodies(_ events: [HTTP1ServerEvent]) -> [HTTP1ServerEvent] {
    var out: [HTTP1ServerEvent] = []
    for event in events {
        if case .body(let n) = event, case .body(let m)? = out.last {
            out[out.count - 1] = .body(count: n + m)
        } else if case .body(0) = event {
            continue
        } else {
            out.append(event)
        }
    }
    return out
}

func mergingBodies(_ events: [HTTP1ClientEvent]) -> [HTTP1ClientEvent] {
    var out: [HTTP1ClientEvent] = []
    for event in events {
        if case .body(let n) = event, case .body(let m)? = out.last {
            out[out.count - 1] = .body(count: n + m)
        } else if case .body(0) = event {
            continue
        } else {
            out.append(event)
        }
    }
    return out
}

/// A client and a server connection joined back to back in memory.
final class HTTP2Pair {
    let client: HTTP2Connection
    let server: HTTP2Connection
    /// Bytes handed over per `takeOutbound` call: a socket-sized write.
    var chunk = 64 * 1024
    private(set) var bytesToClient = 0

    init(client: HTTP2Settings? = nil, server: HTTP2Settings? = nil) throws {
        self.client = try HTTP2Connection(role: .client, settings: client)
        self.server = try HTTP2Connection(role: .server, settings: server)
    }

    /// Moves bytes both ways once. Returns each side's events and whether anything moved.
    func step() throws -> (client: [HTTP2Event], server: [HTTP2Event], moved: Bool) {
        var serverEvents: [HTTP2Event] = []
        var clientEvents: [HTTP2Event] = []
        let toServer = try client.takeOutbound(max: chunk)
        clientEvents += client.takeEvents()
        if !toServer.isEmpty { serverEvents += try server.receive(toServer) }
        let toClient = try server.takeOutbound(max: chunk)
        serverEvents += server.takeEvents()
        if !toClient.isEmpty { clientEvents += try client.receive(toClient) }
        bytesToClient += toClient.count
        return (clientEvents, serverEvents, !toServer.isEmpty || !toClient.isEmpty)
    }

    /// Steps until nothing moves, handing every event to the handlers.
    func run(
        maxSteps: Int = 1_000_000, client onClient: (HTTP2Event) throws -> Void = { _ in },
        server onServer: (HTTP2Event) throws -> Void = { _ in }
    ) throws {
        for _ in 0..<maxSteps {
            let (clientEvents, serverEvents, moved) = try step()
            for event in serverEvents { try onServer(event) }
            for event in clientEvents { try onClient(event) }
            if !moved && !client.wantsWrite && !server.wantsWrite { return }
        }
        XCTFail("pump did not settle in \(maxSteps) steps")
    }
}

/// What a client saw of each stream.
struct StreamLog {
    var status: Int?
    var contentLength: Int64?
    var bytes = 0
    var ended = false
    var closedWith: HTTP2ErrorCode?

    static func record(_ event: HTTP2Event, into logs: inout [Int32: StreamLog]) {
        switch event {
        case let .response(stream, status, headers, endStream):
            logs[stream, default: StreamLog()].status = status
            logs[stream]!.contentLength = headers["content-length"].flatMap { Int64($0) }
            if endStream { logs[stream]!.ended = true }
        case let .data(stream, count, endStream):
            logs[stream, default: StreamLog()].bytes += count
            if endStream { logs[stream]!.ended = true }
        case let .streamClosed(stream, code):
            logs[stream, default: StreamLog()].closedWith = code
        default:
            break
        }
    }
}
