import Foundation
import BenchCore
import BenchModel
import Runner
import SystemIO
import Transport
import Replay
import Testbed
import TLS

/// One page load by a real browser: a fresh headless Chromium (fresh profile: a cold first view)
/// navigates to the scenario's root document on the replay server, which serves it real pages
/// (`PageRenderer`); DevTools reports the load event, every response and, at the end, the
/// Resource Timing entries, which become the run's records (`ChromiumResults`).
///
/// The browser is stopped (and killed if it does not exit at once) when the run ends, times out or
/// is interrupted.
struct ChromiumPageRun: PageLoad {
    var context: PageLoadContext
    /// The replay server of this scenario: its address and the port of its TCP and UDP listeners.
    var server: Endpoint
    var executable: String

    var scenario: Scenario { context.scenario }
    var transport: TransportKind { context.transport }
    var credentials: RunCredentials { context.credentials }
    var clientNamespace: String? { context.clientNamespace }
    var timeout: Nanoseconds { context.timeout }
    /// Capture the frames the page paints (a filmstrip run: never a measured one, capturing costs CPU).
    var screencast: Bool { context.screencast }
    /// Capture the frames it paints as PNG during this measured run, for Speed Index (`--visual-metrics`).
    var visualMetrics: Bool { context.visualMetrics }

    /// A recorded page's deterministic `Date` and `Math.random`; nil: a synthetic page or turned off.
    var deterministicJS: DeterministicJS? {
        DeterministicJS.forRun(
            scenario: scenario, completion: PageCompletion.rule(for: scenario), seed: context.deterministicJSSeed)
    }

    /// Startup (launch, first target, session) gets its own allowance, outside the page's limit.
    static let setupAllowance: Nanoseconds = .seconds(30)

    func execute(register: (StopFlag?) -> Void = { _ in }) throws -> PageLoadOutcome {
        guard scenario.bulk == nil else {
            return Self.failed("bulk transfers are measured with the built-in client only (--client builtin)")
        }
        guard let root = scenario.root else { return Self.failed("scenario has no root document") }
        let (urls, served, decoded) = Self.pageURLs(scenario, port: server.port)
        let completion = PageCompletion.rule(for: scenario)
        var flags = ChromiumFlags(
            transport: transport, hosts: scenario.origins.map(\.host), serverAddress: Self.dottedQuad(server.address),
            port: server.port, publicKeyPins: try Self.pins(credentials))
        flags.anyPort = completion.isRealPage

        let loop = try EventLoop()
        register(loop.stopper)
        defer { register(nil) }
        let browser = try ChromiumBrowser(
            executable: executable, arguments: flags.arguments, namespace: clientNamespace)
        var grace: Nanoseconds = 0
        defer { browser.stop(grace: grace) }
        let devtools = try DevToolsPipe(loop: loop, answers: browser.answers, commands: browser.commands)
        defer { devtools.close() }
        let tracker = NetworkTracker(
            expected: ChromiumResults.expectedKeys(scenario, urls: urls), completion: completion,
            rootKey: ChromiumResults.key(url: urls[root.id]!))
        tracker.byMethod = ChromiumResults.ambiguousURLKeys(scenario, urls: urls)
        let film = ScreencastFrames()
        devtools.onEvent = { e in
            tracker.handle(e)
            if e.method == "Page.screencastFrame" { film.handle(e, devtools) }
        }

        let report: BrowserReport
        do {
            switch try load(devtools, tracker: tracker, film: film, url: urls[root.id]!, urls: urls) {
            case .failed(let why): return Self.failed(why)
            case .loaded(let r): report = r
            }
            grace = .seconds(2)
            _ = try? devtools.send("Browser.close")
        } catch DevToolsPipe.Failure.interrupted {
            return Self.failed("interrupted")
        } catch let f as DevToolsPipe.Failure {
            let tail = browser.errorTail
            return Self.failed("Chromium: \(f)" + (tail.isEmpty ? "" : " — \(tail)"))
        }
        var results = ChromiumResults(scenario: scenario, transport: transport, urls: urls, servedBytes: served)
        results.servedDecodedBytes = decoded
        results.completion = completion
        let r = results.records(report)
        var outcome = PageLoadOutcome(
            requests: r.requests, connections: r.connections, metrics: r.metrics, failure: r.failure)
        if !r.notRequested.isEmpty { outcome.notRequested = r.notRequested }
        if screencast, let origin = report.frames.first?.timeOrigin { outcome.frames = film.frames(timeOrigin: origin) }
        if visualMetrics { Self.recordVisualMetrics(film, report: report, into: &outcome.metrics) }
        if let n = context.cpuSlowdown { outcome.cpuSlowdown = Self.slowdownRecord(n) }
        outcome.deterministicJS = deterministicJS?.record(dateStart: scenario.recordedAt)
        outcome.metrics.mainThreadTaskMs = report.mainThread?.taskMs
        outcome.metrics.mainThreadScriptMs = report.mainThread?.scriptMs
        outcome.metrics.mainThreadStyleLayoutMs = report.mainThread?.styleLayoutMs
        return outcome
    }

