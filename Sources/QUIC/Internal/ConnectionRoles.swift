import BenchCore
import Glibc

/// The side a `QUICConnection` plays, with what only that side keeps (ngtcp2's own examples keep
/// client and server in separate programs; here the shared engine holds one of these).
enum ConnectionRole {
    case client(ClientRole)
    case server(ServerRole)
}

/// What only a client keeps: the name it verifies, its 0-RTT attempt, the ticket it was given, and
/// the requests waiting for a stream.
final class ClientRole {
    let serverName: String
    /// The name handed to GnuTLS for certificate verification (it keeps the pointer).
    var verifiedName: UnsafeMutablePointer<CChar>?
    var earlyDataAttempted = false
    var earlyDataAccepted = false
    /// Available after the server's NewSessionTicket.
    var resumption: QUICResumptionState?
    var requests = RequestQueue()

    init(serverName: String) { self.serverName = serverName }

    deinit { free(verifiedName) }
}

/// Requests submitted but not yet put on a stream (in stream-ID order), and those sent as 0-RTT,
/// which are queued again if the server rejects early data.
struct RequestQueue {
    var pending: [PendingRequest] = []
    var head = 0
    var early: [PendingRequest] = []
    var nextStreamID: Int64 = 0

    mutating func enqueue(fields: [(String, String)], bodyLength: Int64, prefix: [UInt8] = []) -> Int64 {
        let id = nextStreamID
        nextStreamID += 4
        pending.append(PendingRequest(streamID: id, fields: fields, bodyLength: bodyLength, prefix: prefix))
        return id
    }

    var next: PendingRequest? { head < pending.count ? pending[head] : nil }

    mutating func advance() {
        head += 1
        if head == pending.count {
            pending.removeAll(keepingCapacity: true)
            head = 0
        }
    }

    /// Early data was rejected: the 0-RTT requests go first again, with the IDs they were promised.
    mutating func requeueEarly() {
        pending = early + pending[head...]
        head = 0
        early.removeAll()
    }
}

/// What only a server connection keeps: the hooks its `HTTP3Server` routes by, and the request
/// bodies being received.
final class ServerRole {
    var onNewConnectionID: ((ConnectionIDKey) -> Void)?
    var onRetireConnectionID: ((ConnectionIDKey) -> Void)?
    /// Request body bytes received so far, per stream (counted, never kept).
    var requestBodyBytes: [Int64: Int64] = [:]
    /// Sees each request body chunk once, in order (for digests in tests).
    var onRequestBody: ((Int64, UnsafeRawBufferPointer) -> Void)?
    /// Sees every stream byte the client sends, before HTTP/3 reads it.
    var onStreamData: ((Int64, UnsafeRawBufferPointer, Bool) -> Void)?
}

extension QUICConnection {
    /// The client part; only client connections call this.
    var client: ClientRole {
        guard case .client(let c) = role else { preconditionFailure("client state asked of a server connection") }
        return c
    }

    /// The server part, nil on a client.
    var server: ServerRole? {
        if case .server(let s) = role { return s }
        return nil
    }
}
