import Foundation
import BenchCore
import BenchModel
import Runner
import SystemIO
import Transport
import Replay
import Testbed

/// One page load by Firefox: a fresh headless Firefox (fresh profile: a cold first view), driven
/// over WebDriver BiDi, navigates to the scenario's root document on the replay server and waits
/// for the load event; then the Resource Timing, Paint Timing and LCP of every frame become the
/// run's records, as for Chromium (`ChromiumResults`: the same checks of protocol and sizes).
struct FirefoxPageRun: PageLoad {
    var context: PageLoadContext
    var server: Endpoint
    var executable: String

    var scenario: Scenario { context.scenario }
    var transport: TransportKind { context.transport }

    /// The certificates the run's Firefox trusts beyond its own store: the run's CA, or `run --server
    /// --ca`; none for `run --server` without --ca, which leaves Firefox to its own built-in roots as
    /// Chromium is left to its own (the system bundle netbench's probes read is not imported).
    var trustedPEM: String { context.credentials.systemRoots ? "" : context.credentials.caPEM }

    /// A recorded page's deterministic `Date` and `Math.random`; nil: a synthetic page or turned off.
    var deterministicJS: DeterministicJS? {
        DeterministicJS.forRun(
            scenario: scenario, completion: PageCompletion.rule(for: scenario), seed: context.deterministicJSSeed)
    }

    /// How the deterministic script reaches the page, for the run's record.
    static let preloadScript = "WebDriver BiDi script.addPreloadScript before the page's scripts"

    /// Startup (launch, agent, session) gets its own allowance, outside the page's limit.
    static let setupAllowance: Nanoseconds = .seconds(30)

    func execute(register: (StopFlag?) -> Void = { _ in }) throws -> PageLoadOutcome {
        guard scenario.bulk == nil else {
            return .failed("bulk transfers are measured with the built-in client only (--client builtin)")
        }
        guard let root = scenario.root else { return .failed("scenario has no root document") }
        let (urls, served, decoded) = ChromiumPageRun.pageURLs(scenario, port: server.port)
        let completion = PageCompletion.rule(for: scenario)
        var preferences = FirefoxPreferences(
            transport: transport, hosts: scenario.origins.map(\.host),
            serverAddress: ChromiumPageRun.dottedQuad(server.address), port: server.port)
        preferences.anyPort = completion.isRealPage

        let loop = try EventLoop()
        register(loop.stopper)
        defer { register(nil) }
        // Made before the browser, so it is removed after the browser's processes are gone.
        // A factor of 1 slows nothing: no group (a quota of one CPU would cap a browser that uses two).
        let quota = try context.cpuSlowdown.flatMap { $0 > 1 ? try CPUQuotaGroup(slowdown: $0) : nil }
        defer { quota?.remove() }
        let browser = try FirefoxBrowser(
            executable: executable, preferences: preferences, caPEM: trustedPEM, namespace: context.clientNamespace)
        var grace: Nanoseconds = 0
        defer { browser.stop(grace: grace) }
        let report: BrowserReport
        var capture: ScreenshotCadence?
        defer { capture?.stop() }
        do {
            let setup = Instant.now() + Self.setupAllowance
            let port = try browser.bidiPort(deadline: setup)
            let socket = try NetworkNamespace.with(context.clientNamespace) {
                try WebSocketConnection(
                    loop: loop, endpoint: Endpoint(address: 0x7F00_0001, port: port), path: "/session", deadline: setup)
            }
            let bidi = WebDriverBiDi(socket: socket)
            defer { bidi.close() }
            let tracker = BiDiNetworkTracker(
                expected: ChromiumResults.expectedKeys(scenario, urls: urls), completion: completion,
                rootKey: ChromiumResults.key(url: urls[root.id]!))
            tracker.byMethod = ChromiumResults.ambiguousURLKeys(scenario, urls: urls)
            bidi.onEvent = { tracker.handle($0) }
            // The quota applies from the page's setup on (a slowed startup would only eat the setup allowance).
            let slow = quota.map { q in { try Self.adopt(browser.pid, into: q) } }
            switch try load(
                bidi, tracker: tracker, url: urls[root.id]!, urls: urls, slowDown: slow, capture: &capture)
            {
            case .failed(let why): return .failed(why)
            case .loaded(let r): report = r
            }
            grace = .seconds(2)
            _ = try? bidi.send("browser.close")
            try? bidi.run(until: Instant.now() + .milliseconds(500), "closing") { !browser.isRunning }
        } catch WebDriverBiDi.Failure.interrupted {
            return .failed("interrupted")
        } catch let f as WebDriverBiDi.Failure {
            let tail = browser.errorTail
            return .failed("Firefox: \(f)" + (tail.isEmpty ? "" : " — \(tail)"))
        } catch let e as WebSocketFraming.ProtocolError {
            return .failed("Firefox WebDriver BiDi WebSocket: \(e)")
        }
        var results = ChromiumResults(scenario: scenario, transport: transport, urls: urls, servedBytes: served)
        results.servedDecodedBytes = decoded
        results.completion = completion
        var r = results.records(report)
        // WebDriver BiDi names no connection: how many there were is unknown, not 0.
        r.metrics.connections = nil
        if let capture { Self.recordVisualMetrics(capture, report: report, into: &r.metrics) }
        var outcome = PageLoadOutcome(
            requests: r.requests, connections: r.connections, metrics: r.metrics, failure: r.failure)
        if let n = context.cpuSlowdown {
            outcome.cpuSlowdown = CPUSlowdownRecord(factor: n, mechanism: quota?.description ?? "none (a factor of 1)")
            outcome.cpuSlowdown?.throttledPeriods = quota?.throttledPeriods
        }
        if !r.notRequested.isEmpty { outcome.notRequested = r.notRequested }
        outcome.deterministicJS = deterministicJS?.record(dateStart: scenario.recordedAt, mechanism: Self.preloadScript)
        return outcome
    }