    private enum PageResult {
        case loaded(BrowserReport)
        case failed(String)
    }

    /// Opens a tab, starts the screencast if asked, navigates to `url` and waits until the page and
    /// every expected resource loaded (or the page's time limit passed); then reads the timings.
    private func load(
        _ devtools: DevToolsPipe, tracker: NetworkTracker, film: ScreencastFrames, url: String,
        urls: [String: String]
    ) throws -> PageResult {
        let session = try openPage(devtools)
        tracker.session = session
        if let n = context.cpuSlowdown {
            _ = try devtools.call(
                "Emulation.setCPUThrottlingRate", ["rate": n], session: session,
                deadline: Instant.now() + Self.setupAllowance)
        }
        if screencast || visualMetrics {
            // Visual metrics compare colour histograms: lossless PNG, at the size WebPageTest's frames have.
            _ = try devtools.call(
                "Page.startScreencast",
                visualMetrics
                    ? ["format": "png", "maxWidth": 400, "maxHeight": 400]
                    : ["format": "jpeg", "quality": 50, "maxWidth": 400, "maxHeight": 300],
                session: session, deadline: Instant.now() + Self.setupAllowance)
            // The strip starts with what showed before navigation (the blank tab): wait for that first
            // frame, or a fast page's first paint can be the first frame the browser sends.
            do {
                try devtools.run(until: Instant.now() + .seconds(5), "the blank tab's first frame") { film.count > 0 }
            } catch DevToolsPipe.Failure.timedOut {}
        }
        if let d = deterministicJS {
            // Registered last, just before navigating: the page's clock reads the recording's start then.
            _ = try devtools.call(
                "Page.addScriptToEvaluateOnNewDocument",
                ["source": d.source(navigationMs: Date().timeIntervalSince1970 * 1000)], session: session,
                deadline: Instant.now() + Self.setupAllowance)
        }
        let deadline = Instant.now() + timeout
        film.navigationAsked()
        let navigation = try devtools.call("Page.navigate", ["url": url], session: session, deadline: deadline)
        if let e = navigation["errorText"] as? String, !e.isEmpty {
            return .failed("navigation to \(url) failed: \(e)")
        }
        do {
            try tracker.completion.wait(until: deadline, isTimeout: DevToolsPipe.Failure.isTimeout) {
                try devtools.run(until: $0, "loading the page") { tracker.isComplete || tracker.failure != nil }
            }
        } catch DevToolsPipe.Failure.timedOut {
            return .failed(
                "timed out after \(Units.format(timeout.inMilliseconds / 1000, 1)) s: "
                    + tracker.pendingSummary(urls: urls))
        }
        if let f = tracker.failure { return .failed(f) }
        let expected = tracker.completion.isRealPage ? tracker.finishedExpected : Set(tracker.expected.keys)
        var frames = try collectTimings(devtools, session: session, expected: Set(expected.map(ChromiumResults.urlKey)))
        if let top = frames.first {
            // What Resource Timing leaves out, from the network events: the fonts and images of a
            // stylesheet that a cross-origin one @imports (image-heavy's css-6: fetched without CORS, so
            // Chromium reports none of what it names) and, on a real page, an entry without a body
            // size (a cross-origin server without Timing-Allow-Origin, nginx by default).
            let seen = Set(
                frames.flatMap { $0.navigation + $0.resources }
                    .filter { !tracker.completion.isRealPage || ($0.encodedBodySize ?? 0) > 0 }
                    .map { ChromiumResults.key(url: $0.name) })
            let missing =
                tracker.completion.isRealPage
                ? expected.subtracting(seen) : expected.filter { !seen.contains(ChromiumResults.urlKey($0)) }
            let more = tracker.timings.entries(for: missing.sorted(), timeOrigin: top.timeOrigin)
            if !more.isEmpty { frames.append(.init(timeOrigin: top.timeOrigin, navigation: [], resources: more)) }
        }
        var report = BrowserReport(frames: frames, responses: tracker.responses)
        report.priorities = tracker.priorities
        if let top = frames.first {
            let keys = expected.filter { tracker.byMethod.contains(ChromiumResults.urlKey($0)) }
            report.byMethod = tracker.timings.entriesByKey(for: keys.sorted(), timeOrigin: top.timeOrigin)
        }
        report.mainThread = try? Self.mainThreadTimes(devtools, session: session)
        return .loaded(report)
    }

