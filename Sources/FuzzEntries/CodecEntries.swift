import BenchCore
import HTTPCodec
import LinkModel

/// Parsers of bytes that are not JSON: Mahimahi traces and HTTP/1.1 from the network.
enum CodecEntries {
    /// A trace parses (or fails naming a line), then drives the queue it would drive in a run.
    static func trace(_ bytes: [UInt8]) -> FuzzOutcome {
        let t: MahimahiTrace
        do { t = try MahimahiTrace.parse(text: String(decoding: bytes, as: UTF8.self)) } catch let e as TraceError {
            let control = e.description.unicodeScalars.contains { $0.properties.generalCategory == .control }
            return control
                ? .violation("a control character in a trace error: \(e.description.debugDescription)")
                : .rejected(e.description)
        } catch {
            return .violation("threw \(type(of: error)) instead of a TraceError: \(error)")
        }
        _ = t.meanBitsPerSecond
        // Packets leave in order, never before they arrive, at the times the queue announced.
        let start = Instant(nanoseconds: 1_000_000_000)
        let queue = TraceRateQueue(trace: t, limit: .packets(64), start: start)
        var now = start
        var last = start
        for i in 0..<64 {
            now = now + .milliseconds(Double(i % 7))
            _ = queue.enqueue(Packet(handle: Int32(i), size: 100 + (i * 397) % 1400, arrival: now), now: now)
        }
        while let wake = queue.nextWakeup(now: now) {
            guard let p = queue.dequeue(now: max(wake, now)) else {
                return .violation("nothing to dequeue at the announced \(wake)")
            }
            guard p.departure >= p.arrival, p.departure >= last else {
                return .violation("packet \(p.handle) departs out of order")
            }
            last = p.departure
        }
        return .accepted
    }

    /// Feeds the request parser in pieces whose sizes come from the input's first byte, and
    /// checks what the server relies on: every `.request` is followed by exactly one `.end`, body
    /// counts never exceed what was fed, nothing follows `.malformed`.
    static func http1Request(_ bytes: [UInt8]) -> FuzzOutcome {
        guard let first = bytes.first else { return .accepted }
        let piece = Int(first % 61) + 1
        var parser = HTTP1RequestParser(maxHeadBytes: 4096)
        var open = false, malformed = false, sawError: String?
        var index = 1
        while index < bytes.count {
            let end = min(bytes.count, index + piece)
            let events = bytes[index..<end].withUnsafeBytes { parser.feed($0) }
            var fedBody = 0
            for event in events {
                if malformed { return .violation("event \(event) after .malformed") }
                switch event {
                case .request(let head):
                    if open { return .violation("a second .request before .end") }
                    open = true
                    if let range = head.headers["range"], let r = HTTPByteRange(headerValue: range) {
                        _ = r.resolved(totalLength: 1_000_000)
                    }
                case .body(let n):
                    if !open { return .violation(".body outside a request") }
                    fedBody += n
                case .end:
                    if !open { return .violation(".end without .request") }
                    open = false
                case .malformed(let e):
                    malformed = true
                    sawError = e.description
                }
            }
            if fedBody > end - index { return .violation("\(fedBody) body bytes from a \(end - index)-byte piece") }
            index = end
        }
        return sawError.map { .rejected($0) } ?? .accepted
    }

    /// The same for responses: one `.head` (after any `.informational`) per `.end`, then `finish`.
    static func http1Response(_ bytes: [UInt8]) -> FuzzOutcome {
        guard let first = bytes.first else { return .accepted }
        let piece = Int(first % 61) + 1
        var parser = HTTP1ResponseParser(maxHeadBytes: 4096)
        for i in 0..<8 { parser.expectResponse(toMethod: (first >> (i % 8)) & 1 == 1 ? "HEAD" : "GET") }
        var open = false
        var index = 1
        do throws(HTTP1ParseError) {
            while index < bytes.count {
                let end = min(bytes.count, index + piece)
                let events = try bytes[index..<end].withUnsafeBytes { buffer in
                    Result { () throws(HTTP1ParseError) in try parser.feed(buffer) }
                }.get()
                var fedBody = 0
                for event in events {
                    switch event {
                    case .informational: if open { return .violation("1xx inside a response body") }
                    case .head: if open { return .violation("a second .head before .end") } else { open = true }
                    case .body(let n): if !open { return .violation(".body outside a response") } else { fedBody += n }
                    case .end: if !open { return .violation(".end without .head") } else { open = false }
                    }
                }
                if fedBody > end - index { return .violation("\(fedBody) body bytes from a \(end - index)-byte piece") }
                index = end
            }
            for event in try parser.finish() {
                if case .end = event, !open { return .violation(".end from finish without .head") }
            }
        } catch {
            return .rejected(error.description)
        }
        return .accepted
    }
}
