import Foundation
import BenchCore
import Testbed
import TLS
import SystemIO
import Transport
import QUIC
import RemoteExecution
import CommandLineKit
import BenchModel
import Runner

/// `netbench perf`: raw QUIC goodput through the QUIC performance protocol
/// (draft-banks-quic-performance-00), as msquic's secnetperf and picoquic's quicperf speak it.
struct PerfCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "perf",
            abstract: "raw QUIC goodput without HTTP/3 (QUIC perf protocol): client and server",
            discussion: """
                The QUIC performance protocol of draft-banks-quic-performance-00: ALPN "perf"; the client opens a \
                bidirectional stream per request, sends the number of bytes it wants back (8 bytes, big-endian), \
                then its upload and FIN; the server drains the upload and sends that many bytes and FIN. The same \
                ngtcp2 engine and settings as netbench's HTTP/3, without HTTP/3: beside an h3 transfer over the \
                same link it shows what HTTP/3 costs over raw QUIC. Interoperates with other perf peers (tested \
                against one written on aioquic).

                --listen ADDR:PORT serves perf until Ctrl-C, with a generated CA (--ca-out writes it) or your \
                --cert/--key. --server HOST:PORT runs one connection with --streams streams at once, the \
                --download and --upload totals split evenly between them, checks that every byte asked for came \
                back, and prints the time and goodput (exit 2 when a byte is missing).

                With neither, the client runs against an in-process perf server: on loopback, or with -p PROFILE \
                behind that profile's emulated link (as load -p). --compare-h3 then also fetches the same bytes \
                over HTTP/3 from an in-process replay server on the same link (one GET per stream, after the perf \
                run) and prints both lines and their goodput ratio: what HTTP/3 costs over raw QUIC.
                """,
            examples: [
                "netbench perf --listen 127.0.0.1:4433 --ca-out /tmp/perf-ca.pem",
                "netbench perf --server 127.0.0.1:4433 --ca /tmp/perf-ca.pem --download 100MB",
                "netbench perf --server 127.0.0.1:4433 --ca /tmp/perf-ca.pem --download 10MB --upload 10MB "
                    + "--streams 4 --json",
                "netbench perf -p Cable --download 2MB --compare-h3",
            ],
            exitCodes: [
                ExitCodeDoc(.success, "server: stopped by Ctrl-C; client: every byte asked for arrived"),
                ExitCodeDoc(
                    .runFailed,
                    "cannot listen, connect or write the CA file; a request failed or came back short"),
                ExitCodeDoc(.dataError, "--ca, --cert or --key unreadable or not PEM"),
                Netbench.usageExit,
            ])
    }

    @Option(
        "--listen", "-l", value: "ADDR:PORT",
        help: "serve the perf protocol on this UDP address (port 0: any free port, printed)", parse: .endpoint)
    var listen: Endpoint?
    @Option(
        "--server", "-s", value: "HOST:PORT", help: "run the client against this perf server", parse: .nonEmpty)
    var server: String?
    @Option(
        "--server-name", value: "NAME",
        help: "client: the name the server's certificate must carry (TLS SNI); default: HOST of --server",
        parse: .nonEmpty) var serverName: String?
    @Option(
        "--ca", value: "FILE",
        help: "client: PEM file of the roots the server's certificate must verify against (default: the system "
            + "store)", parse: .file()) var ca: String?
    @Option(
        "--download", value: "SIZE", default: 10_000_000, defaultText: "10MB",
        help: "client: bytes the server sends back, in all streams together", parse: .size) var download: Int64
    @Option(
        "--upload", value: "SIZE", default: 0, defaultText: "0",
        help: "client: bytes the client sends, in all streams together", parse: .size) var upload: Int64
    @Option(
        "--streams", value: "N", default: 1, help: "client: concurrent streams on the one connection",
        parse: .int(1...1000)) var streams: Int
    @Option(
        "--timeout", value: "D", default: 60_000_000_000, defaultText: "60s",
        help: "client: give up after D", parse: .duration()) var timeout: Nanoseconds
    @Option(
        "--cc", value: "ALGO",
        help: "congestion control of the client, or of the --listen server: cubic (default), reno, bbr, bbr2 "
            + "(in-process servers keep cubic)",
        parse: .choice()) var congestionControl: QUICCongestionControl?
    @Flag(
        "--json",
        help: "client: print one JSON object per transfer (bytes, seconds, goodput; with --compare-h3 two lines) "
            + "instead of text")
    var json: Bool
    @Option(
        "--ca-out", value: "FILE", help: "server: where to write the generated CA certificate (PEM)",
        parse: .file("pem")) var caOut: String?
    @Option(
        "--cert", value: "FILE", help: "server: your own certificate chain (PEM, leaf first); needs --key",
        parse: .file("pem")) var cert: String?
    @Option("--key", value: "FILE", help: "server: the unencrypted private key (PEM) of --cert", parse: .file("pem"))
    var key: String?

    @Option(
        "--profile", "-p", value: "NAME",
        help: "without --server: run against in-process servers behind this profile's emulated link (a profile "
            + "name or file; needs root); default: loopback", parse: .nonEmpty) var profileName: String?
    @Flag(
        "--compare-h3",
        help: "without --server: also fetch the same bytes over HTTP/3 on the same link, and print both goodputs")
    var compareH3: Bool

    var inProcess: Bool { listen == nil && server == nil }

    func validate() throws {
        if listen != nil && server != nil { throw BenchError.usage("--listen and --server exclude each other") }
        if !inProcess && (profileName != nil || compareH3) {
            throw BenchError.usage(
                "-p and --compare-h3 use in-process servers: give neither --listen nor --server with them")
        }
        if compareH3 && upload > 0 { throw BenchError.usage("--compare-h3 compares downloads: give --upload 0") }
        if download < 0 { throw BenchError.usage("--download \(download): a size is not negative") }
        if upload < 0 { throw BenchError.usage("--upload \(upload): a size is not negative") }
    }

    func run() throws -> ExitCode {
        if let listen { return try serve(listen) }
        if let server { return try client(server) }
        return try inProcessRun()
    }

    private var quicConfig: QUICConfiguration {
        var c = QUICConfiguration()
        c.alpn = QUICPerf.alpn
        if let cc = congestionControl { c.congestionControl = cc }
        return c
    }

    // MARK: Client

    private func client(_ text: String) throws -> ExitCode {
        let remote: RemoteEndpoint
        do { remote = try RemoteEndpoint(parsing: text) } catch { throw BenchError.usage("--server \(text): \(error)") }
        let address = try LoadTargets.resolve(remote.host, what: "--server \(text)")
        let trust = try LoadTargets.trust(ca)
        let n = Int64(streams)
        let requests = (0..<n).map { i in
            (download: download / n + (i < download % n ? 1 : 0), upload: upload / n + (i < upload % n ? 1 : 0))
        }
        let r: QUICPerfResult
        do {
            r = try QUICPerfRun.run(
                remote: Endpoint(address: address, port: remote.port), serverName: serverName ?? remote.host,
                trustedRootsPEM: trust.caPEM, config: quicConfig,
                requests: requests, timeout: timeout)
        } catch {
            throw BenchError.run("cannot connect to \(text): \(error)")
        }
        let report = PerfReport(r, server: text)
        StandardOutput.write(Data((json ? report.json() : report.text()).utf8))
        if !r.completed { throw BenchError.run(report.failure ?? "perf requests failed") }
        return .success
    }

    // MARK: In-process servers

    /// Perf (and with --compare-h3, HTTP/3) against servers in this process, on loopback or behind -p.
    private func inProcessRun() throws -> ExitCode {
        let profile = try profileName.map { try Library.locate().profile($0) }
        if profile?.isEmulated == true { try PrivilegeGate.requireEmulation() }
        let n = Int64(streams)
        // The h3 server serves one resource: every stream asks for the same size, on both protocols.
        let per = compareH3 ? download / n : download
        let servers = try InProcessPerfServers(profile: profile, size: per, withHTTP3: compareH3)
        defer { servers.close() }
        var quic = servers.quic
        if let cc = congestionControl { quic.congestionControl = cc }
        let requests = (0..<n).map { i in
            (
                download: compareH3 ? per : download / n + (i < download % n ? 1 : 0),
                upload: upload / n + (i < upload % n ? 1 : 0)
            )
        }
        let roots = servers.credentials.caPEM
        let perf = try servers.onLink {
            try QUICPerfRun.run(
                remote: servers.perf.endpoints[0].udp!, serverName: "localhost", trustedRootsPEM: roots,
                config: quic, requests: requests, timeout: timeout)
        }
        var results = [PerfReport(perf, server: "in-process perf server, \(servers.linkLine)")]
        if let h3Host = servers.h3 {
            let h3 = try servers.onLink {
                try QUICPerfRun.runHTTP3(
                    remote: h3Host.endpoints[0].udp!, serverName: "localhost", trustedRootsPEM: roots,
                    config: quic, path: "/obj", requests: requests.map(\.download), timeout: timeout)
            }
            results.append(PerfReport(h3, server: "in-process HTTP/3 server, \(servers.linkLine)", protocolName: "h3"))
        }
        StandardOutput.write(Data(PerfReport.render(results, json: json).utf8))
        if let f = results.compactMap(\.failure).first { throw BenchError.run(f) }
        return .success
    }

    // MARK: Server

    /// A CA generated for localhost and 127.0.0.1, or the user's --cert/--key (checked, exit 65).
    private func makeCredentials() throws -> RunCredentials {
        try ServeCommand.credentials(hosts: [], cert: cert, key: key, caOut: caOut)
    }

    private func serve(_ listen: Endpoint) throws -> ExitCode {
        let credentials = try makeCredentials()
        if let caOut {
            do { try credentials.caPEM.write(toFile: caOut, atomically: true, encoding: .utf8) } catch {
                throw BenchError.run("\(caOut): cannot write the CA certificate: \(error.localizedDescription)")
            }
        }
        let loop = try EventLoop()
        let endpoint: QUICServerEndpoint
        do {
            endpoint = try QUICServerEndpoint(
                loop: loop, endpoint: listen,
                credentials: credentials.identities.map {
                    QUICServerCredentials(certificateChainPEM: $0.certificateChainPEM, privateKeyPEM: $0.privateKeyPEM)
                },
                config: quicConfig,
                handler: { _ in ServerResponse(status: 500, bodyLength: 0) })  // never called: no HTTP/3
        } catch {
            throw BenchError.run("cannot listen on \(listen): \(error)")
        }
        let written = caOut.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        let banner = """
            netbench perf: \(QUICPerf.draft) (ALPN perf) on \(endpoint.endpoint) (UDP)
            CA certificate: \(written ?? (cert == nil ? "not written (give --ca-out FILE)" : "none (--cert)"))
            Ctrl-C stops.

            """
        StandardOutput.write(Data(banner.utf8))
        let stop = loop.stopper
        let interrupt = InterruptHandler(message: "stopping the perf server") { stop.set() }
        try loop.run()
        interrupt.remove()
        endpoint.close()
        let c = endpoint.counters, p = endpoint.perfCounters
        // Scripts and tests read this line.
        let line =
            "netbench perf: \(c.connectionsAccepted) connections, \(p.streamsAnswered) streams answered, "
            + "\(p.bytesRequested) bytes requested, \(p.bytesUploaded) bytes uploaded\n"
        StandardOutput.write(Data(line.utf8))
        return .success
    }
}