    /// A new tab with a DevTools session on it, with page and network events on.
    private func openPage(_ devtools: DevToolsPipe) throws -> String {
        let deadline = Instant.now() + Self.setupAllowance
        let target = try devtools.call("Target.createTarget", ["url": "about:blank"], deadline: deadline)
        guard let targetID = target["targetId"] as? String else {
            throw DevToolsPipe.Failure.protocolError(method: "Target.createTarget", message: "no targetId")
        }
        let attached = try devtools.call(
            "Target.attachToTarget", ["targetId": targetID, "flatten": true], deadline: deadline)
        guard let session = attached["sessionId"] as? String else {
            throw DevToolsPipe.Failure.protocolError(method: "Target.attachToTarget", message: "no sessionId")
        }
        _ = try devtools.call("Page.enable", session: session, deadline: deadline)
        _ = try devtools.call("Network.enable", session: session, deadline: deadline)
        // The main thread's task time (TaskDuration), read after the load.
        _ = try devtools.call("Performance.enable", session: session, deadline: deadline)
        // Resource Timing keeps 250 entries by default: large pages would lose the rest.
        _ = try devtools.call(
            "Page.addScriptToEvaluateOnNewDocument", ["source": Self.pageScript], session: session, deadline: deadline)
        return session
    }

    /// Run in every document before its own scripts: a larger Resource Timing buffer, and the
    /// browser's largest-contentful-paint candidates as it reports them (the last one is the LCP).
    static let pageScript = """
        performance.setResourceTimingBufferSize(100000);
        try { new PerformanceObserver(function (list) { var e = list.getEntries(); if (e.length) window.__netbenchLCP \
        = e[e.length - 1].startTime; })
          .observe({type: "largest-contentful-paint", buffered: true}); } catch (e) {}
        """

