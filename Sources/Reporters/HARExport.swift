import Foundation
import BenchCore
import BenchModel

/// `report --format har`: one HAR 1.2 file per run (`har/SCENARIO-PROFILE-TRANSPORT-N.har`), so the
/// tools people read HARs with (Chrome DevTools, haralyzer, HAR viewers) show a netbench run, and
/// `import-har` turns it back into the scenario's shape.
///
/// - One page (`page_1`) per file: started at the run's start, `pageTimings.onLoad` the browser's
///   load event when the client measured one, else the page load time (`pltMs`); -1 when unknown.
/// - One entry per request, started at `queued`: the URL from the scenario (`https://HOST/PATH`),
///   `httpVersion` from the protocol the request used (`HTTP/1.1`, `HTTP/2`, `HTTP/3`), timings from
///   the request's timestamps (`blocked` until the connection started or the request was sent,
///   `connect` the TCP+TLS or QUIC handshake including `ssl`, `send` from the handshake's end to the
///   request, `wait` to the first byte, `receive` to the last; -1 where the request had no such
///   phase), `connection` the run's connection index, `serverIPAddress` its remote address.
/// - Chrome's custom fields: `_priority` (the priority netbench's client and Chromium give the
///   resource, in DevTools' names), `_resourceType`, and `_initiator` (`{"type": "parser"|"script",
///   "url": PARENT}`), from which `import-har` rebuilds the dependency tree.
public enum HARExport {
    /// The directory inside the report directory that holds the files.
    public static let directory = "har"

