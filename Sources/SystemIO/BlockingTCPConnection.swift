#if canImport(Glibc)
    import Glibc
#endif

/// A socket address of either family, as getaddrinfo(3) returns it (the kernel's `sockaddr` bytes).
/// The event loop's `Endpoint` is IPv4 only; this type serves the exchanges outside it, which may
/// reach an IPv6 host.
public struct SocketAddress: Sendable, CustomStringConvertible {
    let family: Int32
    let bytes: [UInt8]

    /// The IPv4 address in host byte order, nil for IPv6.
    public var ipv4: UInt32? {
        guard family == AF_INET, bytes.count >= MemoryLayout<sockaddr_in>.size else { return nil }
        return bytes.withUnsafeBytes { UInt32(bigEndian: $0.loadUnaligned(as: sockaddr_in.self).sin_addr.s_addr) }
    }

    /// The numeric host (`127.0.0.1`, `::1`), as inet_ntop(3) writes it.
    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written: UnsafePointer<CChar>? = bytes.withUnsafeBytes { raw in
            switch family {
            case AF_INET:
                var a = raw.loadUnaligned(as: sockaddr_in.self).sin_addr
                return inet_ntop(family, &a, &text, socklen_t(text.count))
            case AF_INET6:
                var a = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
                return inet_ntop(family, &a, &text, socklen_t(text.count))
            default:
                return nil
            }
        }
        guard written != nil else { return "address family \(family)" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A host name that getaddrinfo(3) could not resolve, with the resolver's text (gai_strerror).
public struct NameResolutionError: Error, CustomStringConvertible, Sendable {
    public var host: String
    public var reason: String
    public var description: String { "cannot resolve \(host): \(reason)" }
}

/// Name lookup for the connections made outside the emulated networks.
public enum NameResolution {
    /// The addresses of `host` for a TCP connection to `port`, in the resolver's order (IPv6 and
    /// IPv4, or IPv4 only). Empty when the resolver answers with no address of that family.
    public static func streamAddresses(host: String, port: UInt16?, ipv4Only: Bool = false) throws -> [SocketAddress] {
        let addresses = try Sys.getaddrinfo(host, port.map { String($0) }, ipv4Only: ipv4Only)
        return addresses.filter { $0.family == AF_INET || (!ipv4Only && $0.family == AF_INET6) }
    }
}

/// A blocking TCP connection for one short exchange outside the event loop (`report --push`):
/// every connect, send and receive waits at most the timeout. Closed when released.
public final class BlockingTCPConnection {
    private let fd: FileDescriptor

    /// Connects to the first of `addresses` that accepts, in order; throws the last `SystemError`
    /// (naming connect and the address) when none does.
    public init(connectingTo addresses: [SocketAddress], timeoutSeconds: Int) throws {
        var lastError: Error = SystemError(call: "connect (no address)", errno: EADDRNOTAVAIL)
        for address in addresses {
            do {
                let fd = try Sys.socketBlocking(family: address.family, timeoutSeconds: timeoutSeconds)
                do {
                    try Sys.connectBlocking(fd, address)
                } catch {
                    Sys.close(fd)
                    throw error
                }
                self.fd = fd
                return
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    deinit { Sys.close(fd) }

    /// Sends all of `bytes`; a send that waits past the timeout throws EAGAIN's error.
    public func sendAll(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { all in
            var sent = 0
            while sent < all.count {
                let rest = UnsafeRawBufferPointer(rebasing: all[sent...])
                guard let n = try Sys.send(fd, rest) else { throw SystemError(call: "send", errno: EAGAIN) }
                sent += n
            }
        }
    }

    /// Receives what has arrived, at most `buffer.count` bytes: 0 once the peer closed; a receive
    /// that waits past the timeout throws EAGAIN's error.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let n = try Sys.recv(fd, buffer) else { throw SystemError(call: "recv", errno: EAGAIN) }
        return n
    }
}