    /// Resolves once the page has reported no new largest-contentful-paint candidate for three
    /// frames in a row (about 150 ms; at most 1.5 s after the load).
    static let settleExpression = """
        new Promise(function (done) { var last = -1, quiet = 0, t0 = performance.now();
          function count() { try { var o = new PerformanceObserver(function () {});
            o.observe({type: "largest-contentful-paint", buffered: true}); var n = o.takeRecords().length; \
            o.disconnect(); return n; } catch (e) { return 0; } }
          function tick() { var n = count(); if (n === last) { quiet += 1; } else { quiet = 0; last = n; }
            if (quiet >= 3 || performance.now() - t0 > 1500) { done(); } else { requestAnimationFrame(function () { \
            setTimeout(tick, 50); }); } }
          setTimeout(done, 2000); tick(); })
        """

    static let timingsExpression = """
        JSON.stringify({timeOrigin: performance.timeOrigin,
          paint: performance.getEntriesByType("paint").map(function (e) { return {name: e.name, startTime: \
          e.startTime}; }),
          lcp: (function () { var v = window.__netbenchLCP;
            try { var o = new PerformanceObserver(function () {}); o.observe({type: "largest-contentful-paint", \
            buffered: true});
              var r = o.takeRecords(); o.disconnect(); if (r.length) v = r[r.length - 1].startTime; } catch (e) {}
            return (typeof v === "number") ? v : null; })(),
          navigation: performance.getEntriesByType("navigation").map(function (e) { return e.toJSON(); }),
          resources: performance.getEntriesByType("resource").map(function (e) { return e.toJSON(); })})
        """

    /// Resource Timing of the page and of each iframe (read in an isolated world of its own). An
    /// entry may be added a moment after the Network domain reported the load finished: read
    /// again, for up to a second, until every expected URL has one.
    private func collectTimings(_ devtools: DevToolsPipe, session: String, expected: Set<String>) throws
        -> [BrowserReport.FrameTimings]
    {
        // The page decodes and paints what arrived last (the image that ends the load) after the
        // load event, and only then reports its largest-contentful-paint entry: wait for it.
        _ = try? devtools.call(
            "Runtime.evaluate", ["expression": Self.settleExpression, "awaitPromise": true], session: session,
            deadline: Instant.now() + .seconds(3))
        let deadline = Instant.now() + .seconds(1)
        while true {
            var frames = [try evaluateTimings(devtools, session: session, context: nil)]
            let tree = try devtools.call(
                "Page.getFrameTree", session: session, deadline: Instant.now() + Self.setupAllowance)
            for frameID in Self.childFrames(tree["frameTree"] as? [String: Any]) {
                let world = try devtools.call(
                    "Page.createIsolatedWorld", ["frameId": frameID, "worldName": "netbench"], session: session,
                    deadline: Instant.now() + Self.setupAllowance)
                if let context = world["executionContextId"] as? Int {
                    frames.append(try evaluateTimings(devtools, session: session, context: context))
                }
            }
            let seen = Set(frames.flatMap { $0.navigation + $0.resources }.map { ChromiumResults.key(url: $0.name) })
            if expected.isSubset(of: seen) || Instant.now() >= deadline { return frames }
            try? devtools.run(until: Instant.now() + .milliseconds(20), "") { false }
        }
    }

    private func evaluateTimings(_ devtools: DevToolsPipe, session: String, context: Int?) throws
        -> BrowserReport.FrameTimings
    {
        var params: [String: Any] = ["expression": Self.timingsExpression, "returnByValue": true]
        if let context { params["contextId"] = context }
        let answer = try devtools.call(
            "Runtime.evaluate", params, session: session, deadline: Instant.now() + Self.setupAllowance)
        guard let value = (answer["result"] as? [String: Any])?["value"] as? String else {
            let why = (answer["exceptionDetails"] as? [String: Any])?["text"] as? String ?? "no value"
            throw DevToolsPipe.Failure.protocolError(method: "Runtime.evaluate", message: why)
        }
        do { return try JSONDecoder().decode(BrowserReport.FrameTimings.self, from: Data(value.utf8)) } catch {
            throw DevToolsPipe.Failure.protocolError(
                method: "Runtime.evaluate", message: "unexpected timings: \(error)")
        }
    }

