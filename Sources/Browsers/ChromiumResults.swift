import BenchCore
import Foundation
import BenchModel
import Testbed
import Runner
import Replay

/// What the browser reported about one page load, as read over DevTools: the Resource Timing
/// entries of every frame and, per URL, what the Network domain said about its response.
struct BrowserReport {
    /// `PerformanceResourceTiming` / `PerformanceNavigationTiming` as `toJSON()` gives them
    /// (milliseconds from the frame's time origin).
    struct TimingEntry: Decodable {
        var name: String
        var startTime: Double
        var fetchStart: Double?
        var connectStart: Double?
        var secureConnectionStart: Double?
        var connectEnd: Double?
        var requestStart: Double?
        var responseStart: Double?
        var responseEnd: Double?
        var encodedBodySize: Int64?
        var transferSize: Int64?
        var nextHopProtocol: String?
        var responseStatus: Int?
        var loadEventEnd: Double?
        var decodedBodySize: Int64?
        /// An entry made from the Network domain (`NetworkTimings`) for a content-encoded response:
        /// `encodedBodySize` is not known, only `decodedBodySize`.
        var encodedSizeUnobserved: Bool?
    }

    /// One frame's entries; `timeOrigin` (ms since the epoch) places them against the top frame's.
    struct FrameTimings: Decodable {
        var timeOrigin: Double
        var navigation: [TimingEntry]
        var resources: [TimingEntry]
        /// `first-paint` and `first-contentful-paint` (Paint Timing), ms from the time origin.
        var paint: [PaintEntry]?
        /// The last largest-contentful-paint candidate, ms from the time origin; nil if none came.
        var lcp: Double?
    }

    struct PaintEntry: Decodable {
        var name: String
        var startTime: Double
    }

    /// The Network domain's view of one response.
    struct NetworkResponse {
        var protocolName: String?
        var connectionID: Int?
        var connectionReused: Bool?
        var remoteAddress: String?
        var tlsVersion: String?
        var status: Int?
    }

    /// A request's priority as the browser reported it (`Network.ResourcePriority`).
    struct Priority: Equatable {
        var initial: RequestPriority
        /// The last change (`Network.resourceChangedPriority`) before the response ended.
        var changed: RequestPriority?
    }

    /// The top frame first.
    var frames: [FrameTimings]
    /// By `ChromiumResults.key(method:url:)`.
    var responses: [String: NetworkResponse]
    /// Entries made from the browser's network events, on the top frame's clock, by
    /// `ChromiumResults.key(method:url:)`, for the URLs the scenario requests with more than one method:
    /// Resource Timing names no method, so only these tell a GET and a POST of one URL apart.
    var byMethod: [String: TimingEntry] = [:]
    /// By `ChromiumResults.key(method:url:)`; empty for a browser that does not report priorities.
    var priorities: [String: Priority] = [:]
    /// Chromium: the page's main-thread task time at the end of the load, and its script and its
    /// style-and-layout parts, ms (`ChromiumPageRun.mainThreadTimes`).
    var mainThread: ChromiumPageRun.MainThreadTimes?
}

/// Turns a browser's report into the run's records, in the same schema as the built-in client's:
/// requests in the scenario's order with times in ms from navigation start, connections by the
/// browser's connection id, and the run's metrics (`pltMs`: the last byte of the last resource).
///
/// The run fails when a resource is missing, was fetched over another protocol than the run's, or
/// came with another body size than the server sent.
struct ChromiumResults {
    var scenario: Scenario
    var transport: TransportKind
    /// Resource id → the URL the browser was made to request it at.
    var urls: [String: String]
    /// Resource id → the body size the server sends browsers (rendered pages may exceed the scenario's).
    var servedBytes: [String: Int64]
    /// Resource id → the decoded length of a body the server sends content-encoded (a recorded gzip body).
    var servedDecodedBytes: [String: Int64] = [:]
    /// A real page (`PageCompletion.networkQuiet`) need not fetch every resource: those it did not
    /// are listed in `Records.notRequested`, not failures.
    var completion = PageCompletion.everyResource

