import Foundation

/// What a page load looked like to DevTools' Network domain, turned into a HAR 1.2 log with
/// content, the input `import-har` already reads (`HARImporter`): `netbench record` builds its
/// scenario through that same path, so a recording and an imported HAR become the same model.
///
/// Fed the Network events of one page (`Network.requestWillBeSent`, `responseReceived`,
/// `loadingFinished`, `loadingFailed`) and each body (`Network.getResponseBody`); pure: no I/O.
/// Per entry: method, URL (query string kept and listed), request and response headers, the
/// protocol (`httpVersion`), status, timings from `response.timing`, Chrome's `_initiator`,
/// `_resourceType`, `_priority` and `_transferSize`; a redirect is one entry per hop with its
/// `redirectURL`, as Chrome's HAR export writes it.
struct DevToolsRecording {
    /// One request as DevTools reported it; a redirect hop is an entry of its own.
    struct Exchange {
        var requestID: String
        var url: String
        var method: String
        var requestHeaders: [(String, String)] = []
        /// Epoch seconds (`wallTime`) and the monotonic seconds (`timestamp`) of requestWillBeSent.
        var wallTime: Double
        var timestamp: Double
        var initiator: [String: Any]?
        var resourceType: String?
        var priority: String?
        var response: [String: Any]?
        var redirectURL: String?
        var finishedAt: Double?
        var encodedDataLength: Double?
        var failed: String?
        var body: [UInt8]?
        /// What the request posted (`request.postData`, or `Network.getRequestPostData` when DevTools
        /// only said `hasPostData`).
        var postData: String?
        var hasPostData = false
    }

    private(set) var exchanges: [Exchange] = []
    private var open: [String: Int] = [:]
    /// Monotonic seconds of `Page.loadEventFired`.
    private(set) var loadEventAt: Double?

    /// Takes one DevTools event of the page's session.
    mutating func handle(method: String, params p: [String: Any]) {
        let id = p["requestId"] as? String ?? ""
        switch method {
        case "Network.requestWillBeSent":
            guard let request = p["request"] as? [String: Any], let url = request["url"] as? String else { return }
            if let redirect = p["redirectResponse"] as? [String: Any], let i = open[id] {
                exchanges[i].response = redirect
                exchanges[i].redirectURL = url
                exchanges[i].finishedAt = p["timestamp"] as? Double
            }
            var e = Exchange(
                requestID: id, url: url, method: request["method"] as? String ?? "GET",
                wallTime: p["wallTime"] as? Double ?? 0, timestamp: p["timestamp"] as? Double ?? 0)
            e.requestHeaders = Self.headers(request["headers"])
            e.postData = request["postData"] as? String
            e.hasPostData = request["hasPostData"] as? Bool ?? (e.postData != nil)
            e.initiator = p["initiator"] as? [String: Any]
            e.resourceType = p["type"] as? String
            e.priority = request["initialPriority"] as? String
            open[id] = exchanges.count
            exchanges.append(e)
        case "Network.responseReceived":
            guard let i = open[id], let r = p["response"] as? [String: Any] else { return }
            exchanges[i].response = r
            if exchanges[i].resourceType == nil, let t = p["type"] as? String { exchanges[i].resourceType = t }
        case "Network.loadingFinished":
            guard let i = open[id] else { return }
            exchanges[i].finishedAt = p["timestamp"] as? Double
            exchanges[i].encodedDataLength = (p["encodedDataLength"] as? NSNumber)?.doubleValue
        case "Network.loadingFailed":
            guard let i = open[id] else { return }
            exchanges[i].failed = p["errorText"] as? String ?? "failed"
        case "Page.loadEventFired":
            if loadEventAt == nil { loadEventAt = p["timestamp"] as? Double }
        default:
            break
        }
    }

    /// Requests whose body should be asked for: finished, with a response, not a redirect hop.
    var bodyRequests: [String] {
        exchanges.filter { $0.finishedAt != nil && $0.response != nil && $0.redirectURL == nil && $0.failed == nil }
            .map(\.requestID)
    }

    /// Requests that posted a body DevTools did not put in the event (a large one): ask for it.
    var postDataRequests: [String] {
        exchanges.filter { $0.hasPostData && $0.postData == nil }.map(\.requestID)
    }

    /// `Network.getRequestPostData`'s answer.
    mutating func setPostData(requestID: String, text: String) {
        for i in exchanges.indices where exchanges[i].requestID == requestID && exchanges[i].hasPostData {
            exchanges[i].postData = text
        }
    }

    /// `Network.getResponseBody`'s answer for the request's final response.
    mutating func setBody(requestID: String, body: String, base64Encoded: Bool) {
        guard let i = open[requestID] else { return }
        exchanges[i].body = base64Encoded ? Data(base64Encoded: body).map { [UInt8]($0) } : Array(body.utf8)
    }

    /// Requests that got no response (unreachable host, refused connection), with DevTools' reason.
    var failures: [(url: String, error: String)] {
        exchanges.filter { $0.response == nil && $0.failed != nil }.map { ($0.url, $0.failed!) }
    }

    /// The HAR log of the load: exchanges with a response, in the order they were requested.
    func har(pageURL: String, creatorVersion: String) -> [String: Any] {
        let entries = exchanges.filter { $0.response != nil }.map { entry($0) }
        let start = exchanges.first?.wallTime ?? 0
        var page: [String: Any] = [
            "id": "page_1", "title": pageURL, "startedDateTime": Self.iso8601(start),
            // Every request until the network went quiet is part of the recording, also those
            // after the load event: no onLoad, or the importer would leave them out.
            "pageTimings": ["onLoad": -1],
        ]
        if let l = loadEventAt, let t0 = exchanges.first?.timestamp { page["_loadEventMs"] = (l - t0) * 1000 }
        return [
            "log": [
                "version": "1.2", "creator": ["name": "netbench record", "version": creatorVersion],
                "pages": [page], "entries": entries,
            ] as [String: Any]
        ]
    }