    /// Each run's file name (relative to the report directory) and bytes. A run whose scenario is not
    /// in `scenarios` (by name) is a data error naming it.
    public static func files(
        _ results: ResultsFile, scenarios: [Scenario]
    ) throws -> [(fileName: String, data: Data)] {
        let byName = Dictionary(scenarios.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var used = Set<String>()
        return try results.runs.map { run in
            guard let scenario = byName[run.scenario] else {
                throw BenchError.data(
                    "runs of scenario '\(run.scenario)': no such scenario among "
                        + (scenarios.isEmpty ? "none given" : scenarios.map(\.name).joined(separator: ", ")))
            }
            var name = [run.scenario, run.profile, run.transport.rawValue, "\(run.index)"].map(safe)
                .joined(separator: "-")
            if run.warmup == true { name += "-warmup" }
            if let c = run.client?.rawValue, c != "builtin" { name += "-" + safe(c) }
            var unique = name
            var n = 2
            while !used.insert(unique).inserted { unique = "\(name)-\(n)"; n += 1 }
            return (directory + "/" + unique + ".har", try har(run, scenario: scenario, results: results))
        }
    }

    /// The HAR of one run.
    public static func har(_ run: RunRecord, scenario: Scenario, results: ResultsFile) throws -> Data {
        let start = parse(run.startedAt ?? results.startedAt) ?? Date(timeIntervalSince1970: 0)
        let byID = Dictionary(scenario.resources.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let onLoad = run.metrics.loadEventMs ?? run.metrics.pltMs
        var title = "\(run.scenario) · \(run.profile) · \(run.transport.rawValue) · run \(run.index)"
        if run.warmup == true { title += " (warm-up)" }
        let page: [String: Any] = [
            "id": "page_1", "title": title, "startedDateTime": timestamp(start),
            "pageTimings": ["onContentLoad": -1, "onLoad": onLoad.map(round3) ?? Double(-1)],
        ]
        let entries = run.requests.map { entry($0, run: run, scenario: scenario, byID: byID, start: start) }
        var log: [String: Any] = [
            "version": "1.2",
            "creator": ["name": "netbench", "version": results.netbenchVersion],
            "pages": [page], "entries": entries,
        ]
        var custom: [String: Any] = [
            "scenario": run.scenario, "profile": run.profile, "transport": run.transport.rawValue,
            "status": run.status.rawValue,
        ]
        if let c = run.client?.rawValue { custom["client"] = c }
        if let e = run.error { custom["error"] = e }
        log["_netbench"] = custom
        return try JSONSerialization.data(withJSONObject: ["log": log], options: [.prettyPrinted, .sortedKeys])
    }

    static func entry(
        _ r: RequestRecord, run: RunRecord, scenario: Scenario, byID: [String: Scenario.Resource], start: Date
    ) -> [String: Any] {
        let resource = byID[r.id]
        let host = scenario.origin(id: resource?.origin ?? r.origin)?.host ?? r.origin
        let url = "https://" + host + (resource?.path ?? "/" + r.id)
        let version = httpVersion(r.protocol ?? run.transport.rawValue)
        let mime = resource.map { $0.body?.contentType ?? $0.type.defaultContentType } ?? "application/octet-stream"
        let t = timings(r)
        var e: [String: Any] = [
            "pageref": "page_1",
            "startedDateTime": timestamp(start.addingTimeInterval(r.queued / 1000)),
            "time": round3(t.total),
            "request": [
                "method": "GET", "url": url, "httpVersion": version, "headers": [], "queryString": [],
                "cookies": [], "headersSize": -1, "bodySize": 0,
            ] as [String: Any],
            "response": [
                "status": r.status ?? 0, "statusText": "", "httpVersion": version, "headers": [], "cookies": [],
                "content": ["size": r.bytes, "mimeType": mime], "redirectURL": "", "headersSize": -1,
                "bodySize": r.bytes,
            ] as [String: Any],
            "cache": [:] as [String: Any],
            "timings": t.fields,
            "_resourceType": resource.map { resourceType($0.type) } ?? "other",
        ]
        if let c = r.connection {
            e["connection"] = String(c)
            if c < run.connections.count, let remote = run.connections[c].remoteAddress {
                e["serverIPAddress"] = address(remote)
            }
        }
        if let resource {
            let parent = resource.parent.flatMap { byID[$0] }
            // What the run recorded (the built-in client's first-image boost, Chromium's own, its last change
            // as Chrome's HAR writes it), else the scenario's model for runs recorded before priorities were.
            let recorded = RequestPriority.allCases.first { $0.description == (r.priorityChanged ?? r.priority) }
            e["_priority"] = (recorded ?? resource.chromiumPriority(parent: parent)).devToolsName
            if let parent, let origin = scenario.origin(id: parent.origin) {
                e["_initiator"] = [
                    "type": parent.type == .script ? "script" : "parser",
                    "url": "https://" + origin.host + parent.path,
                ]
            } else {
                e["_initiator"] = ["type": "other"]
            }
        }
        if let error = r.error { e["_error"] = error }
        return e
    }

    /// HAR phases from the request's timestamps; they add up to `total` (queued → last byte).
    static func timings(_ r: RequestRecord) -> (fields: [String: Double], total: Double) {
        func span(_ a: Double?, _ b: Double?) -> Double? {
            guard let a, let b else { return nil }
            return max(0, b - a)
        }
        let sent = r.requestSent
        let blocked = span(r.queued, r.connectStart ?? sent) ?? 0
        let connect = span(r.connectStart, r.tlsEnd)
        // TCP: connectEnd → tlsEnd is TLS; QUIC has no connectEnd, its handshake is TLS throughout.
        let ssl = r.connectStart == nil ? nil : span(r.connectEnd ?? r.connectStart, r.tlsEnd)
        let send = span(r.tlsEnd ?? sent, sent) ?? 0
        let wait = span(sent, r.firstByte) ?? 0
        let receive = span(r.firstByte, r.lastByte) ?? 0
        let fields: [String: Double] = [
            "blocked": round3(blocked), "dns": -1, "connect": connect.map(round3) ?? -1, "ssl": ssl.map(round3) ?? -1,
            "send": round3(send), "wait": round3(wait), "receive": round3(receive),
        ]
        return (fields, blocked + (connect ?? 0) + send + wait + receive)
    }

    /// `http/1.1`, `h2`, `h3` (ALPN, or the transport's name) as HAR writes versions.
    static func httpVersion(_ p: String) -> String {
        switch p.lowercased() {
        case "h2", "http/2", "http/2.0": return "HTTP/2"
        case "h3", "http/3": return "HTTP/3"
        case "h1", "http/1.1": return "HTTP/1.1"
        default: return p
        }
    }

    static func resourceType(_ t: Scenario.ResourceType) -> String {
        t == .xhr ? "fetch" : t.rawValue
    }

    /// `198.18.0.1:8443` → `198.18.0.1`; `[::1]:443` → `::1`.
    static func address(_ endpoint: String) -> String {
        if endpoint.hasPrefix("["), let close = endpoint.firstIndex(of: "]") {
            return String(endpoint[endpoint.index(after: endpoint.startIndex)..<close])
        }
        guard endpoint.filter({ $0 == ":" }).count == 1, let colon = endpoint.lastIndex(of: ":") else {
            return endpoint
        }
        return String(endpoint[..<colon])
    }

    static func safe(_ s: String) -> String {
        String(s.map { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) ? $0 : "_" })
    }

    static func round3(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }

    static func parse(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: text)
    }

    static func timestamp(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: d)
    }
}