    private enum PageResult {
        case loaded(BrowserReport)
        case failed(String)
    }

    private func load(
        _ bidi: WebDriverBiDi, tracker: BiDiNetworkTracker, url: String, urls: [String: String],
        slowDown: (() throws -> Void)?, capture: inout ScreenshotCadence?
    ) throws -> PageResult {
        let setup = Instant.now() + Self.setupAllowance
        _ = try bidi.call("session.new", ["capabilities": [String: Any]()], deadline: setup)
        // Which resources finished or failed: a page's load event does not wait for all of them.
        _ = try bidi.call(
            "session.subscribe",
            ["events": ["network.beforeRequestSent", "network.responseCompleted", "network.fetchError"]],
            deadline: setup)
        let tree = try bidi.call("browsingContext.getTree", ["maxDepth": 0], deadline: setup)
        guard let top = (tree["contexts"] as? [[String: Any]])?.first?["context"] as? String else {
            throw WebDriverBiDi.Failure.protocolError(method: "browsingContext.getTree", message: "no browsing context")
        }
        // Before any script of any document: the larger Resource Timing buffer and the LCP observer.
        _ = try bidi.call(
            "script.addPreloadScript", ["functionDeclaration": "() => {\n" + ChromiumPageRun.pageScript + "\n}"],
            deadline: setup)
        try slowDown?()
        if context.visualMetrics {
            // Screenshots from the blank page on (the first shows what was there at navigation start).
            let c = ScreenshotCadence(bidi: bidi, context: top)
            capture = c
            try c.warmUp(deadline: Instant.now() + .seconds(5))
            c.start()
        }
        if let d = deterministicJS {
            // Added last, just before navigating: the page's clock reads the recording's start then.
            _ = try bidi.call(
                "script.addPreloadScript",
                [
                    "functionDeclaration": "() => {\n"
                        + d.source(navigationMs: Date().timeIntervalSince1970 * 1000) + "\n}"
                ], deadline: setup)
        }
        let deadline = Instant.now() + context.timeout
        capture?.frames.navigationAsked()
        do {
            _ = try bidi.call(
                "browsingContext.navigate", ["context": top, "url": url, "wait": "complete"], deadline: deadline)
            tracker.loaded()
        } catch WebDriverBiDi.Failure.timedOut {
            return .failed("timed out after \(Units.format(context.timeout.inMilliseconds / 1000, 1)) s loading \(url)")
        } catch WebDriverBiDi.Failure.protocolError(_, let message) {
            return .failed("navigation to \(url) failed: \(message)" + Self.hint(message))
        }
        do {
            try tracker.completion.wait(until: deadline, isTimeout: WebDriverBiDi.Failure.isTimeout) {
                try bidi.run(until: $0, "loading the page") { tracker.isComplete || tracker.failure != nil }
            }
        } catch WebDriverBiDi.Failure.timedOut {
            return .failed(
                "timed out after \(Units.format(context.timeout.inMilliseconds / 1000, 1)) s: "
                    + tracker.pendingSummary(urls: urls))
        }
        if let f = tracker.failure { return .failed(f) }
        // As for Chromium: wait until the page reports no new LCP candidate (at most 2 s).
        _ = try? bidi.call(
            "script.evaluate",
            ["expression": ChromiumPageRun.settleExpression, "target": ["context": top], "awaitPromise": true],
            deadline: Instant.now() + .seconds(3))
        try capture?.finalFrame(deadline: Instant.now() + .seconds(10))
        var frames = try collectTimings(bidi, top: top, tracker: tracker)
        if let more = tracker.missingEntries(frames) { frames.append(more) }
        var report = BrowserReport(frames: frames, responses: [:])
        report.byMethod = tracker.methodEntries(frames)
        return .loaded(report)
    }