    struct Records {
        var requests: [RequestRecord]
        var connections: [ConnectionRecord]
        var metrics: RunMetrics
        var failure: String?
        /// Scenario resources the page never requested (real pages only), by id.
        var notRequested: [String] = []
    }

    /// How Resource Timing spells the run's protocol.
    static func nextHopProtocol(_ t: TransportKind) -> String {
        switch t {
        case .h1: return "http/1.1"
        case .h2: return "h2"
        case .h3: return "h3"
        }
    }

    /// A URL reduced to what identifies a resource: lower-case host and percent-decoded path
    /// (browsers may re-encode a path, and always lower-case the host).
    static func key(url: String) -> String {
        var rest = Substring(url)
        if let r = rest.range(of: "://") { rest = rest[r.upperBound...] }
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        var host = rest[..<slash].lowercased()
        if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        let path = rest[slash...].isEmpty ? "/" : String(rest[slash...])
        return host + ReplayCatalog.percentDecoded(path)
    }

    /// A request's key: its URL's for a GET (what Resource Timing's entries are found by), the method
    /// and the URL's for any other ("POST www.example.test/api/x").
    static func key(method: String, url: String) -> String {
        let m = method.uppercased()
        return m == "GET" ? key(url: url) : m + " " + key(url: url)
    }

    /// The URL part of `key(method:url:)`'s key (a host has no space and comes before the first "/").
    static func urlKey(_ key: String) -> String {
        guard let space = key.firstIndex(of: " "), space < (key.firstIndex(of: "/") ?? key.endIndex) else {
            return key
        }
        return String(key[key.index(after: space)...])
    }

    /// Request key → resource id, for every resource of `s` at its URL in `urls` (the first of duplicates).
    static func expectedKeys(_ s: Scenario, urls: [String: String]) -> [String: String] {
        var out: [String: String] = [:]
        for r in s.resources {
            let k = key(method: r.httpMethod, url: urls[r.id] ?? r.path)
            if out[k] == nil { out[k] = r.id }
        }
        return out
    }

    /// URL keys that `s` requests with more than one method (a GET and a POST of one URL): their
    /// Resource Timing entries cannot tell which request they belong to.
    static func ambiguousURLKeys(_ s: Scenario, urls: [String: String]) -> Set<String> {
        var methods: [String: Set<String>] = [:]
        for r in s.resources { methods[key(url: urls[r.id] ?? r.path), default: []].insert(r.httpMethod.uppercased()) }
        return Set(methods.filter { $0.value.count > 1 }.keys)
    }

    /// Whether `e` is the entry to keep for its URL over `kept` (the one found before, if any): the first
    /// fetch counts, unless it shows no body where a later one does, or it was cut short where a later one
    /// received more (Firefox aborts an image load its HTML preloader started and fetches the image again;
    /// the first entry holds the bytes that arrived before the abort).
    static func replaces(_ e: BrowserReport.TimingEntry, _ kept: BrowserReport.TimingEntry?) -> Bool {
        guard let kept else { return true }
        let keptBytes = kept.encodedBodySize ?? 0, bytes = e.encodedBodySize ?? 0
        if keptBytes == 0 { return bytes > 0 || e.encodedSizeUnobserved == true }
        return bytes > keptBytes
    }

    /// The entry kept for a URL when `e` replaces `kept` (both on the top frame's clock): `e`'s, but queued
    /// when the first fetch was, if that one was cut short (the resource was wanted from then on).
    static func merged(_ e: BrowserReport.TimingEntry, over kept: BrowserReport.TimingEntry?)
        -> BrowserReport.TimingEntry
    {
        guard let kept, (kept.encodedBodySize ?? 0) > 0 else { return e }
        var m = e
        m.startTime = min(e.startTime, kept.startTime)
        return m
    }

