import Foundation
import BenchCore
#if canImport(Glibc)
import Glibc
#endif

/// `netbench report --push URL`: one HTTP/1.1 PUT of the Prometheus exposition to a Pushgateway,
/// over a plain TCP socket (http:// only). PUT replaces every metric of the group, so the gateway
/// holds the latest run of each suite and label.
enum MetricsPush {
    struct Target: Equatable {
        var host: String
        var port: UInt16
        /// The URL's path without a trailing slash ("" for none), put before the group's path.
        var prefix: String
    }

    /// `http://HOST[:PORT][/PREFIX]`; nil for anything else (the command's usage error).
    static func parse(_ url: String) -> Target? {
        guard url.hasPrefix("http://") else { return nil }
        var rest = Substring(url.dropFirst("http://".count))
        var prefix = ""
        if let slash = rest.firstIndex(of: "/") { prefix = String(rest[slash...]); rest = rest[..<slash] }
        while prefix.hasSuffix("/") { prefix.removeLast() }
        var host = String(rest), port: UInt16 = 80
        if host.hasPrefix("[") {   // [v6]:port
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") { guard let p = UInt16(after.dropFirst()) else { return nil }; port = p } else if !after.isEmpty { return nil }
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if let colon = host.lastIndex(of: ":") {
            guard let p = UInt16(host[host.index(after: colon)...]) else { return nil }
            port = p; host = String(host[..<colon])
        }
        guard !host.isEmpty, !host.contains("@") else { return nil }
        return Target(host: host, port: port, prefix: prefix)
    }

    /// Sends `body` with PUT to `path` under the target; returns the status line on a 2xx answer,
    /// throws a run failure (exit 2) naming the URL otherwise.
    static func put(_ body: Data, path: String, to target: Target, timeoutSeconds: Int = 30) throws -> String {
        let url = "http://\(target.host.contains(":") ? "[\(target.host)]" : target.host):\(target.port)\(target.prefix)\(path)"
        let fd = try connect(target, url: url, timeoutSeconds: timeoutSeconds)
        defer { close(fd) }
        var head = "PUT \(target.prefix)\(path) HTTP/1.1\r\n"
        head += "Host: \(target.host.contains(":") ? "[\(target.host)]" : target.host):\(target.port)\r\n"
        head += "User-Agent: netbench/\(netbenchVersion)\r\n"
        head += "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        var bytes = [UInt8](head.utf8) + [UInt8](body)
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeMutableBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 { if errno == EINTR { continue }; throw BenchError.run("\(url): cannot send the metrics: \(String(cString: strerror(errno)))") }
            sent += n
        }
        var answer = [UInt8](), buf = [UInt8](repeating: 0, count: 8192)
        while true {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 { if errno == EINTR { continue }; throw BenchError.run("\(url): no answer from the Pushgateway: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            answer += buf[0..<n]
            if answer.count > 1 << 20 { break }
        }
        bytes = []
        let text = String(decoding: answer, as: UTF8.self)
        let statusLine = text.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let code = Int(parts[1]) else {
            throw BenchError.run("\(url): not an HTTP answer: \(statusLine.isEmpty ? "(connection closed without one)" : statusLine)")
        }
        guard (200..<300).contains(code) else {
            let bodyText = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            throw BenchError.run("\(url): the Pushgateway refused the metrics: \(statusLine)\(bodyText.isEmpty ? "" : ": " + bodyText)")
        }
        return statusLine
    }

    private static func connect(_ target: Target, url: String, timeoutSeconds: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(target.host, String(target.port), &hints, &list)
        guard rc == 0, let first = list else {
            throw BenchError.run("\(url): cannot resolve \(target.host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var ai: UnsafeMutablePointer<addrinfo>? = first
        while let a = ai {
            ai = a.pointee.ai_next
            let fd = socket(a.pointee.ai_family, a.pointee.ai_socktype, a.pointee.ai_protocol)
            if fd < 0 { lastError = String(cString: strerror(errno)); continue }
            var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            if Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { return fd }
            lastError = String(cString: strerror(errno))
            close(fd)
        }
        throw BenchError.run("\(url): cannot connect to the Pushgateway: \(lastError)")
    }
}