    static func childFrames(_ tree: [String: Any]?) -> [String] {
        var out: [String] = []
        for child in tree?["childFrames"] as? [[String: Any]] ?? [] {
            if let id = (child["frame"] as? [String: Any])?["id"] as? String { out.append(id) }
            out += childFrames(child)
        }
        return out
    }

    static func failed(_ why: String) -> PageLoadOutcome { .failed(why) }

    /// By resource id: the URL a browser asks for on the server at `port`, the body size it gets and,
    /// for a recorded body the server sends content-encoded, its decoded size.
    static func pageURLs(_ scenario: Scenario, port: UInt16) -> (
        urls: [String: String], served: [String: Int64], decoded: [String: Int64]
    ) {
        let renderer = PageRenderer(scenario: scenario, port: port)
        var urls: [String: String] = [:], served: [String: Int64] = [:], decoded: [String: Int64] = [:]
        for r in scenario.resources {
            urls[r.id] = renderer.url(of: r)
            served[r.id] = renderer.servedBytes(of: r)
            if let encoding = r.body?.contentEncoding, let body = scenario.recordedBody(of: r),
                let n = ContentDecoding.decodedLength(of: body, encoding: encoding)
            {
                decoded[r.id] = Int64(n)
            }
        }
        return (urls, served, decoded)
    }

    /// Whom the browser trusts, by public key: the run's server identities; for `run --server`
    /// (no identities) every certificate of --ca; with the system store, nothing more than its own.
    static func pins(_ c: RunCredentials) throws -> [String] {
        if !c.identities.isEmpty { return try c.identities.map { try $0.leafPublicKeySHA256Base64() } }
        if c.systemRoots || c.caPEM.isEmpty { return [] }
        return try PublicKeyPins.sha256Base64(everyCertificateIn: c.caPEM)
    }

    /// The page's main-thread time, ms: all its tasks, and the script and style-and-layout parts.
    struct MainThreadTimes: Equatable {
        var taskMs: Double?
        var scriptMs: Double?
        var styleLayoutMs: Double?
    }

    /// Performance.getMetrics' TaskDuration, ScriptDuration, RecalcStyleDuration + LayoutDuration
    /// (seconds since the page's process started), in ms; nil when it reports none of them.
    static func mainThreadTimes(_ devtools: DevToolsPipe, session: String) throws -> MainThreadTimes? {
        let r = try devtools.call("Performance.getMetrics", session: session, deadline: Instant.now() + .seconds(10))
        return mainThreadTimes(metrics: r["metrics"] as? [[String: Any]] ?? [])
    }

    static func mainThreadTimes(metrics: [[String: Any]]) -> MainThreadTimes? {
        func ms(_ name: String) -> Double? {
            (metrics.first { $0["name"] as? String == name }?["value"] as? NSNumber).map { $0.doubleValue * 1000 }
        }
        let style = ms("RecalcStyleDuration"), layout = ms("LayoutDuration")
        let t = MainThreadTimes(
            taskMs: ms("TaskDuration"), scriptMs: ms("ScriptDuration"),
            styleLayoutMs: style == nil && layout == nil ? nil : (style ?? 0) + (layout ?? 0))
        return t == MainThreadTimes() ? nil : t
    }

    /// `--cpu-slowdown N` as Chromium applies it: the page's renderer main thread throttled N times.
    static func slowdownRecord(_ n: Double) -> CPUSlowdownRecord {
        CPUSlowdownRecord(
            factor: n,
            mechanism: "DevTools Emulation.setCPUThrottlingRate \(n == n.rounded() ? String(Int(n)) : String(n)) "
                + "(the page's main thread)")
    }

