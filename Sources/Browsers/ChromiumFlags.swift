import BenchCore
import BenchModel
import Testbed
import Runner

/// The command line of one run's browser: headless, quiet (no background traffic of its own),
/// trusting the run's certificates by their public keys, every origin host mapped to the replay
/// server, and held to the run's protocol — QUIC forced for h3; no QUIC (and for h1 no HTTP/2)
/// otherwise. `--user-data-dir` and the DevTools pipe are added by `ChromiumBrowser`.
struct ChromiumFlags {
    var transport: TransportKind
    /// The scenario's origin host names.
    var hosts: [String]
    /// The replay server's address (dotted quad) and port (the same for TCP and UDP).
    var serverAddress: String
    var port: UInt16
    /// base64 SHA-256 of each leaf's SubjectPublicKeyInfo.
    var publicKeyPins: [String]
    /// A real page's URLs keep the recorded ports (443 mostly): every port of an origin host goes to
    /// the replay server's, and QUIC is forced on every origin.
    var anyPort = false

    var arguments: [String] {
        var a = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-default-apps",
            "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-breakpad",
            "--disable-domain-reliability", "--metrics-recording-only", "--mute-audio", "--password-store=basic",
            // A page in the background must not be throttled: headless has no window in front.
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            "--disable-backgrounding-occluded-windows",
            // Cross-origin iframes stay in the page's process, where one DevTools session sees them.
            "--disable-site-isolation-trials",
            "--disable-features=IsolateOrigins,site-per-process,Translate,OptimizationHints,MediaRouter",
            "--ignore-certificate-errors-spki-list=" + publicKeyPins.joined(separator: ","),
            // Every origin to the replay server; nothing else resolves.
            "--host-resolver-rules="
                + (unique(hosts).map { "MAP \($0) \(serverAddress)\(anyPort ? ":\(port)" : "")" } + ["MAP * ~NOTFOUND"])
                .joined(separator: ", "),
        ]
        switch transport {
        case .h1: a += ["--disable-quic", "--disable-http2"]
        case .h2: a += ["--disable-quic"]
        case .h3:
            a += [
                "--enable-quic",
                // A real page names its origins with any port: QUIC for all (only its hosts resolve).
                "--origin-to-force-quic-on="
                    + (anyPort ? "*" : unique(hosts).map { "\($0):\(port)" }.joined(separator: ",")),
            ]
        }
        return a
    }

    private func unique(_ xs: [String]) -> [String] {
        var seen = Set<String>()
        return xs.map { $0.lowercased() }.filter { seen.insert($0).inserted }
    }
}