    /// Resource Timing of the page and of each iframe, read again for up to a second until every
    /// expected URL has an entry and the load event has ended.
    private func collectTimings(_ bidi: WebDriverBiDi, top: String, tracker: BiDiNetworkTracker) throws
        -> [BrowserReport.FrameTimings]
    {
        let deadline = Instant.now() + .seconds(1)
        while true {
            var frames = [try evaluateTimings(bidi, context: top)]
            let tree = try bidi.call("browsingContext.getTree", ["root": top], deadline: Instant.now() + .seconds(10))
            for child in Self.childContexts((tree["contexts"] as? [[String: Any]])?.first) {
                if let t = try? evaluateTimings(bidi, context: child) { frames.append(t) }
            }
            let expected = Set(tracker.neededKeys.map(ChromiumResults.urlKey))
            let seen = Set(frames.flatMap { $0.navigation + $0.resources }.map { ChromiumResults.key(url: $0.name) })
                .union(tracker.completed.keys.map(ChromiumResults.urlKey))
            let loadEnded = (frames[0].navigation.first?.loadEventEnd ?? 0) > 0
            if (expected.isSubset(of: seen) && loadEnded) || Instant.now() >= deadline { return frames }
            try? bidi.run(until: Instant.now() + .milliseconds(20), "") { false }
        }
    }

    private func evaluateTimings(_ bidi: WebDriverBiDi, context: String) throws -> BrowserReport.FrameTimings {
        let result = try bidi.call(
            "script.evaluate",
            [
                "expression": ChromiumPageRun.timingsExpression, "target": ["context": context],
                "awaitPromise": false,
            ], deadline: Instant.now() + .seconds(10))
        let value = try WebDriverBiDi.stringResult(result, method: "script.evaluate")
        do { return try JSONDecoder().decode(BrowserReport.FrameTimings.self, from: Data(value.utf8)) } catch {
            throw WebDriverBiDi.Failure.protocolError(
                method: "script.evaluate", message: "unexpected timings: \(error)")
        }
    }

    /// Speed Index and visually complete from the screenshots, on the page's clock; why not, when they
    /// cannot be computed (the run still counts).
    static func recordVisualMetrics(_ c: ScreenshotCadence, report: BrowserReport, into metrics: inout RunMetrics) {
        c.stop()
        if let f = c.failure {
            metrics.visualMetricsError = f
            return
        }
        guard let origin = report.frames.first?.timeOrigin else {
            metrics.visualMetricsError = "no time origin to place the frames on"
            return
        }
        switch c.frames.metrics(timeOrigin: origin) {
        case .success(let (m, n)):
            metrics.setVisual(m, frames: n, gapMs: c.longestGapMs)
        case .failure(let e): metrics.visualMetricsError = e.description
        }
    }

    /// The browser and every process under it into the quota's group (what they fork later is born there).
    static func adopt(_ pid: Int32, into quota: CPUQuotaGroup) throws {
        try quota.adopt(pid)
        for p in ProcessTree.descendants(of: pid) where ProcessTree.startTime(p.pid) == p.startTime {
            try? quota.adopt(p.pid)
        }
    }

