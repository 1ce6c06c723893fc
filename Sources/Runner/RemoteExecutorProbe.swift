#if canImport(Glibc)
import Glibc
#endif
import BenchCore

/// `--server HOST:PORT` of `netbench run`: where every origin of the scenario is reached.
public struct RemoteEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) { self.host = host; self.port = port }

    /// Parses `HOST:PORT` or `[IPv6]:PORT`; the error names the value and what is wrong.
    public init(parsing text: String) throws {
        var hostPart: Substring, portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw RemoteEndpointError.invalid(text, "expected [IPv6]:PORT")
            }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw RemoteEndpointError.invalid(text, "expected HOST:PORT") }
            hostPart = text[..<colon]; portPart = text[text.index(after: colon)...]
            if hostPart.contains(":") { throw RemoteEndpointError.invalid(text, "an IPv6 address needs brackets: [ADDR]:PORT") }
        }
        guard !hostPart.isEmpty else { throw RemoteEndpointError.invalid(text, "empty host") }
        guard let p = UInt16(portPart), p > 0 else { throw RemoteEndpointError.invalid(text, "port '\(portPart)' is not 1…65535") }
        host = String(hostPart); port = p
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

public enum RemoteEndpointError: Error, CustomStringConvertible, Equatable {
    case invalid(String, String)
    case resolve(String, String)
    case connect(String, String)

    public var description: String {
        switch self {
        case .invalid(let v, let why): return "--server '\(v)': \(why)"
        case .resolve(let v, let why): return "--server \(v): cannot resolve: \(why)"
        case .connect(let v, let why): return "--server \(v): cannot connect: \(why)"
        }
    }
}

/// The RTT of a `--server` run ("profile": "network"): the minimum time of several TCP connects
/// (SYN → SYN-ACK), each socket closed at once. Nothing is sent over the connections.
public enum RemoteRTTProbe {
    /// Returns the minimum connect time in nanoseconds over `samples` connects; throws if any connect fails.
    public static func measure(_ endpoint: RemoteEndpoint, samples: Int = 5, timeoutMs: Int32 = 3000) throws -> Nanoseconds {
        precondition(samples > 0)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard rc == 0, let first = list else {
            throw RemoteEndpointError.resolve(endpoint.description, String(cString: gai_strerror(rc)))
        }
        defer { freeaddrinfo(list) }
        var best = Nanoseconds.max
        for _ in 0..<samples {
            best = min(best, try connectOnce(first, endpoint: endpoint, timeoutMs: timeoutMs))
        }
        return best
    }

    private static func connectOnce(_ ai: UnsafeMutablePointer<addrinfo>, endpoint: RemoteEndpoint, timeoutMs: Int32) throws -> Nanoseconds {
        let fd = socket(ai.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw RemoteEndpointError.connect(endpoint.description, String(cString: strerror(errno))) }
        defer { close(fd) }
        let start = Instant.now()
        if connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else { throw RemoteEndpointError.connect(endpoint.description, String(cString: strerror(errno))) }
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let n = poll(&pfd, 1, timeoutMs)
            guard n == 1 else { throw RemoteEndpointError.connect(endpoint.description, n == 0 ? "timed out after \(timeoutMs) ms" : String(cString: strerror(errno))) }
            var err: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
            guard err == 0 else { throw RemoteEndpointError.connect(endpoint.description, String(cString: strerror(err))) }
        }
        return Instant.now().since(start)
    }
}
