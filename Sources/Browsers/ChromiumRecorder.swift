import Foundation
import BenchCore
import SystemIO
import Transport

/// `netbench record`: a fresh headless Chromium loads one URL while DevTools' Network domain
/// reports every request; once the load event fired and the network stayed quiet (the rule a real
/// page's replay ends by, `PageCompletion`), each response's body is read with
/// `Network.getResponseBody`, and the whole becomes a HAR log with content (`DevToolsRecording`).
public enum ChromiumRecorder {
    public struct Settings: Sendable {
        /// `host → address[:port]`: where a host name goes instead of DNS (Chromium's host resolver
        /// rules); other names resolve as usual.
        public var resolve: [(host: String, target: String)] = []
        /// Accept any certificate (a local site's own CA); QUIC is then off (Chromium refuses it).
        public var insecure = false
        public var timeout: Nanoseconds = .seconds(30)
        public var quiet: Nanoseconds = PageCompletion.quietPeriod
        public var version = "dev"
        /// The network namespace Chromium runs in (`record --profile`: the emulated client's); nil: this one.
        public var namespace: String?
        public init() {}
    }

    /// A page that could not be recorded: its URL could not be reached or loaded.
    public struct Unreachable: Error, CustomStringConvertible {
        public var url: String
        public var reason: String
        public var description: String { "\(url): \(reason)" }
    }

    /// One recorded page: the HAR log (JSON) and the requests that failed during the load.
    public struct Recording {
        public var har: Data
        public var failedRequests: [String]
        public var requests: Int
    }

    public static func locate() -> String? { ChromiumBrowser.locate() }
    public static var installHint: String { ChromiumBrowser.installHint }

    static func arguments(_ s: Settings) -> [String] {
        var a = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-breakpad", "--mute-audio",
            "--password-store=basic", "--disable-features=Translate,OptimizationHints,MediaRouter",
        ]
        if !s.resolve.isEmpty {
            a.append("--host-resolver-rules=" + s.resolve.map { "MAP \($0.host) \($0.target)" }.joined(separator: ", "))
        }
        if s.insecure { a += ["--ignore-certificate-errors", "--disable-quic"] }
        return a
    }

    /// Loads `url` and returns its recording; throws `Unreachable` when the page itself failed.
    public static func record(url: String, executable: String, settings: Settings) throws -> Recording {
        let loop = try EventLoop()
        let browser = try ChromiumBrowser(
            executable: executable, arguments: arguments(settings), namespace: settings.namespace)
        var grace: Nanoseconds = 0
        defer { browser.stop(grace: grace) }
        let devtools = try DevToolsPipe(loop: loop, answers: browser.answers, commands: browser.commands)
        defer { devtools.close() }
        var recording = DevToolsRecording()
        var quiet = NetworkQuiet()
        var loadEvent = false
        var session: String?
        devtools.onEvent = { e in
            guard session == nil || e.sessionID == session else { return }
            recording.handle(method: e.method, params: e.params)
            let id = e.params["requestId"] as? String ?? ""
            switch e.method {
            case "Network.requestWillBeSent": quiet.started(id, at: .now())
            case "Network.loadingFinished", "Network.loadingFailed": quiet.ended(id, at: .now())
            case "Page.loadEventFired":
                loadEvent = true
                quiet.moved(at: .now())
            default: break
            }
        }
        do {
            let setup = Instant.now() + .seconds(30)
            let target = try devtools.call("Target.createTarget", ["url": "about:blank"], deadline: setup)
            let attached = try devtools.call(
                "Target.attachToTarget", ["targetId": target["targetId"] as? String ?? "", "flatten": true],
                deadline: setup)
            session = attached["sessionId"] as? String
            _ = try devtools.call("Page.enable", session: session, deadline: setup)
            // Bodies stay in the browser until asked for: room for a large page's.
            _ = try devtools.call(
                "Network.enable", ["maxTotalBufferSize": 400_000_000, "maxResourceBufferSize": 100_000_000],
                session: session, deadline: setup)
            _ = try devtools.call(
                "Network.setCacheDisabled", ["cacheDisabled": true], session: session, deadline: setup)
            let deadline = Instant.now() + settings.timeout
            let nav = try devtools.call("Page.navigate", ["url": url], session: session, deadline: deadline)
            if let e = nav["errorText"] as? String, !e.isEmpty { throw Unreachable(url: url, reason: e) }
            try PageCompletion.networkQuiet(settings.quiet).wait(
                until: deadline, isTimeout: DevToolsPipe.Failure.isTimeout
            ) {
                try devtools.run(until: $0, "loading the page") {
                    loadEvent && quiet.isQuiet(for: settings.quiet, at: .now())
                }
            }
            for id in recording.postDataRequests {
                let posted = try? devtools.call(
                    "Network.getRequestPostData", ["requestId": id], session: session,
                    deadline: Instant.now() + .seconds(10))
                if let text = posted?["postData"] as? String { recording.setPostData(requestID: id, text: text) }
            }
            for id in recording.bodyRequests {
                let body = try? devtools.call(
                    "Network.getResponseBody", ["requestId": id], session: session,
                    deadline: Instant.now() + .seconds(10))
                if let b = body?["body"] as? String {
                    recording.setBody(requestID: id, body: b, base64Encoded: body?["base64Encoded"] as? Bool ?? false)
                }
            }
            grace = .seconds(2)
            _ = try? devtools.send("Browser.close")
        } catch DevToolsPipe.Failure.timedOut(let what) {
            let seconds = Units.format(settings.timeout.inMilliseconds / 1000, 1)
            throw Unreachable(url: url, reason: "timed out \(what) after \(seconds) s")
        } catch let f as DevToolsPipe.Failure {
            throw Unreachable(url: url, reason: "Chromium: \(f)")
        }
        let har = recording.har(pageURL: url, creatorVersion: settings.version)
        let data = try JSONSerialization.data(withJSONObject: har, options: [.sortedKeys])
        return Recording(
            har: data, failedRequests: recording.failures.map { "\($0.url): \($0.error)" },
            requests: recording.exchanges.count)
    }
}
