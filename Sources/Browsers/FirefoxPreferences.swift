import BenchCore
import BenchModel

/// The preferences (user.js) of one run's Firefox profile: every host name resolved to the replay
/// server (netbench's own, or `run --server`'s), nothing fetched but the page (no telemetry, updates,
/// OCSP, captive-portal or connectivity checks, prefetch or speculative connections), and the run's
/// protocol forced.
/// `run --help` lists them (`FirefoxPreferences.documentation`).
struct FirefoxPreferences {
    var transport: TransportKind
    /// The scenario's origin host names.
    var hosts: [String]
    /// The replay server's address (dotted quad) and port (the same for TCP and UDP; `--server`'s).
    var serverAddress: String
    var port: UInt16
    /// A real page's URLs keep the recorded ports (443 mostly): every port goes to `port`
    /// (`network.socket.forcePort`), as Chromium's host-resolver rule maps every port of an origin host.
    var anyPort = false

    enum Value: Equatable {
        case bool(Bool)
        case int(Int)
        case string(String)
    }

    /// Name → value, in a stable order.
    var values: [(String, Value)] {
        var p: [(String, Value)] = [
            // Name resolution: every name to the replay server, no DNS over HTTPS, IPv4 only.
            ("network.dns.forceResolve", .string(serverAddress)),
            ("network.trr.mode", .int(5)),
            ("network.dns.disableIPv6", .bool(true)),
            ("network.proxy.type", .int(0)),
            // No traffic of the browser's own on the measured link (each would also reach the server).
            ("network.captive-portal-service.enabled", .bool(false)),
            ("network.connectivity-service.enabled", .bool(false)),
            ("security.OCSP.enabled", .int(0)),
            ("security.remote_settings.crlite_filters.enabled", .bool(false)),
            ("toolkit.telemetry.enabled", .bool(false)),
            ("datareporting.policy.dataSubmissionEnabled", .bool(false)),
            ("app.update.disabledForTesting", .bool(true)),
            ("browser.safebrowsing.malware.enabled", .bool(false)),
            ("browser.safebrowsing.phishing.enabled", .bool(false)),
            // A cold first view that loads only what the page asks for.
            ("network.prefetch-next", .bool(false)),
            ("network.predictor.enabled", .bool(false)),
            ("network.dns.disablePrefetch", .bool(true)),
            ("network.http.speculative-parallel-limit", .int(0)),
            ("browser.cache.disk.enable", .bool(false)),
            // The run's CA (or --ca) is in the profile's NSS database; HTTP/3 must not be turned off for it.
            ("network.http.http3.disable_when_third_party_roots_found", .bool(false)),
            ("browser.shell.checkDefaultBrowser", .bool(false)),
        ]
        if anyPort { p.append(("network.socket.forcePort", .string("1-65535=\(port)"))) }
        switch transport {
        case .h1:
            p += [("network.http.http2.enabled", .bool(false)), ("network.http.http3.enable", .bool(false))]
        case .h2:
            p += [("network.http.http2.enabled", .bool(true)), ("network.http.http3.enable", .bool(false))]
        case .h3:
            // HTTP/3 from the first request: as if each origin had advertised Alt-Svc h3 on its port.
            let mapping = unique(hosts).map { "\($0);h3=:\(port)" }.joined(separator: ",")
            p += [
                ("network.http.http3.enable", .bool(true)),
                ("network.http.http3.alt-svc-mapping-for-testing", .string(mapping)),
                ("network.http.http3.force-use-alt-svc-mapping-for-testing", .bool(true)),
                // Firefox races a TCP connection against a QUIC handshake not done in 100 ms; over 4G's
                // RTT the TCP one wins and an origin's first loads go over HTTP/1.1 or HTTP/2. Held to
                // h3 for the whole run, as Chromium's --origin-to-force-quic-on holds it (no race).
                ("network.http.http3.backup_timer_delay", .int(Self.noBackupConnectionMs)),
            ]
        }
        return p
    }

    var userJS: String {
        values.map { name, value in
            let v: String
            switch value {
            case .bool(let b): v = b ? "true" : "false"
            case .int(let i): v = String(i)
            case .string(let s): v = "\"" + s.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"") + "\""
            }
            return "user_pref(\"\(name)\", \(v));"
        }.joined(separator: "\n") + "\n"
    }

    /// For `run --help`: which preferences a run sets and why.
    static let documentation = """
        --client firefox: a fresh headless Firefox (firefox-esr ≥ 128: scripts/bootstrap.sh --firefox, or \
        NETBENCH_FIREFOX) per run in the client's namespace, driven over WebDriver BiDi (its remote agent's \
        WebSocket; netbench's own client), trusting the run's CA (with --server: every certificate of --ca; \
        without --ca, Firefox's own built-in roots) through an NSS database in its fresh profile (certutil, \
        libnss3-tools). Preferences (user.js): network.dns.forceResolve=<server> (every origin name to the \
        replay server, or to --server's address), network.trr.mode=5 and network.dns.disableIPv6 (no DNS over \
        HTTPS, IPv4), captive-portal, connectivity, OCSP, CRLite, telemetry, update and Safe Browsing checks off, \
        network.prefetch-next, network.predictor.enabled, network.dns.disablePrefetch off and \
        network.http.speculative-parallel-limit=0 (no traffic but the page's), browser.cache.disk.enable=false, \
        network.http.http3.disable_when_third_party_roots_found=false (the run's CA must not turn HTTP/3 off). \
        The run's protocol: h1 sets network.http.http2.enabled=false and network.http.http3.enable=false; h2 \
        network.http.http3.enable=false; h3 network.http.http3.enable=true with \
        network.http.http3.alt-svc-mapping-for-testing=<host>;h3=:<port> per origin and \
        network.http.http3.force-use-alt-svc-mapping-for-testing=true (HTTP/3 from the first request) and \
        network.http.http3.backup_timer_delay=3600000 (Firefox otherwise races a TCP connection against any QUIC \
        handshake not done within 100 ms, and over a 4G round trip an origin's first loads went over HTTP/1.1 or \
        HTTP/2; Chromium's forced QUIC never races). A \
        recorded page (every body recorded) keeps its recorded ports in its URLs: \
        network.socket.forcePort=1-65535=<port> sends every port to the replay server's (so Firefox's own \
        Remote Settings fetches at startup, firefox.settings.services.mozilla.com, about 15 TLS handshakes per \
        run, reach the server too and fail on its certificate; a release build takes no other Remote Settings \
        server without MOZ_REMOTE_SETTINGS_DEVTOOLS=1, which also stops its forced HTTP/3). A \
        resource whose Resource Timing nextHopProtocol is another protocol fails the run. Records Resource \
        Timing, Paint Timing (firstPaintMs when Firefox reports first-paint, firstContentfulPaintMs), \
        largestContentfulPaintMs (a PerformanceObserver added by script.addPreloadScript before the page's \
        scripts) and loadEventMs in the same schema ("client": "firefox"); connection ids are not exposed, so \
        connections are not recorded.
        """

    /// Longer than any run: the backup TCP connection of an HTTP/3 request never starts.
    static let noBackupConnectionMs = 3_600_000

    private func unique(_ xs: [String]) -> [String] {
        var seen = Set<String>()
        return xs.map { $0.lowercased() }.filter { seen.insert($0).inserted }
    }
}
