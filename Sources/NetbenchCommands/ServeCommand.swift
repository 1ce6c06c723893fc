import Foundation
import BenchCore
import BenchModel
import Runner
import Testbed
import Browsers
import Workloads
import RemoteExecution
import CommandLineKit
import SystemIO
import Transport
import QUIC
import TLS

struct ServeCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "serve",
            abstract: "serve a scenario alone (for external clients and two-host runs)",
            discussion: """
                Serves every origin of the scenario on one listener until Ctrl-C: the origin is chosen by the \
                Host / :authority header (and SNI), and when the host is not one of the scenario's (an IP address, \
                say) by the path alone. Bodies have the scenario's exact sizes; think times are honoured. \
                A certificate authority is generated at start and written where --ca-out says (nowhere without it); \
                point the client at it \
                (curl --cacert FILE, aioquic's --ca-certs FILE). With --cert and --key the server presents your own \
                certificate instead. \
                Every origin answers GET /.well-known/netbench with the scenario's name and content digest (JSON, and \
                the same in \
                netbench-* headers), which 'netbench run --server' checks before its first run.

                Recorded bodies (a scenario's 'bodies', see import-har) are sent byte for byte with their \
                recorded content-type. A request is matched by its path with its query, then its percent-decoded \
                form, then its path alone where a resource has no query; with the scenario key "queryMatch": \
                "closest" (what import-har writes for recorded sites, as Web Page Replay matches) a query that is \
                still unknown goes to the resource with the same path sharing the most name=value parameters, then \
                parameter names, then the first listed ("exact", the default, answers 404). Requests answered 404 \
                are listed per run in results.json (runs[].server.notFound) by 'netbench run'.

                Unknown paths get 404, malformed requests 400 (that connection closes; the server carries on), \
                Range: bytes=N- gets 206. /.well-known/netbench answers {"netbenchVersion", "scenarios": [{"name", \
                "sha256"}], "schemaVersion": 1} (the SHA-256 of the scenario file's bytes) with the headers \
                netbench-version and netbench-scenario: <sha256> <name>. --cert and --key are PEM, the key \
                unencrypted: a file that is missing, holds no certificate or key, or a key that is not the \
                certificate's exits 65 naming the file; the banner names the origins the certificate does not cover.

                Limits against hostile clients (the defaults are far above what browsers and h2load do): \
                --max-connections, --max-handshakes, --handshake-timeout, --header-timeout (slowloris), \
                --idle-timeout, --max-header-list (HPACK/QPACK bombs), and for HTTP/2 --h2-max-resets (rapid \
                reset) and --h2-max-control-frames (SETTINGS/PING floods); a HEADERS frame may be followed by \
                at most 8 CONTINUATION frames. Before an address is validated, QUIC sends at most 3× the bytes \
                received from it (RFC 9000 §8.1). The descriptor limit is raised to its hard maximum. Ctrl-C prints \
                what the limits did (connections timed out, evicted, refused). The in-process server of \
                'netbench run' has the same limits with the same defaults.
                """,
            examples: [
                "netbench serve Scenarios/pages/mobile-median.json --transport h3 --listen 127.0.0.1:4433",
                "netbench serve Scenarios/pages/mobile-median.json --transport h1,h2,h3 --listen 127.0.0.1:8443 "
                    + "--ca-out ca.pem",
                "netbench serve Scenarios/pages/mobile-median.json --transport h1,h2,h3 --listen 0.0.0.0:443 --cert "
                    + "fullchain.pem --key privkey.pem",
            ],
            exitCodes: [
                ExitCodeDoc(.success, "stopped by Ctrl-C"),
                ExitCodeDoc(.runFailed, "cannot listen or write the CA file"),
                ExitCodeDoc(.dataError, "bad scenario, or --cert/--key unreadable, not PEM, or not a pair"),
                Netbench.usageExit,
            ])
    }

    @Argument("SCENARIO", help: "the scenario file to serve", completion: .file(extensions: ["json"])) var file: String
    @Option(
        "--transport", "-t", value: "LIST",
        help:
            "h1 (HTTP/1.1 over TLS), h2 (HTTP/2 over TLS), h3 (HTTP/3 over QUIC/UDP), or several on one port: TCP "
                + "serves h1/h2 by ALPN, UDP h3, and TCP responses advertise h3 (Alt-Svc)",
        parse: .transports) var transports: [TransportKind]
    @Option(
        "--listen", "-l", value: "ADDR:PORT",
        help: "address and port, e.g. 127.0.0.1:8443 (port 0: any free port, printed)", parse: .endpoint) var listen:
        Endpoint
    @Option(
        "--ca-out", value: "FILE", help: "where to write the CA certificate (PEM); without it no file is written",
        parse: .file("pem")) var caOut: String?
    @Option(
        "--cert", value: "FILE",
        help: "your own certificate chain (PEM, leaf first) for every origin instead of a generated CA; needs --key",
        parse: .file("pem")) var cert: String?
    @Option("--key", value: "FILE", help: "the unencrypted private key (PEM) of --cert", parse: .file("pem")) var key:
        String?
    @OptionGroup var serverOptions: ServerOptionGroup
    @OptionGroup var diagnostics: DiagnosticOptionGroup
    @Option(
        "--max-connections", value: "N",
        help: "TCP connections held at once, and QUIC connections (default 4096, lowered to the descriptor limit); "
            + "at the limit the connection idle or handshaking longest is closed, as nginx does, or a new one "
            + "refused when every one has a request in flight; QUIC Initials past it are dropped",
        parse: .int(1...1_000_000)) var maxConnections: Int?
    @Option(
        "--max-handshakes", value: "N",
        help:
            "connections whose TLS/QUIC handshake is not done (default 1024); past it the oldest TCP one is closed, "
                + "new QUIC Initials dropped",
        parse: .int(1...1_000_000)) var maxHandshakes: Int?
    @Option(
        "--handshake-timeout", value: "D",
        help: "a TLS or QUIC handshake must complete within D (default 60s, as nginx; QUIC: ngtcp2's 10s)",
        parse: .duration()) var handshakeTimeout: Nanoseconds?
    @Option(
        "--header-timeout", value: "D",
        help:
            "an HTTP/1.1 request head must complete within D of its first byte, an HTTP/2 connection must send its "
                + "first request within D (default 60s, as nginx)",
        parse: .duration()) var headerTimeout: Nanoseconds?
    @Option(
        "--idle-timeout", value: "D",
        help:
            "close a TCP connection with no request in flight after D (default 120s); for h3 the QUIC max_idle_timeout "
                + "(default 30s)",
        parse: .duration()) var idleTimeout: Nanoseconds?
    @Option(
        "--max-header-list", value: "SIZE",
        help: "largest request head: HTTP/1.1 bytes, HTTP/2 and HTTP/3 decoded fields + 32 each (default 64KiB); "
            + "HTTP/1.1 gets 431, HTTP/2 a reset stream, HTTP/3 a closed connection (H3_EXCESSIVE_LOAD), as it "
            + "does when its QPACK-blocked streams hold more than max(1 MiB, 16 × SIZE)",
        parse: .size) var maxHeaderList: Int64?
    @Option(
        "--h2-max-resets", value: "N",
        help:
            "RST_STREAM frames per second from one HTTP/2 client before GOAWAY ENHANCE_YOUR_CALM (default 200; rapid "
                + "reset, CVE-2023-44487)",
        parse: .int(1...1_000_000)) var maxResets: Int?
    @Option(
        "--h2-max-control-frames", value: "N",
        help:
            "SETTINGS and PING frames per second from one HTTP/2 client before GOAWAY ENHANCE_YOUR_CALM (default 500)",
        parse: .int(1...1_000_000)) var maxControlFrames: Int?
    @Option(
        "--quic-retry", value: "WHEN",
        help: "validate QUIC client addresses with a stateless Retry (RFC 9000 §8.1.2: only clients that receive "
            + "at their address come back): under-load (default: once half of --max-handshakes are in use), "
            + "always, never", parse: .choice()) var quicRetry: QUICRetryPolicy?
    @Flag(
        "--pages",
        help:
            "serve browsers (requests with a User-Agent) real pages: HTML, CSS and JavaScript that load the scenario's "
                + "resources, at their exact sizes, advertising h3 to Chromium (Alt-Svc) when it is served; prints "
                + "the Chromium flags that trust this server"
    ) var pages: Bool

    func run() throws -> ExitCode {
        let (transports, listen, caOut, pages) = (self.transports, self.listen, self.caOut, self.pages)
        let withTCP = transports.contains(.h1) || transports.contains(.h2)
        let withQUIC = transports.contains(.h3)
        let scenario = try Scenario.load(from: file)
        let credentials = try makeCredentials(hosts: scenario.origins.map(\.host))
        var options = try makeServerOptions(withTCP: withTCP, withQUIC: withQUIC)
        if let caOut {
            do { try credentials.caPEM.write(toFile: caOut, atomically: true, encoding: .utf8) } catch {
                throw BenchError.run("\(caOut): cannot write the CA certificate: \(error.localizedDescription)")
            }
        }
        let digest = ScenarioDigest.of(fileBytes: [UInt8](FileManager.default.contents(atPath: file) ?? Data()))
        options.descriptions = [
            ServerDescription(
                netbenchVersion: netbenchVersion,
                scenarios: [.init(name: scenario.name, sha256: digest)])
        ]
        let host: ServerHost
        do {
            host = try ServerHost(
                scenarios: [scenario], credentials: credentials, address: listen.address, port: listen.port,
                namespace: nil, withTCP: withTCP, withQUIC: withQUIC, options: options)
        } catch {
            throw BenchError.run("cannot listen on \(listen): \(error)")
        }
        let bound = host.endpoints[0].tcp ?? host.endpoints[0].udp!
        let sockets = [withTCP ? "TCP" : nil, withQUIC ? "UDP" : nil].compactMap { $0 }.joined(separator: " + ")
        let hintTransport: TransportKind = withQUIC && !withTCP ? .h3 : .h2
        let browserHint = pages ? try Self.chromiumHint(scenario, credentials, bound, hintTransport) : ""
        // Unbuffered: scripts wait for these lines to know the server is up.
        let banner = """
            netbench serve: \(scenario.name) over \(transports.map(\.rawValue).joined(separator: ",")) on \(bound) \
            (\(sockets))
            origins: \(scenario.origins.map(\.host).joined(separator: ", "))
            \(certificateLine(credentials, hosts: scenario.origins.map(\.host), caOut: caOut))
            description: https://\(scenario.origins.first?.host ?? "HOST"):\(bound.port)\(ServerDescription.path) \
            (scenario sha256 \(digest))
            \(browserHint)Ctrl-C stops.

            """
        StandardOutput.write(banner.data(using: .utf8)!)
        let stop = DispatchSemaphore(value: 0)
        let interrupt = InterruptHandler(message: "stopping the server") { stop.signal() }
        stop.wait()
        interrupt.remove()
        host.stop()
        // A --keylog the disk could not take: said once, at the end (the server kept serving).
        if let failure = DiagnosticWriteFailure.message {
            StandardError.write(Data("netbench serve: warning: \(failure)\n".utf8))
        }
        if let c = host.finalCounters {
            // Scripts and tests read this line to see what the limits did.
            let line =
                "netbench serve: \(c.requests) requests on \(c.connectionsAccepted) connections; \(c.malformed) "
                    + "malformed, "
                + "\(c.handshakeFailures) failed handshakes; closed by limits: \(c.connectionsTimedOut) timed out, "
                + "\(c.connectionsEvicted) evicted, \(c.connectionsRefused) refused; QUIC Retry: \(c.retriesSent) "
                + "sent, "
                + "\(c.retriesValidated) validated\n"
            StandardOutput.write(line.data(using: .utf8)!)
        }
        return .success
    }

    /// The server's settings: the shared server and diagnostics groups over `serve`'s defaults (the
    /// system's TCP congestion control), then serve's own limits.
    private func makeServerOptions(withTCP: Bool, withQUIC: Bool) throws -> ServerHost.ServerOptions {
        let diagnostics = self.diagnostics.settings
        // h2 alone still answers HTTP/1.1 clients by ALPN, as servers do; h1 alone offers only HTTP/1.1.
        var options = ServerHost.ServerOptions(
            settings: serverOptions.merged(over: ServerSettings()),
            keyLogFile: diagnostics.keyLogFile,
            alpn: transports.contains(.h2) ? ["h2", "http/1.1"] : ["http/1.1"])
        options.advertiseHTTP3 = withTCP && withQUIC
        options.renderPages = pages
        options.advertiseHTTP3ToBrowsers = pages && withQUIC
        // A key log alone is opened by the listeners (a file they cannot open: "cannot listen", exit 2).
        if diagnostics.qlogDirectory != nil { options.quic.diagnostics = try diagnostics.open() }
        options.limits = try limits()
        if let t = idleTimeout { options.quic.idleTimeout = t }
        if let t = handshakeTimeout { options.quic.handshakeTimeout = t }
        if let r = quicRetry { options.quic.retry = r }
        return options
    }

    /// The limits asked for, with the connection limit kept under the descriptor limit (raised
    /// to its hard maximum first), which it says when it has to.
    private func limits() throws -> ServerLimits {
        var l = ServerLimits()
        if let n = maxConnections { l.maxConnections = n }
        if let n = maxHandshakes { l.maxPendingHandshakes = n }
        if let t = handshakeTimeout { l.handshakeTimeout = t }
        if let t = headerTimeout { l.headerTimeout = t }
        if let t = idleTimeout { l.idleTimeout = t }
        if let n = maxHeaderList { l.maxHeaderListSize = Int(clamping: n) }
        if let n = maxResets { l.maxResetsPerSecond = n }
        if let n = maxControlFrames { l.maxControlFramesPerSecond = n }
        let descriptors = OpenFileLimit.raiseToHard()
        let usable = max(descriptors - 64, 16)
        if l.maxConnections > usable {
            StandardError.write(
                ("netbench serve: --max-connections \(l.maxConnections) lowered to \(usable): the descriptor limit "
                    + "(RLIMIT_NOFILE) is \(descriptors)\n")
                    .data(using: .utf8)!)
            l.maxConnections = usable
        }
        return l
    }

    /// The generated CA, or the user's --cert/--key (checked: errors name the file, exit 65).
    func makeCredentials(hosts: [String]) throws -> RunCredentials {
        try Self.credentials(hosts: hosts, cert: cert, key: key, caOut: caOut)
    }

    /// A CA generated for `hosts`, or `cert` and `key` read and checked (errors name the file, exit
    /// 65); `caOut` only goes with a generated CA. Shared by `serve` and `perf`.
    static func credentials(hosts: [String], cert: String?, key: String?, caOut: String?) throws -> RunCredentials {
        switch (cert, key) {
        case (nil, nil): return try RunCredentials(hosts: hosts)
        case (.some, nil): throw BenchError.usage("--cert needs --key (the certificate's private key)")
        case (nil, .some): throw BenchError.usage("--key needs --cert")
        case (.some(let cert), .some(let key)):
            if caOut != nil {
                throw BenchError.usage("--ca-out writes the generated CA; with --cert/--key none is generated")
            }
            func read(_ path: String) throws -> String {
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw BenchError.data("\(path): does not exist or cannot be read")
                }
                return String(decoding: data, as: UTF8.self)
            }
            do {
                return RunCredentials(
                    identity: try PEMIdentity.checked(
                        certificateChainPEM: try read(cert), certificateFile: cert,
                        privateKeyPEM: try read(key), keyFile: key))
            } catch let e as PEMIdentity.FileProblem { throw BenchError.data("\(e)") }
        }
    }

    func certificateLine(_ c: RunCredentials, hosts: [String], caOut: String?) -> String {
        guard let cert else {
            let written = caOut.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            return "CA certificate: " + (written ?? "not written (give --ca-out FILE)")
        }
        let uncovered = c.identities.first?.hostNamesNotCovered(hosts) ?? []
        return "certificate: \(cert)"
            + (uncovered.isEmpty
                ? " (covers every origin)"
                : " (does not cover \(uncovered.joined(separator: ", ")): clients verifying those names fail)")
    }

    /// The page to open and the flags that make Chromium trust and reach this server.
    static func chromiumHint(_ s: Scenario, _ c: RunCredentials, _ bound: Endpoint, _ t: TransportKind) throws -> String
    {
        let pins = try c.identities.map { try $0.leafPublicKeySHA256Base64() }.joined(separator: ",")
        let a = bound.address
        let ip = "\(a >> 24).\((a >> 16) & 255).\((a >> 8) & 255).\(a & 255)"
        let hosts = s.origins.map(\.host)
        var flags =
            "--ignore-certificate-errors-spki-list=\(pins) --host-resolver-rules=\""
            + hosts.map { "MAP \($0) \(ip)" }.joined(separator: ", ") + "\""
        if t == .h3 {
            flags += " --origin-to-force-quic-on=" + hosts.map { "\($0):\(bound.port)" }.joined(separator: ",")
        }
        let root = s.root.map { "https://\(s.origin(id: $0.origin)?.host ?? ""):\(bound.port)\($0.path)" } ?? ""
        return "page: \(root)\nChromium flags: \(flags)\n"
    }
}

extension ValueParser where T == Endpoint {
    static var endpoint: ValueParser<Endpoint> { .init(expected: "ADDR:PORT (e.g. 127.0.0.1:8443)") { Endpoint($0) } }
}