    func records(_ report: BrowserReport) -> Records {
        guard let top = report.frames.first else {
            return Records(
                requests: [], connections: [], metrics: RunMetrics(), failure: "the browser reported no timings")
        }
        // Every frame's entries by key, placed on the top frame's clock; the first fetch of a URL counts,
        // unless it shows no body where a later one does (Firefox lists a cross-origin iframe in its
        // parent's Resource Timing with encodedBodySize 0; the iframe's own navigation entry has it) or
        // was cut short (`replaces`).
        var entries: [String: BrowserReport.TimingEntry] = [:]
        var offsets: [String: Double] = [:]
        for frame in report.frames {
            let offset = frame.timeOrigin - top.timeOrigin
            for e in frame.navigation + frame.resources {
                let k = Self.key(url: e.name), kept = entries[k]
                guard Self.replaces(e, kept) else { continue }
                entries[k] = offsets[k] == offset ? Self.merged(e, over: kept) : e
                offsets[k] = offset
            }
        }
        let want = Self.nextHopProtocol(transport)
        var problems: [String] = []
        var requests: [RequestRecord] = []
        var connectionIndex: [Int: Int] = [:]
        var connections: [ConnectionRecord] = []
        var notRequested: [String] = []
        let ambiguous = Self.ambiguousURLKeys(scenario, urls: urls)
        for r in scenario.resources {
            let url = urls[r.id] ?? r.path
            let k = Self.key(url: url), mk = Self.key(method: r.httpMethod, url: url)
            var rec = RequestRecord(id: r.id, origin: r.origin, queued: 0)
            // One URL requested with several methods: only the network events' entry, found by method, is this
            // request's (Resource Timing's entries of that URL name no method).
            let found = ambiguous.contains(k) ? report.byMethod[mk] : entries[k]
            if found == nil, completion.isRealPage, r.id != scenario.root?.id {
                notRequested.append(r.id)
                continue
            }
            guard let e = found else {
                if ambiguous.contains(k), entries[k] != nil {
                    problems.append(
                        "\(r.id) (\(r.httpMethod) \(url)): no network event tells which of the URL's Resource Timing "
                            + "entries is this method's")
                    rec.error = "not told apart"
                } else {
                    problems.append("\(r.id) (\(url)): the browser never fetched it")
                    rec.error = "not fetched"
                }
                requests.append(rec)
                continue
            }
            let o = ambiguous.contains(k) ? 0 : offsets[k] ?? 0
            func t(_ v: Double?) -> Double? { v.map { $0 + o } }
            let net = report.responses[mk]
            rec.queued = e.startTime + o
            rec.requestSent = t(e.requestStart)
            rec.firstByte = t(e.responseStart)
            rec.lastByte = t(e.responseEnd)
            rec.bytes = e.encodedBodySize ?? 0
            var decodedMismatch: String?
            if e.encodedSizeUnobserved == true, let decoded = e.decodedBodySize {
                // The browser decoded exactly the served body's decoded length: it received that body.
                if let want = servedDecodedBytes[r.id], decoded == want, let sent = servedBytes[r.id] {
                    rec.bytes = sent
                } else {
                    let want = servedDecodedBytes[r.id].map { "\($0)" } ?? "unknown"
                    decodedMismatch = "received a body decoding to \(decoded) bytes, expected \(want)"
                }
            }
            // Resource Timing says 0 for a response fetched without CORS from another origin (an
            // @imported stylesheet): the network events have its status.
            rec.status = e.responseStatus.flatMap { $0 > 0 ? $0 : nil } ?? net?.status
            rec.protocol = e.nextHopProtocol ?? net?.protocolName
            if let p = report.priorities[mk] {
                rec.priority = p.initial.description
                rec.priorityChanged = p.changed.flatMap { $0 == p.initial ? nil : $0.description }
            }
            if let id = net?.connectionID {
                if connectionIndex[id] == nil {
                    connectionIndex[id] = connections.count
                    connections.append(
                        connection(id: connections.count, origin: r.origin, entry: e, offset: o, net: net!))
                }
                rec.connection = connectionIndex[id]
            }
            if net?.connectionReused == false, let cs = e.connectStart, let ce = e.connectEnd {
                rec.connectStart = cs + o
                rec.connectEnd = ce + o
                rec.tlsEnd = ce + o
            }
            if let problem = check(rec, resource: r, url: url, want: want, decodedMismatch: decodedMismatch) {
                problems.append("\(r.id) (\(url))" + problem.text)
                rec.error = problem.error
            }
            requests.append(rec)
        }
        var m = metrics(requests, connections: connections.count, top: top)
        let failure = problems.isEmpty ? nil : Self.summarize(problems)
        if failure == nil { m.pltMs = requests.compactMap(\.lastByte).max() }
        return Records(
            requests: requests, connections: connections, metrics: m, failure: failure, notRequested: notRequested)
    }

