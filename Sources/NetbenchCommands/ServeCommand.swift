import Foundation
import BenchCore
import BenchModel
import Runner
import CommandLineKit
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
            A certificate authority is generated at start and written where --ca-out says (nowhere without it); point the client at it \
            (curl --cacert FILE, aioquic's --ca-certs FILE). With --cert and --key the server presents your own certificate instead. \
            Every origin answers GET /.well-known/netbench with the scenario's name and content digest (JSON, and the same in \
            netbench-* headers), which 'netbench run --server' checks before its first run.
            """,
            examples: ["netbench serve Scenarios/pages/mobile-median.json --transport h3 --listen 127.0.0.1:4433",
                       "netbench serve Scenarios/pages/mobile-median.json --transport h1,h2,h3 --listen 127.0.0.1:8443 --ca-out ca.pem",
                       "netbench serve Scenarios/pages/mobile-median.json --transport h1,h2,h3 --listen 0.0.0.0:443 --cert fullchain.pem --key privkey.pem"],
            exitCodes: [
                ExitCodeDoc(.success, "stopped by Ctrl-C"),
                ExitCodeDoc(.runFailed, "cannot listen or write the CA file"),
                ExitCodeDoc(.dataError, "bad scenario, or --cert/--key unreadable, not PEM, or not a pair"),
                Netbench.usageExit,
            ])
    }

    @Argument("SCENARIO", help: "the scenario file to serve", completion: .file(extensions: ["json"])) var file: String
    @Option("--transport", "-t", value: "LIST", help: "h1 (HTTP/1.1 over TLS), h2 (HTTP/2 over TLS), h3 (HTTP/3 over QUIC/UDP), or several on one port: TCP serves h1/h2 by ALPN, UDP h3, and TCP responses advertise h3 (Alt-Svc)", parse: .transports) var transports: [TransportKind]
    @Option("--listen", "-l", value: "ADDR:PORT", help: "address and port, e.g. 127.0.0.1:8443 (port 0: any free port, printed)", parse: .endpoint) var listen: Endpoint
    @Option("--ca-out", value: "FILE", help: "where to write the CA certificate (PEM); without it no file is written", parse: .file("pem")) var caOut: String?
    @Option("--cert", value: "FILE", help: "your own certificate chain (PEM, leaf first) for every origin instead of a generated CA; needs --key", parse: .file("pem")) var cert: String?
    @Option("--key", value: "FILE", help: "the unencrypted private key (PEM) of --cert", parse: .file("pem")) var key: String?
    @Option("--keylog", value: "FILE", help: "append TLS secrets in NSS key-log format (default: $SSLKEYLOGFILE)", parse: .file()) var keylog: String?
    @Option("--late-binding", value: "SIZE", help: "HTTP/2 server: at most SIZE bytes wait unsent in the kernel (TCP_NOTSENT_LOWAT) so stream priorities choose what is sent next, as h2o does (default 16KiB); off: the kernel queues whatever the server writes, as nginx does", parse: .lateBinding) var lateBinding: LateBinding?
    @Option("--tls-records", value: "R", help: "TLS record sizing: dynamic (default), 16k, or a fixed size such as 4KiB", parse: .tlsRecords) var tlsRecords: TLSRecordPolicy?
    @Flag("--pages", help: "serve browsers (requests with a User-Agent) real pages: HTML, CSS and JavaScript that load the scenario's resources, at their exact sizes; prints the Chromium flags that trust this server") var pages: Bool

    func run() throws -> ExitCode {
        let (transports, listen, caOut, pages) = (self.transports, self.listen, self.caOut, self.pages)
        let withTCP = transports.contains(.h1) || transports.contains(.h2)
        let withQUIC = transports.contains(.h3)
        let keylog = self.keylog ?? ProcessInfo.processInfo.environment["SSLKEYLOGFILE"]
        let scenario = try Scenario.load(from: file)
        let credentials = try makeCredentials(hosts: scenario.origins.map(\.host))
        if let caOut {
            do { try credentials.caPEM.write(toFile: caOut, atomically: true, encoding: .utf8) } catch {
                throw BenchError.run("\(caOut): cannot write the CA certificate: \(error.localizedDescription)")
            }
        }
        // h2 alone still answers HTTP/1.1 clients by ALPN, as servers do; h1 alone offers only HTTP/1.1.
        var options = ServerHost.ServerOptions(keyLogFile: keylog, alpn: transports.contains(.h2) ? ["h2", "http/1.1"] : ["http/1.1"])
        options.advertiseHTTP3 = withTCP && withQUIC
        options.renderPages = pages
        options.tlsRecords = tlsRecords ?? .dynamic
        options.lateBinding = lateBinding ?? .standard
        let digest = ScenarioDigest.of(fileBytes: [UInt8](FileManager.default.contents(atPath: file) ?? Data()))
        options.descriptions = [ServerDescription(netbenchVersion: netbenchVersion, scenarios: [.init(name: scenario.name, sha256: digest)])]
        let host: ServerHost
        do {
            host = try ServerHost(scenarios: [scenario], credentials: credentials, address: listen.address, port: listen.port,
                                  namespace: nil, withTCP: withTCP, withQUIC: withQUIC, options: options)
        } catch {
            throw BenchError.run("cannot listen on \(listen): \(error)")
        }
        let bound = host.endpoints[0].tcp ?? host.endpoints[0].udp!
        let sockets = [withTCP ? "TCP" : nil, withQUIC ? "UDP" : nil].compactMap { $0 }.joined(separator: " + ")
        // Unbuffered: scripts wait for these lines to know the server is up.
        let banner = """
        netbench serve: \(scenario.name) over \(transports.map(\.rawValue).joined(separator: ",")) on \(bound) (\(sockets))
        origins: \(scenario.origins.map(\.host).joined(separator: ", "))
        \(certificateLine(credentials, hosts: scenario.origins.map(\.host), caOut: caOut))
        description: https://\(scenario.origins.first?.host ?? "HOST"):\(bound.port)\(ServerDescription.path) (scenario sha256 \(digest))
        \(pages ? try Self.chromiumHint(scenario, credentials, bound, withQUIC && !withTCP ? .h3 : .h2) : "")Ctrl-C stops.

        """
        FileHandle.standardOutput.write(banner.data(using: .utf8)!)
        let stop = DispatchSemaphore(value: 0)
        let interrupt = InterruptHandler(message: "stopping the server") { stop.signal() }
        stop.wait()
        interrupt.remove()
        host.stop()
        return .success
    }

    /// The generated CA, or the user's --cert/--key (checked: errors name the file, exit 65).
    func makeCredentials(hosts: [String]) throws -> RunCredentials {
        switch (cert, key) {
        case (nil, nil): return try RunCredentials(hosts: hosts)
        case (.some, nil): throw BenchError.usage("--cert needs --key (the certificate's private key)")
        case (nil, .some): throw BenchError.usage("--key needs --cert")
        case (.some(let cert), .some(let key)):
            if caOut != nil { throw BenchError.usage("--ca-out writes the generated CA; with --cert/--key none is generated") }
            func read(_ path: String) throws -> String {
                guard let data = FileManager.default.contents(atPath: path) else { throw BenchError.data("\(path): does not exist or cannot be read") }
                return String(decoding: data, as: UTF8.self)
            }
            do {
                return RunCredentials(identity: try PEMIdentity.checked(certificateChainPEM: try read(cert), certificateFile: cert,
                                                                        privateKeyPEM: try read(key), keyFile: key))
            } catch let e as PEMIdentity.FileProblem { throw BenchError.data("\(e)") }
        }
    }

    func certificateLine(_ c: RunCredentials, hosts: [String], caOut: String?) -> String {
        guard let cert else {
            return "CA certificate: \(caOut.map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? "not written (give --ca-out FILE)")"
        }
        let uncovered = c.identities.first?.hostNamesNotCovered(hosts) ?? []
        return "certificate: \(cert)" + (uncovered.isEmpty ? " (covers every origin)" : " (does not cover \(uncovered.joined(separator: ", ")): clients verifying those names fail)")
    }

    /// The page to open and the flags that make Chromium trust and reach this server.
    static func chromiumHint(_ s: Scenario, _ c: RunCredentials, _ bound: Endpoint, _ t: TransportKind) throws -> String {
        let pins = try c.identities.map { try $0.leafPublicKeySHA256Base64() }.joined(separator: ",")
        let a = bound.address
        let ip = "\(a >> 24).\((a >> 16) & 255).\((a >> 8) & 255).\(a & 255)"
        let hosts = s.origins.map(\.host)
        var flags = "--ignore-certificate-errors-spki-list=\(pins) --host-resolver-rules=\"" + hosts.map { "MAP \($0) \(ip)" }.joined(separator: ", ") + "\""
        if t == .h3 { flags += " --origin-to-force-quic-on=" + hosts.map { "\($0):\(bound.port)" }.joined(separator: ",") }
        let root = s.root.map { "https://\(s.origin(id: $0.origin)?.host ?? ""):\(bound.port)\($0.path)" } ?? ""
        return "page: \(root)\nChromium flags: \(flags)\n"
    }
}

extension ValueParser where T == Endpoint {
    static var endpoint: ValueParser<Endpoint> { .init(expected: "ADDR:PORT (e.g. 127.0.0.1:8443)") { Endpoint($0) } }
}