    /// Speed Index and visually complete from the screencast's PNG frames, on the page's clock; why
    /// not, when they cannot be computed (the run still counts).
    static func recordVisualMetrics(_ film: ScreencastFrames, report: BrowserReport, into metrics: inout RunMetrics) {
        guard let origin = report.frames.first?.timeOrigin else {
            metrics.visualMetricsError = "no time origin to place the frames on"
            return
        }
        switch film.painted().metrics(timeOrigin: origin) {
        case .success(let (m, n)): metrics.setVisual(m, frames: n)
        case .failure(let e): metrics.visualMetricsError = e.description
        }
    }

    static func dottedQuad(_ a: UInt32) -> String { "\(a >> 24).\((a >> 16) & 255).\((a >> 8) & 255).\(a & 255)" }
}

/// Follows the Network domain's events of the page's session: which expected URLs finished,
/// what each response said (protocol, connection), and the first expected URL that failed.
final class NetworkTracker {
    /// URL key → resource id.
    let expected: [String: String]
    var session: String?
    private(set) var responses: [String: BrowserReport.NetworkResponse] = [:]
    /// The priority each request had when the browser made it, and the last it changed to, by key.
    private(set) var priorities: [String: BrowserReport.Priority] = [:]
    private(set) var finished = Set<String>()
    private(set) var failure: String?
    private(set) var loadEventFired = false
    /// Request id → its key (`ChromiumResults.key(method:url:)`) and URL.
    private var keyByRequest: [String: (key: String, url: String)] = [:]
    /// URL keys the scenario requests with several methods: the Network domain's timings are kept for them.
    var byMethod = Set<String>()
    /// When the load is over (`PageCompletion`); on a real page only `rootKey` failing fails the run.
    let completion: PageCompletion
    let rootKey: String?
    private(set) var network = NetworkQuiet()
    /// The Network domain's timings, for what Resource Timing leaves out on a real page.
    private(set) var timings = NetworkTimings()
    var now: () -> Instant = Instant.now

    init(expected: [String: String], completion: PageCompletion = .everyResource, rootKey: String? = nil) {
        self.expected = expected
        self.completion = completion
        self.rootKey = rootKey
    }

    /// The load event has fired and, by `completion`, every expected URL has loaded or the network
    /// has been quiet long enough.
    var isComplete: Bool {
        guard loadEventFired else { return false }
        switch completion {
        case .everyResource: return expected.keys.allSatisfy(finished.contains)
        case .networkQuiet(let period): return network.isQuiet(for: period, at: now())
        }
    }

    /// The expected URLs that finished loading.
    var finishedExpected: Set<String> { Set(expected.keys).intersection(finished) }

    func handle(_ e: DevToolsPipe.Event) {
        guard session == nil || e.sessionID == session else { return }
        let request = e.params["requestId"] as? String ?? ""
        timings.handle(method: e.method, params: e.params)
        switch e.method {
        case "Page.loadEventFired":
            loadEventFired = true
            network.moved(at: now())
        case "Network.requestWillBeSent":
            let r = e.params["request"] as? [String: Any]
            if let url = r?["url"] as? String {
                let key = ChromiumResults.key(method: r?["method"] as? String ?? "GET", url: url)
                keyByRequest[request] = (key, url)
                if priorities[key] == nil,
                    let p = (r?["initialPriority"] as? String).flatMap(RequestPriority.init(devTools:))
                {
                    priorities[key] = BrowserReport.Priority(initial: p)
                }
                // A stream that never ends (EventSource) would keep a page from ever being quiet.
                if e.params["type"] as? String != "EventSource" { network.started(request, at: now()) }
            }
        case "Network.responseReceived":
            guard let key = keyByRequest[request]?.key, let r = e.params["response"] as? [String: Any] else { return }
            var n = BrowserReport.NetworkResponse()
            n.protocolName = r["protocol"] as? String
            n.connectionID = (r["connectionId"] as? NSNumber)?.intValue
            n.connectionReused = r["connectionReused"] as? Bool
            if let ip = r["remoteIPAddress"] as? String {
                n.remoteAddress = ip + ((r["remotePort"] as? Int).map { ":\($0)" } ?? "")
            }
            n.tlsVersion = (r["securityDetails"] as? [String: Any])?["protocol"] as? String
            n.status = r["status"] as? Int
            if responses[key] == nil { responses[key] = n }
        case "Network.resourceChangedPriority":
            if let key = keyByRequest[request]?.key, !finished.contains(key),
                let p = (e.params["newPriority"] as? String).flatMap(RequestPriority.init(devTools:))
            {
                priorities[key]?.changed = p
            }
        case "Network.loadingFinished":
            if let key = keyByRequest[request]?.key { finished.insert(key) }
            network.ended(request, at: now())
        case "Network.loadingFailed":
            network.ended(request, at: now())
            guard let (key, url) = keyByRequest[request], let id = expected[key], !finished.contains(key),
                failure == nil
            else { return }
            if completion.isRealPage && key != rootKey { return }
            let method = key == ChromiumResults.urlKey(key) ? "" : String(key.prefix { $0 != " " }) + " "
            failure =
                "\(id) (\(method)\(url)): \(e.params["errorText"] as? String ?? "failed")"
                + (e.params["canceled"] as? Bool == true ? " (canceled)" : "")
        default:
            break
        }
    }