    func entry(_ e: Exchange) -> [String: Any] {
        let r = e.response ?? [:]
        let protocolName = (r["protocol"] as? String).map(Self.httpVersion) ?? "HTTP/1.1"
        var content: [String: Any] = ["size": e.body?.count ?? 0, "mimeType": r["mimeType"] as? String ?? ""]
        if let body = e.body {
            content["text"] = Data(body).base64EncodedString()
            content["encoding"] = "base64"
        }
        let timings = Self.timings(r["timing"] as? [String: Any], requestStart: e.timestamp, end: e.finishedAt)
        let total = ["blocked", "dns", "connect", "send", "wait", "receive"].compactMap { timings[$0] as? Double }
            .filter { $0 > 0 }.reduce(0, +)
        var response: [String: Any] = [
            "status": r["status"] as? Int ?? 0, "statusText": r["statusText"] as? String ?? "",
            "httpVersion": protocolName, "headers": Self.harHeaders(Self.headers(r["headers"])),
            "redirectURL": e.redirectURL ?? "", "content": content, "bodySize": e.body?.count ?? -1,
            "headersSize": -1,
        ]
        if let n = e.encodedDataLength { response["_transferSize"] = n }
        var request: [String: Any] = [
            "method": e.method, "url": e.url, "httpVersion": protocolName,
            "headers": Self.harHeaders(e.requestHeaders), "queryString": Self.queryString(e.url),
            "cookies": [Any](), "headersSize": -1, "bodySize": e.postData?.utf8.count ?? 0,
        ]
        if let text = e.postData {
            let type = e.requestHeaders.first { $0.0.lowercased() == "content-type" }?.1 ?? ""
            request["postData"] = ["mimeType": type, "text": text]
        }
        var entry: [String: Any] = [
            "pageref": "page_1", "startedDateTime": Self.iso8601(e.wallTime), "time": total,
            "request": request,
            "response": response, "cache": [String: Any](), "timings": timings,
        ]
        if let i = e.initiator { entry["_initiator"] = i }
        if let t = e.resourceType { entry["_resourceType"] = t.lowercased() }
        if let p = e.priority { entry["_priority"] = p }
        if let ip = r["remoteIPAddress"] as? String { entry["serverIPAddress"] = ip }
        if let c = r["connectionId"] as? NSNumber { entry["connection"] = c.stringValue }
        return entry
    }

    /// DevTools' `response.protocol` (`http/1.1`, `h2`, `h3`) as HAR's `httpVersion`.
    static func httpVersion(_ p: String) -> String {
        switch p.lowercased() {
        case "h2": return "HTTP/2.0"
        case "h3", "h3-29": return "HTTP/3"
        case "http/1.0": return "HTTP/1.0"
        default: return "HTTP/1.1"
        }
    }

    /// HAR phase durations (ms; -1: not applicable) from DevTools' `ResourceTiming` (ms offsets
    /// from `requestTime`, seconds) and the load's end (`loadingFinished`'s timestamp, seconds).
    static func timings(_ t: [String: Any]?, requestStart: Double, end: Double?) -> [String: Any] {
        guard let t, let base = t["requestTime"] as? Double else {
            let receive = end.map { max(0, ($0 - requestStart) * 1000) } ?? 0
            return ["blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": 0, "receive": receive]
        }
        func v(_ k: String) -> Double { (t[k] as? NSNumber)?.doubleValue ?? -1 }
        func span(_ a: String, _ b: String) -> Double { v(a) >= 0 && v(b) >= v(a) ? v(b) - v(a) : -1 }
        let headersEnd = max(0, v("receiveHeadersEnd"))
        let sendEnd = max(0, v("sendEnd"))
        let receive = end.map { max(0, ($0 - base) * 1000 - headersEnd) } ?? 0
        return [
            "blocked": max(0, (base - requestStart) * 1000), "dns": span("dnsStart", "dnsEnd"),
            "connect": span("connectStart", "connectEnd"), "ssl": span("sslStart", "sslEnd"),
            "send": max(0, span("sendStart", "sendEnd")), "wait": max(0, headersEnd - sendEnd), "receive": receive,
        ]
    }

    /// DevTools header objects (`{"name": "value"}`; several values joined by newlines) as pairs.
    static func headers(_ object: Any?) -> [(String, String)] {
        guard let h = object as? [String: Any] else { return [] }
        return h.keys.sorted().flatMap { name in
            "\(h[name] ?? "")".split(separator: "\n", omittingEmptySubsequences: false).map { (name, String($0)) }
        }
    }

    static func harHeaders(_ pairs: [(String, String)]) -> [[String: String]] {
        pairs.map { ["name": $0.0, "value": $0.1] }
    }

    /// HAR's `queryString`: the URL's parameters in order, as written (not decoded).
    static func queryString(_ url: String) -> [[String: String]] {
        let noFragment = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard let q = noFragment.firstIndex(of: "?") else { return [] }
        return noFragment[noFragment.index(after: q)...].split(separator: "&").map { part in
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return ["name": String(kv[0]), "value": kv.count > 1 ? String(kv[1]) : ""]
        }
    }

    /// Epoch seconds as HAR's `startedDateTime` (UTC, milliseconds).
    static func iso8601(_ epochSeconds: Double) -> String {
        let ms = Int64((epochSeconds * 1000).rounded())
        let days = ms / 86_400_000
        let inDay = ms % 86_400_000
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return String(
            format: "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ", y, m, d, inDay / 3_600_000,
            inDay / 60000 % 60, inDay / 1000 % 60, inDay % 1000)
    }
}