    /// What is wrong with a fetched resource: another protocol, an HTTP error, other bytes than
    /// served; as the run's problem (after the resource's name) and the request's error.
    private func check(
        _ rec: RequestRecord, resource r: Scenario.Resource, url: String,
        want: String, decodedMismatch: String? = nil
    ) -> (text: String, error: String)? {
        if rec.protocol != want {
            let p = (rec.protocol ?? "").isEmpty ? "an unreported protocol" : rec.protocol!
            return (" was fetched over \(p), not \(want)", "protocol \(p)")
        }
        if let status = rec.status, status >= 400 { return (": HTTP \(status)", "HTTP \(status)") }
        if let what = decodedMismatch { return (": " + what, what) }
        if let expected = servedBytes[r.id], rec.bytes != expected {
            let what = "received \(rec.bytes) bytes, expected \(expected)"
            return (": " + what, what)
        }
        return nil
    }

    /// The run's figures from its requests and the top frame's navigation and paint entries (PLT is
    /// set by the caller, only when nothing went wrong).
    private func metrics(
        _ requests: [RequestRecord], connections: Int,
        top: BrowserReport.FrameTimings
    ) -> RunMetrics {
        var m = RunMetrics()
        m.requests = requests.filter { $0.lastByte != nil }.count
        m.bytes = requests.reduce(0) { $0 + $1.bytes }
        m.connections = connections
        if let root = scenario.root, let doc = requests.first(where: { $0.id == root.id }) {
            m.ttfbMs = doc.firstByte
            if let cs = doc.connectStart, let ce = doc.connectEnd, ce > cs { m.handshakeMs = ce - cs }
        }
        m.loadEventMs = top.navigation.first?.loadEventEnd
        m.firstPaintMs = top.paint?.first { $0.name == "first-paint" }?.startTime
        m.firstContentfulPaintMs = top.paint?.first { $0.name == "first-contentful-paint" }?.startTime
        m.largestContentfulPaintMs = top.lcp
        return m
    }

    private func connection(
        id: Int, origin: String, entry e: BrowserReport.TimingEntry, offset o: Double,
        net: BrowserReport.NetworkResponse
    ) -> ConnectionRecord {
        var c = ConnectionRecord(
            id: id, origin: origin, transport: transport, connectStart: (e.connectStart ?? e.startTime) + o)
        if transport != .h3 { c.connectEnd = e.connectEnd.map { $0 + o } }
        c.handshakeEnd = e.connectEnd.map { $0 + o }
        c.remoteAddress = net.remoteAddress
        c.tlsVersion = net.tlsVersion
        c.alpn = net.protocolName
        return c
    }

    /// The first problems, and how many more (a page of 170 resources can fail everywhere at once).
    static func summarize(_ problems: [String]) -> String {
        let shown = problems.prefix(3).joined(separator: "; ")
        return problems.count > 3 ? shown + "; and \(problems.count - 3) more" : shown
    }
}