    /// What the page was still waiting for.
    func pendingSummary(urls: [String: String]) -> String {
        if completion.isRealPage { return network.pendingSummary(loadEventFired: loadEventFired, completion) }
        let missing = expected.filter { !finished.contains($0.key) }.map(\.value).sorted()
        if missing.isEmpty { return "the load event never fired" }
        return
            "\(missing.count) of \(urls.count) resources not loaded "
                + "(\(missing.prefix(5).joined(separator: ", "))\(missing.count > 5 ? ", …" : ""))"
            + (loadEventFired ? "" : "; no load event")
    }
}

/// The frames of `Page.startScreencast` as they come (each acknowledged, or the browser stops
/// sending), placed on the page's clock afterwards.
final class ScreencastFrames {
    /// Base64 JPEG (filmstrip) or PNG (visual metrics), as asked in `Page.startScreencast`.
    private var captured: [(epochSeconds: Double, image: String)] = []
    /// How many frames had arrived when `Page.navigate` was sent (they showed before navigation start).
    private var arrivedBeforeNavigation = 0
    var count: Int { captured.count }

    func navigationAsked() { arrivedBeforeNavigation = captured.count }

    func handle(_ e: DevToolsPipe.Event, _ devtools: DevToolsPipe) {
        guard let data = e.params["data"] as? String else { return }
        if let id = e.params["sessionId"] as? Int {
            _ = try? devtools.send("Page.screencastFrameAck", ["sessionId": id], session: e.sessionID)
        }
        guard let t = (e.params["metadata"] as? [String: Any])?["timestamp"] as? Double else { return }
        captured.append((t, data))
    }

    /// The frames for visual metrics (the screencast sent PNG).
    func painted() -> PaintedFrames {
        let out = PaintedFrames()
        for c in captured { out.add(epochMs: c.epochSeconds * 1000, base64PNG: c.image) }
        out.navigationAsked(afterFrames: arrivedBeforeNavigation)
        return out
    }

    /// Ms from navigation start (`timeOrigin`, ms since the epoch); what showed before it at 0.
    func frames(timeOrigin: Double) -> [FilmstripRecord.Frame] {
        var out: [FilmstripRecord.Frame] = []
        for c in captured.sorted(by: { $0.epochSeconds < $1.epochSeconds }) {
            let ms = max(0, (c.epochSeconds * 1000 - timeOrigin).rounded())
            if let last = out.last, last.ms == ms {
                out[out.count - 1] = FilmstripRecord.Frame(ms: ms, jpeg: c.image)
            } else {
                out.append(FilmstripRecord.Frame(ms: ms, jpeg: c.image))
            }
        }
        return out
    }
}
