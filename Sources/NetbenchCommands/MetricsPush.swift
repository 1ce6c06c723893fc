import Foundation
import BenchCore
import HTTPCodec
import SystemIO

/// `netbench report --push URL`: one HTTP/1.1 PUT of the Prometheus exposition to a Pushgateway,
/// over a plain TCP connection (http:// only): HTTPCodec writes the request head and parses the
/// answer, SystemIO resolves the host and carries the bytes. PUT replaces every metric of the group, so the gateway
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
        if host.hasPrefix("[") {  // [v6]:port
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") {
                guard let p = UInt16(after.dropFirst()) else { return nil }; port = p
            } else if !after.isEmpty {
                return nil
            }
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
        let authority = "\(target.host.contains(":") ? "[\(target.host)]" : target.host):\(target.port)"
        let url = "http://\(authority)\(target.prefix)\(path)"
        let connection = try connect(target, url: url, timeoutSeconds: timeoutSeconds)
        let fields: HTTPHeaders = [
            "User-Agent": "netbench/\(netbenchVersion)",
            "Content-Type": "text/plain; version=0.0.4; charset=utf-8",
            "Content-Length": String(body.count),
            "Connection": "close",
        ]
        let head = HTTP1Serializer.requestHead(
            method: "PUT", target: target.prefix + path, host: authority,
            headers: fields)
        do {
            try connection.sendAll(head + [UInt8](body))
        } catch {
            throw BenchError.run("\(url): cannot send the metrics: \(reason(error))")
        }
        let answer: [UInt8]
        do {
            answer = try receiveAll(connection)
        } catch {
            throw BenchError.run("\(url): no answer from the Pushgateway: \(reason(error))")
        }
        return try accepted(answer, url: url)
    }

    /// The status line of a 2xx answer; a run failure naming the URL for anything else.
    static func accepted(_ answer: [UInt8], url: String) throws -> String {
        guard let (head, body) = parse(answer) else {
            let firstLine =
                String(decoding: answer, as: UTF8.self).split(separator: "\r\n", maxSplits: 1).first
                .map(String.init) ?? "(connection closed without one)"
            throw BenchError.run("\(url): not an HTTP answer: \(firstLine)")
        }
        let statusLine = "\(head.version) \(head.status) \(head.reason)"
        guard (200..<300).contains(head.status) else {
            let bodyText = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let detail = bodyText.isEmpty ? "" : ": " + bodyText
            throw BenchError.run("\(url): the Pushgateway refused the metrics: \(statusLine)\(detail)")
        }
        return statusLine
    }

    /// The final response head and its body (framing removed), nil when `answer` does not start
    /// with a valid HTTP/1.x response head. The parser counts body bytes without copying them, so
    /// it is fed one byte at a time and each body event names the byte just fed; answers are at most
    /// `maxAnswerBytes` (a Pushgateway's are a few hundred bytes). A body cut short by the close
    /// keeps what arrived, as a status line alone decides.
    static func parse(_ answer: [UInt8]) -> (HTTPResponseHead, [UInt8])? {
        var parser = HTTP1ResponseParser()
        parser.expectResponse(toMethod: "PUT")
        var head: HTTPResponseHead?
        var body: [UInt8] = []
        for index in answer.indices {
            let fed = try? answer.withUnsafeBytes { all in
                try parser.feed(UnsafeRawBufferPointer(rebasing: all[index...index]))
            }
            guard let events = fed else { break }
            for event in events {
                switch event {
                case .head(let h): head = h
                case .body: body.append(answer[index])
                case .end: return head.map { ($0, body) }
                case .informational: continue
                }
            }
        }
        return head.map { ($0, body) }
    }

    static let maxAnswerBytes = 1 << 20

    private static func receiveAll(_ connection: BlockingTCPConnection) throws -> [UInt8] {
        var answer = [UInt8](), buffer = [UInt8](repeating: 0, count: 8192)
        while answer.count <= maxAnswerBytes {
            let n = try buffer.withUnsafeMutableBytes { try connection.receive(into: $0) }
            if n == 0 { break }
            answer += buffer[0..<n]
        }
        return answer
    }

    private static func connect(_ target: Target, url: String, timeoutSeconds: Int) throws -> BlockingTCPConnection {
        let addresses: [SocketAddress]
        do {
            addresses = try NameResolution.streamAddresses(host: target.host, port: target.port)
        } catch let e as NameResolutionError {
            throw BenchError.run("\(url): cannot resolve \(target.host): \(e.reason)")
        }
        guard !addresses.isEmpty else { throw BenchError.run("\(url): cannot connect to the Pushgateway: no address") }
        do {
            return try BlockingTCPConnection(connectingTo: addresses, timeoutSeconds: timeoutSeconds)
        } catch {
            throw BenchError.run("\(url): cannot connect to the Pushgateway: \(reason(error))")
        }
    }

    private static func reason(_ error: Error) -> String { (error as? SystemError)?.reason ?? "\(error)" }
}