    /// What to do about a navigation error a user can fix.
    static func hint(_ message: String) -> String {
        guard message.contains("MOZILLA_PKIX_ERROR_CA_CERT_USED_AS_END_ENTITY") else { return "" }
        return " (the server's certificate is a CA certificate, basicConstraints CA:TRUE as `openssl req -x509` "
            + "makes it by default; Firefox refuses one as a server's: add -addext basicConstraints=critical,CA:FALSE, "
            + "or serve a certificate signed by a CA given to --ca)"
    }

    static func childContexts(_ info: [String: Any]?) -> [String] {
        var out: [String] = []
        for child in info?["children"] as? [[String: Any]] ?? [] {
            if let id = child["context"] as? String { out.append(id) }
            out += childContexts(child)
        }
        return out
    }
}

/// Follows WebDriver BiDi's network events: which expected URLs completed, and the first expected
/// URL that failed.
final class BiDiNetworkTracker {
    /// Request key (`ChromiumResults.key(method:url:)`) → resource id.
    let expected: [String: String]
    /// URL keys the scenario requests with several methods (`methodEntries`).
    var byMethod = Set<String>()
    private(set) var finished = Set<String>()
    private(set) var failure: String?
    /// Request keys with a cancelled fetch (`NS_BINDING_ABORTED`) and no completed one yet.
    private(set) var aborted: [String: String] = [:]
    /// By request key, the first completed response as a Resource Timing entry with absolute times (ms
    /// since the epoch): what stands in for an entry the page's Resource Timing lacks.
    private(set) var completed: [String: BrowserReport.TimingEntry] = [:]

    /// When the load is over (`PageCompletion`); on a real page only `rootKey` failing fails the run.
    let completion: PageCompletion
    let rootKey: String?
    private(set) var network = NetworkQuiet()
    private(set) var loadEventFired = false
    var now: () -> Instant = Instant.now

    init(expected: [String: String], completion: PageCompletion = .everyResource, rootKey: String? = nil) {
        self.expected = expected
        self.completion = completion
        self.rootKey = rootKey
    }

    /// The navigation's load event (`browsingContext.navigate` with `wait: complete` returned).
    func loaded() {
        loadEventFired = true
        network.moved(at: now())
    }

    /// The expected request keys that completed.
    var finishedExpected: Set<String> { Set(expected.keys).intersection(finished) }

    /// The keys whose timings the run needs: every expected one on a synthetic page, the completed
    /// ones on a real page (which decides itself what it loads).
    var neededKeys: Set<String> { completion.isRealPage ? finishedExpected : Set(expected.keys) }

    /// The entries of expected URLs that none of `frames` holds, on the top frame's clock, as one
    /// more frame. Firefox gives no Resource Timing entry to an image a stylesheet loads as a
    /// `mask-image` (the rendered pages' CSS-initiated images), and lists a cross-origin iframe's
    /// document with no body size; its network event has the times (request sent, first and last
    /// byte), the protocol, status and body size. (`ChromiumResults` keeps an entry with a body
    /// over one without.)
    func missingEntries(_ frames: [BrowserReport.FrameTimings]) -> BrowserReport.FrameTimings? {
        guard let top = frames.first else { return nil }
        let seen = Set(
            frames.flatMap { $0.navigation + $0.resources }.filter { ($0.encodedBodySize ?? 0) > 0 }
                .map { ChromiumResults.key(url: $0.name) })
        var out: [BrowserReport.TimingEntry] = []
        for key in neededKeys.sorted() where !seen.contains(ChromiumResults.urlKey(key)) {
            guard let e = completed[key] else { continue }
            out.append(Self.onPageClock(e, timeOrigin: top.timeOrigin))
        }
        guard !out.isEmpty else { return nil }
        return BrowserReport.FrameTimings(timeOrigin: top.timeOrigin, navigation: [], resources: out)
    }

