import Foundation

/// What the Network domain says about each URL's timing, kept for the resources that a page's
/// Resource Timing leaves out: Chromium gives no entry to a stylesheet that another one pulls in
/// with `@import` (seen on recorded Sphinx pages), though the request was made and answered, and
/// a cross-origin entry from a server without `Timing-Allow-Origin` has no protocol and no sizes.
/// Times are the domain's monotonic seconds, placed on the epoch by the first request's
/// `wallTime`; `entries` turns them into Resource Timing entries on a frame's clock.
struct NetworkTimings {
    struct Exchange {
        var url: String
        /// The request's method (`request.method`): a GET and a POST of one URL are two exchanges.
        var method = "GET"
        var started: Double
        var requestTime: Double?
        var sendStart: Double?
        var receiveHeadersEnd: Double?
        var finished: Double?
        /// Body bytes as `Network.dataReceived` counts them (`dataLength`): decoded bytes.
        var bodyBytes: Int64 = 0
        /// A content-encoded response. Its `encodedDataLength` at the end less the head's is not the
        /// body's encoded size: it also counts every HTTP/2 DATA frame's header (Chromium adds 9 bytes a
        /// frame), HTTP/3's frame headers, and HTTP/1.1's chunk sizes (nginx sends gzip responses
        /// chunked), so only the decoded size (`bodyBytes`) is the body's own.
        var contentEncoded = false
        var protocolName: String?
        var status: Int?
    }

    /// Monotonic seconds and epoch seconds of the first request: the clock's anchor.
    private var anchor: (timestamp: Double, wallTime: Double)?
    private var byRequest: [String: Exchange] = [:]
    /// Request key (`ChromiumResults.key(method:url:)`) → the first exchange that finished.
    private(set) var finished: [String: Exchange] = [:]

    mutating func handle(
        method: String, params p: [String: Any], key: (String, String) -> String = ChromiumResults.key(method:url:)
    ) {
        let id = p["requestId"] as? String ?? ""
        switch method {
        case "Network.requestWillBeSent":
            let request = p["request"] as? [String: Any]
            guard let url = request?["url"] as? String, let t = p["timestamp"] as? Double else { return }
            if anchor == nil, let w = p["wallTime"] as? Double { anchor = (t, w) }
            byRequest[id] = Exchange(url: url, method: request?["method"] as? String ?? "GET", started: t)
        case "Network.responseReceived":
            guard let r = p["response"] as? [String: Any] else { return }
            let timing = r["timing"] as? [String: Any]
            func ms(_ k: String) -> Double? {
                guard let v = (timing?[k] as? NSNumber)?.doubleValue, v >= 0 else { return nil }
                return v
            }
            byRequest[id]?.requestTime = (timing?["requestTime"] as? NSNumber)?.doubleValue
            byRequest[id]?.sendStart = ms("sendStart")
            byRequest[id]?.receiveHeadersEnd = ms("receiveHeadersEnd")
            byRequest[id]?.protocolName = r["protocol"] as? String
            byRequest[id]?.status = r["status"] as? Int
            let headers = (r["headers"] as? [String: Any]) ?? [:]
            if headers.contains(where: { $0.key.lowercased() == "content-encoding" }) {
                byRequest[id]?.contentEncoded = true
            }
        case "Network.dataReceived":
            byRequest[id]?.bodyBytes += (p["dataLength"] as? NSNumber)?.int64Value ?? 0
        case "Network.loadingFinished":
            guard var e = byRequest[id] else { return }
            e.finished = p["timestamp"] as? Double
            let k = key(e.method, e.url)
            if finished[k] == nil { finished[k] = e }
        default:
            break
        }
    }

    /// Entries for `keys` (those that finished), in ms from `timeOrigin` (epoch ms).
    func entries(for keys: [String], timeOrigin: Double) -> [BrowserReport.TimingEntry] {
        let found = entriesByKey(for: keys, timeOrigin: timeOrigin)
        return keys.compactMap { found[$0] }
    }

    /// `entries(for:timeOrigin:)` by request key.
    func entriesByKey(for keys: [String], timeOrigin: Double) -> [String: BrowserReport.TimingEntry] {
        guard let anchor else { return [:] }
        func page(_ monotonic: Double) -> Double {
            (anchor.wallTime + monotonic - anchor.timestamp) * 1000 - timeOrigin
        }
        var out: [String: BrowserReport.TimingEntry] = [:]
        for k in keys {
            guard let e = finished[k], let end = e.finished else { continue }
            let base = e.requestTime ?? e.started
            var t = BrowserReport.TimingEntry(name: e.url, startTime: page(e.started))
            t.requestStart = e.sendStart.map { page(base) + $0 }
            t.responseStart = e.receiveHeadersEnd.map { page(base) + $0 }
            t.responseEnd = page(end)
            if !e.contentEncoded {
                t.encodedBodySize = e.bodyBytes
            } else {
                // Encoded: the encoded size cannot be told apart from the framing around it.
                t.decodedBodySize = e.bodyBytes
                t.encodedSizeUnobserved = true
            }
            t.nextHopProtocol = e.protocolName
            t.responseStatus = e.status
            out[k] = t
        }
        return out
    }
}