/// A perf client's result, as text or JSON.
struct PerfReport {
    let result: QUICPerfResult
    let server: String
    /// "perf", or "h3" for the HTTP/3 comparison.
    let protocolName: String

    init(_ r: QUICPerfResult, server: String, protocolName: String = "perf") {
        result = r
        self.server = server
        self.protocolName = protocolName
    }

    var seconds: Double { Double(result.end.since(result.start)) / 1e9 }
    /// From the handshake's end (the transfer alone), nil without a handshake.
    var transferSeconds: Double? { result.handshakeEnd.map { Double(result.end.since($0)) / 1e9 } }
    var downloadMbps: Double? {
        guard let t = transferSeconds, t > 0 else { return nil }
        return Double(result.bytesReceived) * 8 / t / 1e6
    }
    var uploadMbps: Double? {
        guard let t = transferSeconds, t > 0 else { return nil }
        return Double(result.bytesUploaded) * 8 / t / 1e6
    }
    var failure: String? {
        if let e = result.error { return "\(protocolName) to \(server): \(e)" }
        let bad = result.requests.enumerated().first { $0.1.error != nil || $0.1.received != $0.1.download }
        if let (i, r) = bad {
            let what = r.error ?? "received \(r.received) of \(r.download) bytes"
            return "\(protocolName) to \(server): stream \(i): \(what)"
        }
        return nil
    }

