import BenchCore
import QUIC

extension HTTP3StreamEntry {
    /// Seed inputs made of real requests: netbench's own HTTP/3 client (nghttp3's QPACK encoder,
    /// with the dynamic table the server allows) loads a few request mixes from an `HTTP3Server` in
    /// memory, and the stream bytes the server received are written as this entry's records.
    public static func seeds() -> [(name: String, bytes: [UInt8])] {
        guard let pki = QUICServerEntry.pki else { return [] }
        let browser = [
            ("user-agent", "Mozilla/5.0 (X11; Linux x86_64) netbench-seed"),
            ("accept", "text/html,application/xhtml+xml,*/*;q=0.8"),
            ("accept-encoding", "gzip, deflate, br"), ("accept-language", "en-US,en;q=0.9"),
            ("cookie", "session=0123456789abcdef; theme=dark"),
        ]
        let mixes: [(String, [(path: String, headers: [(String, String)], body: Int64)])] = [
            ("one-get", [("/", browser, 0)]),
            (
                "page-of-six",
                ["/", "/a.css", "/app.js", "/i1.webp", "/i2.webp", "/api/comments?id=42"].map { ($0, browser, 0) }
            ),
            ("upload", [("/upload", browser + [("content-type", "application/octet-stream")], 3_000)]),
        ]
        return mixes.compactMap { name, requests in
            capture(pki: pki, requests).map { (name, records($0)) }
        }
    }

    /// The stream bytes the server receives while a real client makes `requests`, in order.
    static func capture(
        pki: (caPEM: String, identity: QUICServerCredentials),
        _ requests: [(path: String, headers: [(String, String)], body: Int64)]
    ) -> [(Int64, [UInt8], Bool)]? {
        var now = Instant(nanoseconds: 1_000_000_000)
        guard let server = try? HTTP3Server(config: config, credentials: [pki.identity], now: now),
            let client = try? HTTP3Client(
                config: config, trustedRootsPEM: pki.caPEM, serverName: "localhost",
                local: MemoryLink.clientAddress, remote: MemoryLink.serverAddress, now: now)
        else { return nil }
        var captured: [(Int64, [UInt8], Bool)] = []
        server.onStreamData = { _, stream, bytes, fin in captured.append((stream, Array(bytes), fin)) }
        for r in requests {
            _ = try? client.submitRequest(
                method: r.body > 0 ? "POST" : "GET", authority: "localhost", path: r.path,
                headers: r.headers, bodyLength: r.body)
        }
        var ended = 0
        for _ in 0..<400 where ended < requests.count {
            var toServer: [[UInt8]] = [], toClient: [[UInt8]] = []
            client.write(now: now) { bytes, _, _ in toServer.append(Array(bytes)) }
            for d in toServer {
                for case .request(let conn, let stream, _, _, _, _, _) in d.withUnsafeBytes({
                    server.receive($0, local: MemoryLink.serverAddress, remote: MemoryLink.clientAddress, now: now)
                }) {
                    try? server.submitResponse(connection: conn, stream: stream, status: 200, bodyLength: 100)
                }
            }
            server.write(now: now) { bytes, _, _ in toClient.append(Array(bytes)) }
            for d in toClient {
                for case .responseEnd in d.withUnsafeBytes({
                    client.receive($0, local: MemoryLink.clientAddress, remote: MemoryLink.serverAddress, now: now)
                }) {
                    ended += 1
                }
            }
            now = now + .milliseconds(1)
        }
        return ended == requests.count ? captured : nil
    }

    /// Captured stream bytes as records: the type byte of the control and QPACK streams left to the
    /// harness, the n-th request stream in slot 4 + n % 4 (a fresh stream from the fifth on).
    static func records(_ captured: [(Int64, [UInt8], Bool)]) -> [UInt8] {
        var slotOf: [Int64: (slot: UInt8, fresh: Bool)] = [:]
        var requestStreams = 0
        var out: [UInt8] = []
        for (stream, chunk, fin) in captured {
            var bytes = chunk
            if slotOf[stream] == nil {
                if stream % 4 == 0 {
                    slotOf[stream] = (UInt8(4 + requestStreams % 4), requestStreams >= 4)
                    requestStreams += 1
                } else if let first = bytes.first, let i = streamTypes.firstIndex(of: first) {
                    slotOf[stream] = (UInt8(i), false)
                    bytes.removeFirst()
                } else {
                    slotOf[stream] = (3, true)
                }
            }
            guard let (slot, firstFresh) = slotOf[stream] else { continue }
            var fresh = firstFresh
            var offset = 0
            repeat {
                let n = min(bytes.count - offset, 0xFFFF)
                let last = offset + n == bytes.count
                out +=
                    [slot | (fin && last ? 8 : 0) | (fresh ? 0x10 : 0), UInt8(n >> 8), UInt8(n & 0xFF)]
                    + bytes[offset..<(offset + n)]
                offset += n
                fresh = false
            } while offset < bytes.count
            slotOf[stream] = (slot, false)
        }
        return out
    }
}
