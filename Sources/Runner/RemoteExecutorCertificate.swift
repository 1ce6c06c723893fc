#if canImport(Glibc)
import Glibc
#endif
import TLS

/// Before the first run of `run --server`: one TLS handshake per origin name at the endpoint, the
/// name as SNI, the certificate verified for that name against `--ca` (or the trusted roots given).
/// A failure stops the plan (exit 2 at the caller) naming the name and why.
public enum RemoteCertificateCheck {
    public struct Failure: Error, CustomStringConvertible {
        public var hostName: String
        public var endpoint: String
        public var reason: String
        public var description: String { "certificate for '\(hostName)' at \(endpoint) does not verify: \(reason)" }
    }

    public static func verify(hostName: String, at endpoint: RemoteEndpoint, context: TLSClientContext, timeoutMs: Int32 = 5000) throws {
        let fail = { (why: String) in Failure(hostName: hostName, endpoint: endpoint.description, reason: why) }
        let fd = try connectBlocking(endpoint)
        defer { close(fd) }
        let tls: TLSConnection
        do { tls = try TLSConnection(client: context, serverName: hostName) } catch { throw fail("\(error)") }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let done: Bool
            do { done = try tls.handshake() } catch { throw fail("\(error)") }
            while tls.hasPendingCiphertext {
                let out = tls.takeCiphertext(max: 16_384)
                guard out.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == out.count else {
                    throw fail("send: \(String(cString: strerror(errno)))")
                }
            }
            if done { return }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, timeoutMs) == 1 else { throw fail("no handshake reply within \(timeoutMs) ms") }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw fail(n == 0 ? "connection closed during the handshake" : String(cString: strerror(errno))) }
            buffer.withUnsafeBytes { tls.receiveCiphertext(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
    }

    static func connectBlocking(_ endpoint: RemoteEndpoint) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard rc == 0, let ai = list else { throw RemoteEndpointError.resolve(endpoint.description, String(cString: gai_strerror(rc))) }
        defer { freeaddrinfo(list) }
        let fd = socket(ai.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0, connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 else {
            let why = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            throw RemoteEndpointError.connect(endpoint.description, why)
        }
        return fd
    }
}