    /// The network events' entries of the URLs requested with several methods, by request key, on the top
    /// frame's clock: BiDi's `request.method` tells a GET and a POST of one URL apart, Resource Timing cannot.
    func methodEntries(_ frames: [BrowserReport.FrameTimings]) -> [String: BrowserReport.TimingEntry] {
        guard let top = frames.first else { return [:] }
        var out: [String: BrowserReport.TimingEntry] = [:]
        for (key, e) in completed where byMethod.contains(ChromiumResults.urlKey(key)) {
            out[key] = Self.onPageClock(e, timeOrigin: top.timeOrigin)
        }
        return out
    }

    /// An entry of `completed` (ms since the epoch) in ms from `timeOrigin`.
    static func onPageClock(_ entry: BrowserReport.TimingEntry, timeOrigin: Double) -> BrowserReport.TimingEntry {
        var e = entry
        func page(_ v: Double?) -> Double? { v.map { $0 - timeOrigin } }
        e.startTime -= timeOrigin
        e.requestStart = page(e.requestStart)
        e.responseStart = page(e.responseStart)
        e.responseEnd = page(e.responseEnd)
        return e
    }

    /// network.responseCompleted's request timings (ms since the epoch; 0 when not reached) and response.
    static func entry(url: String, _ params: [String: Any]) -> BrowserReport.TimingEntry? {
        let request = params["request"] as? [String: Any]
        let response = params["response"] as? [String: Any]
        let timings = request?["timings"] as? [String: Any] ?? [:]
        func t(_ name: String) -> Double? {
            guard let v = (timings[name] as? NSNumber)?.doubleValue, v > 0 else { return nil }
            return v
        }
        guard let start = t("requestTime") ?? t("fetchStart") ?? t("requestStart") else { return nil }
        return BrowserReport.TimingEntry(
            name: url, startTime: start, requestStart: t("requestStart"), responseStart: t("responseStart"),
            responseEnd: t("responseEnd"), encodedBodySize: (response?["bodySize"] as? NSNumber)?.int64Value,
            nextHopProtocol: response?["protocol"] as? String, responseStatus: response?["status"] as? Int)
    }

    /// By `completion`: every expected URL loaded, or (a real page) the load event and then network quiet.
    var isComplete: Bool {
        switch completion {
        case .everyResource: return expected.keys.allSatisfy(finished.contains)
        case .networkQuiet(let period): return loadEventFired && network.isQuiet(for: period, at: now())
        }
    }

    func handle(_ e: WebDriverBiDi.Event) {
        let request = e.params["request"] as? [String: Any]
        guard let url = request?["url"] as? String else { return }
        let key = ChromiumResults.key(method: request?["method"] as? String ?? "GET", url: url)
        // Network quiet follows the page's HTTP(S) requests by id (a redirect keeps its id).
        let id = request?["request"] as? String
        let http = url.hasPrefix("https:") || url.hasPrefix("http:")
        switch e.method {
        case "network.beforeRequestSent":
            if let id, http { network.started(id, at: now()) }
        case "network.responseCompleted":
            if let id { network.ended(id, at: now()) }
            finished.insert(key)
            if completed[key] == nil { completed[key] = Self.entry(url: url, e.params) }
        case "network.fetchError":
            if let id { network.ended(id, at: now()) }
            // A real page decides what it loads: only its own document failing fails the run.
            if completion.isRealPage && key != rootKey { return }
            guard let id = expected[key], !finished.contains(key), failure == nil else { return }
            let text = e.params["errorText"] as? String ?? "failed"
            // Firefox cancels a speculative load (its HTML preloader's) that the page's own request
            // replaces, as NS_BINDING_ABORTED, while that request goes on: not a failure unless the
            // resource never completes (`pendingSummary` names it then).
            if text == "NS_BINDING_ABORTED" {
                aborted[key] = aborted[key] ?? text
                return
            }
            failure = "\(id) (\(url)): \(text)"
        default:
            break
        }
    }

    func pendingSummary(urls: [String: String]) -> String {
        if completion.isRealPage { return network.pendingSummary(loadEventFired: loadEventFired, completion) }
        let missing = expected.filter { !finished.contains($0.key) }
            .map { entry -> String in aborted[entry.key].map { "\(entry.value) (\($0))" } ?? entry.value }.sorted()
        if missing.isEmpty { return "the load event never fired" }
        return "\(missing.count) of \(urls.count) resources not loaded "
            + "(\(missing.prefix(5).joined(separator: ", "))\(missing.count > 5 ? ", …" : ""))"
    }
}