    /// Several results: JSON lines, or the text of each and, for a perf/h3 pair, h3's share of perf's goodput.
    static func render(_ results: [PerfReport], json: Bool) -> String {
        if json { return results.map { $0.json() }.joined() }
        var text = results.map { $0.text() }.joined()
        if results.count == 2, let a = results[0].downloadMbps, let b = results[1].downloadMbps, a > 0 {
            text += "h3 / perf goodput: \(Units.format(b / a, 3)) (same link, same engine and settings)\n"
        }
        return text
    }

    func text() -> String {
        func rate(_ v: Double?) -> String { v.map { Units.format($0, 1) + " Mbit/s" } ?? "unknown" }
        let hs = result.handshakeEnd.map { Units.format(Double($0.since(result.start)) / 1e6, 1) + " ms" } ?? "none"
        var lines = [
            (protocolName == "perf" ? "perf \(server) (\(QUICPerf.draft))" : "\(protocolName) \(server)")
                + ": \(result.requests.count) stream(s), handshake \(hs)",
            "download: \(result.bytesReceived) bytes, \(rate(downloadMbps))",
            "upload:   \(result.bytesUploaded) bytes, \(rate(uploadMbps))",
            "time: \(Units.format(seconds, 3)) s (transfer "
                + "\(transferSeconds.map { Units.format($0, 3) } ?? "unknown") s)",
        ]
        if let s = result.statistics {
            let rtt = s.minRTT.map { Units.format(Double($0) / 1e6, 2) + " ms" } ?? "unknown"
            lines.append("min RTT \(rtt), \(s.streamFramesLost) stream frames lost")
        }
        if let f = failure { lines.append("FAILED: \(f)") }
        return lines.joined(separator: "\n") + "\n"
    }

    struct JSON: Encodable {
        var protocolName: String
        var draft: String?
        var server: String
        var streams: Int
        var completed: Bool
        var bytesReceived: Int64
        var bytesUploaded: Int64
        var bytesRequested: Int64
        var seconds: Double
        var handshakeSeconds: Double?
        var transferSeconds: Double?
        var downloadMbps: Double?
        var uploadMbps: Double?
        var error: String?
    }

    func json() -> String {
        let j = JSON(
            protocolName: protocolName, draft: protocolName == "perf" ? QUICPerf.draft : nil, server: server,
            streams: result.requests.count, completed: result.completed,
            bytesReceived: result.bytesReceived, bytesUploaded: result.bytesUploaded,
            bytesRequested: result.requests.reduce(0) { $0 + $1.download }, seconds: seconds,
            handshakeSeconds: result.handshakeEnd.map { Double($0.since(result.start)) / 1e9 },
            transferSeconds: transferSeconds, downloadMbps: downloadMbps, uploadMbps: uploadMbps, error: failure)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(j)) ?? Data(), as: UTF8.self) + "\n"
    }
}

/// The in-process servers of `netbench perf` without --server: a perf server and, for --compare-h3, the
/// replay server (HTTP/3) with one resource (/obj); on loopback, or in the server namespace of -p's link.
struct InProcessPerfServers {
    let perf: ServerHost
    let h3: ServerHost?
    let testbed: LoadTestbed?
    let credentials: RunCredentials
    /// Both ends' QUIC settings (the profile's initial RTT; 1 ms on loopback).
    let quic: QUICConfiguration
    let linkLine: String

    init(profile: Profile?, size: Int64, withHTTP3: Bool) throws {
        let scenario = LoadTargets.generated(size: size)
        credentials = try RunCredentials(hosts: ["localhost"])
        guard let profile, profile.isEmulated else {
            var quic = QUICConfiguration()
            quic.initialRTT = .milliseconds(1)
            self.quic = quic
            testbed = nil
            linkLine = "loopback"
            perf = try Self.perfServer(scenario, credentials, quic, address: Endpoint.loopbackAddress, namespace: nil)
            h3 =
                withHTTP3
                ? try ServerHost(
                    scenarios: [scenario], credentials: credentials, address: Endpoint.loopbackAddress,
                    namespace: nil, withTCP: false, withQUIC: true, options: ServerHost.ServerOptions(quic: quic))
                : nil
            return
        }
        let t = try LoadTestbed(
            profile: profile, scenarios: [scenario], credentials: credentials, withTCP: false, withQUIC: true)
        do {
            perf = try Self.perfServer(
                scenario, credentials, t.quic, address: t.network.serverAddress, namespace: t.network.serverNamespace)
        } catch {
            t.close()
            throw error
        }
        testbed = t
        quic = t.quic
        h3 = t.servers
        let rate = t.downlinkBitsPerSecond.map { Units.format($0 / 1e6, 1) + " Mbit/s down" } ?? "unlimited"
        linkLine = "profile \(profile.name): \(rate), RTT \(Units.format(t.rttMs, 1)) ms"
    }

    static func perfServer(
        _ scenario: Scenario, _ credentials: RunCredentials, _ quic: QUICConfiguration, address: UInt32,
        namespace: String?
    ) throws -> ServerHost {
        var options = ServerHost.ServerOptions(quic: quic)
        options.quic.alpn = QUICPerf.alpn
        return try ServerHost(
            scenarios: [scenario], credentials: credentials, address: address, namespace: namespace,
            withTCP: false, withQUIC: true, options: options)
    }

    /// Runs `body` with the link's packet loop running, in the client namespace (or on loopback).
    func onLink<T>(_ body: () throws -> T) throws -> T {
        try testbed?.start()
        defer { _ = try? testbed?.stop() }
        return try NetworkNamespace.with(testbed?.clientNamespace, body)
    }

    func close() {
        perf.stop()
        if let testbed { testbed.close() } else { h3?.stop() }
    }
}
