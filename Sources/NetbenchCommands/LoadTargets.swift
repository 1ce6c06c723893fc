import Foundation
import BenchCore
import BenchModel
import Testbed
import Workloads
import RemoteExecution
import SystemIO
import Transport
import TLS
import QUIC
import CommandLineKit

/// `--rate R/s` or a ramp `A..B/s` (requests per second, > 0; a ramp's end not below its start);
/// with `%` (`50%`, `50..90%`), shares of an emulated link's capacity (`-p PROFILE`).
struct LoadRate: CustomStringConvertible {
    var from: Double
    var to: Double?
    /// `from` and `to` are percentages of the link's capacity, not requests per second.
    var percent = false
    var description: String {
        let unit = percent ? "%" : "/s"
        return to.map { "\(Units.format(from, 0))..\(Units.format($0, 0))\(unit)" } ?? "\(from)\(unit)"
    }

    static var parser: ValueParser<LoadRate> {
        .init(
            expected: "a rate in requests per second above 0 (e.g. 5000/s), a ramp A..B/s, or with -p a share "
                + "of the link's capacity (e.g. 50%, 50..90%)"
        ) { text in
            var t = text.trimmingCharacters(in: .whitespaces)
            let percent = t.hasSuffix("%")
            if percent { t.removeLast(1) } else if t.hasSuffix("/s") { t.removeLast(2) }
            let parts = t.components(separatedBy: "..")
            let values = parts.map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard (1...2).contains(parts.count), values.allSatisfy({ $0.map { $0.isFinite && $0 > 0 } ?? false })
            else { return nil }
            let rate = LoadRate(from: values[0]!, to: parts.count == 2 ? values[1]! : nil, percent: percent)
            if let to = rate.to, to < rate.from {
                throw BenchError.usage("--rate '\(text)': the ramp's end \(parts[1]) is below its start \(parts[0])")
            }
            return rate
        }
    }

    /// In requests per second: a percentage of `capacity` when `percent`.
    func resolved(capacity: Double?) throws -> LoadRate {
        guard percent else { return self }
        guard let capacity else {
            throw BenchError.usage(
                "--rate \(self): a share of the link's capacity needs -p PROFILE with a downlink rate and targets "
                    + "of known sizes")
        }
        return LoadRate(from: from / 100 * capacity, to: to.map { $0 / 100 * capacity })
    }

    /// One step, or a ramp's steps of `step` each: round(duration / step) of them, at least 2.
    func steps(duration: Nanoseconds, step: Nanoseconds?) -> [(rate: Double, duration: Nanoseconds)] {
        guard let to, let step else { return [(from, duration)] }
        let count = max(2, Int((Double(duration) / Double(step)).rounded()))
        return LoadSchedule.ramp(from: from, to: to, count: count, stepDuration: step).map { ($0.rate, $0.duration) }
    }
}

/// What URL targets send (`--method`, `--body-file`, `--content-type`): GET without a body by default.
struct URLRequestSpec {
    var method = "GET"
    var body: [UInt8] = []
    var contentType: String?
}

/// Where a load's requests go and who checks the answers: the in-process replay server, `--server`,
/// or the URLs' own host.
struct LoadTargets {
    var targets: [LoadTarget]
    var host: ServerHost?
    /// `-t quic-perf` in process: a perf server beside the replay server (same address or namespace).
    var perfHost: ServerHost?
    /// `-p PROFILE`: the emulated network the in-process server sits behind.
    var testbed: LoadTestbed?
    var endpoints: ServerHost.Endpoints
    var credentials: RunCredentials
    var serverLine: String
    var loopback: Bool

    var serverNames: [String] {
        var names: [String] = []
        for t in targets where !names.contains(t.serverName) { names.append(t.serverName) }
        return names
    }

    static func isURL(_ text: String) -> Bool { text.hasPrefix("https://") || text.hasPrefix("http://") }
    /// A URL or a URL list (`@FILE`).
    static func isURLTarget(_ text: String) -> Bool { isURL(text) || text.hasPrefix("@") }

    /// What a load over `t` requests: quic-perf asks for each target's size on a stream of its own.
    /// With `upload`, every perf stream uploads that many bytes (else a resource's request body size).
    func targets(for t: LoadTransport, upload: Int64? = nil) -> [LoadTarget] {
        guard t == .quicPerf else { return targets }
        let perf = targets.compactMap(\.perf)
        return upload.map { n in perf.map { $0.uploading(n) } } ?? perf
    }

    func remote(_ t: LoadTransport) throws -> Endpoint {
        if t == .quicPerf, let perf = perfHost?.endpoints.first?.udp { return perf }
        guard let e = t.overQUIC ? endpoints.udp : endpoints.tcp else {
            throw BenchError.run("no \(t.overQUIC ? "QUIC" : "TCP") listener for \(t.rawValue)")
        }
        return e
    }

    /// The in-process server that answers `t` (its thread's CPU is the load's server CPU).
    func server(_ t: LoadTransport) -> ServerHost? { t == .quicPerf ? perfHost : host }

    func client(_ t: LoadTransport) throws -> ClientSettings {
        var tls: TLSClientContext?
        if let http = t.http, http != .h3 {
            var cfg = TLSClientConfiguration(
                trustedRootsPEM: credentials.systemRoots ? "" : credentials.caPEM, alpn: [http.alpn])
            cfg.systemRoots = credentials.systemRoots
            tls = try TLSClientContext(cfg)
        }
        var quic = testbed?.quic ?? QUICConfiguration()
        if loopback { quic.initialRTT = .milliseconds(1) }
        var settings = ClientSettings(tls: tls, quic: quic, trustedRootsPEM: credentials.caPEM)
        settings.namespace = testbed?.clientNamespace
        return settings
    }

    /// The client's address on an emulated network's first path; nil elsewhere.
    var local: Endpoint? { testbed?.clientAddress.map { Endpoint(address: $0, port: 0) } }

    /// Stops the in-process server and removes the emulated network, if any.
    func close() {
        perfHost?.stop()
        if let testbed { testbed.close() } else { host?.stop() }
    }

    /// The link record of a load through `testbed`: its rates, RTT, capacity and ideal for these targets.
    func linkRecord() -> LoadLinkRecord? {
        guard let testbed else { return nil }
        let sizes = targets.compactMap(\.expectedBytes)
        let mean = sizes.isEmpty ? 0 : Double(sizes.reduce(0, +)) / Double(sizes.count)
        return LoadLinkRecord(
            profile: testbed.profile.name, rttMs: testbed.rttMs, downlinkBitsPerSecond: testbed.downlinkBitsPerSecond,
            uplinkBitsPerSecond: testbed.uplinkBitsPerSecond, responseBytes: mean)
    }

    static func resolve(
        _ texts: [String], server: String?, ca: String?, size: Int64, transports: [LoadTransport],
        profile: Profile? = nil, urlRequest: URLRequestSpec = .init()
    ) throws -> LoadTargets {
        var scenarios: [Scenario] = []
        var targets: [LoadTarget] = []
        var urlAuthorities: [String] = []
        // `@FILE`: its URLs in their weighted order (`urlList`), where the list was given.
        var items: [String] = []
        for text in texts {
            if text.hasPrefix("@") { items += try urlList(String(text.dropFirst())) } else { items.append(text) }
        }
        for text in items {
            if isURL(text) {
                var (target, authority) = try parseURL(text)
                target.method = urlRequest.method
                target.body = urlRequest.body
                target.bodyLength = Int64(urlRequest.body.count)
                target.contentType = urlRequest.contentType
                targets.append(target)
                urlAuthorities.append(authority)
            } else {
                let s = try Scenario.load(from: text)
                scenarios.append(s)
                targets += s.resources.map { r in
                    LoadTarget(
                        serverName: s.origins.first { $0.id == r.origin }?.host ?? r.origin, path: r.path,
                        expectedBytes: r.bytes, method: r.httpMethod, body: r.requestBody?.bytes ?? [],
                        contentType: r.requestBody?.contentType)
                }
            }
        }
        if let profile, server != nil || !urlAuthorities.isEmpty {
            throw BenchError.usage(
                "-p \(profile.name): the emulated link is between this process and its in-process server; "
                    + "it cannot be used with --server or URL targets")
        }
        if transports.contains(.quicPerf), !urlAuthorities.isEmpty {
            throw BenchError.usage(
                "-t quic-perf asks a perf server for sizes, not URLs: give --server HOST:PORT with a scenario "
                    + "(its resources' sizes) or --size, or no target (the in-process perf server)")
        }
        if let server {
            let endpoint: RemoteEndpoint
            do { endpoint = try RemoteEndpoint(parsing: server) } catch { throw BenchError.usage("\(error)") }
            if targets.isEmpty, transports == [.quicPerf] {
                targets = [LoadTarget(serverName: endpoint.host, path: "/obj", expectedBytes: size)]
            }
            guard !targets.isEmpty else {
                throw BenchError.usage(
                    "--server \(server) needs a scenario file or URL target (what to request), "
                        + "unless -t quic-perf alone (streams of --size bytes)")
            }
            let address = Endpoint(address: try resolve(endpoint.host, what: "--server \(server)"), port: endpoint.port)
            // A server on loopback gets QUIC's loopback initial RTT, as a URL's does (no 333 ms pacing).
            return LoadTargets(
                targets: targets, host: nil, endpoints: .init(tcp: address, udp: address),
                credentials: try trust(ca), serverLine: "\(endpoint)", loopback: address.address >> 24 == 127)
        }
        if !urlAuthorities.isEmpty {
            guard scenarios.isEmpty, Set(urlAuthorities).count == 1 else {
                throw BenchError.usage(
                    "URL targets without --server must all name one HOST:PORT, and not be mixed with scenario files "
                        + "(got \(Set(urlAuthorities).sorted().joined(separator: ", ")))")
            }
            let e = try RemoteEndpoint(parsing: urlAuthorities[0])
            let address = Endpoint(address: try resolve(e.host, what: urlAuthorities[0]), port: e.port)
            return LoadTargets(
                targets: targets, host: nil, endpoints: .init(tcp: address, udp: address),
                credentials: try trust(ca), serverLine: "\(e)", loopback: address.address >> 24 == 127)
        }
        if scenarios.isEmpty {
            let s = generated(size: size)
            scenarios = [s]
            targets = [LoadTarget(serverName: "localhost", path: "/obj", expectedBytes: size)]
        }
        guard scenarios.count == 1 else {
            throw BenchError.usage("the in-process server takes one scenario file (or use --server)")
        }
        return try inProcess(scenarios[0], targets: targets, transports: transports, profile: profile)
    }

    /// The replay server (for the HTTP transports) and, for quic-perf, a perf server, in this process: on
    /// loopback, or behind `profile`'s emulated link in its server namespace.
    static func inProcess(
        _ scenario: Scenario, targets: [LoadTarget], transports: [LoadTransport], profile: Profile?
    ) throws -> LoadTargets {
        let withQUIC = transports.contains(.h3), withPerf = transports.contains(.quicPerf)
        let withHTTP = transports.contains { $0.http != nil }
        let credentials = try RunCredentials(hosts: scenario.origins.map(\.host))
        if let profile, profile.isEmulated {
            let testbed = try LoadTestbed(
                profile: profile, scenarios: [scenario], credentials: credentials,
                withTCP: transports.contains { !$0.overQUIC }, withQUIC: withQUIC)
            var perf: ServerHost?
            do {
                if withPerf {
                    perf = try InProcessPerfServers.perfServer(
                        scenario, credentials, testbed.quic, address: testbed.network.serverAddress,
                        namespace: testbed.network.serverNamespace)
                }
            } catch {
                testbed.close()
                throw error
            }
            let endpoints = testbed.servers.endpoints[0]
            let listeners: [String] = [
                endpoints.tcp.map { "TCP \($0)" }, endpoints.udp.map { "QUIC \($0)" },
                perf?.endpoints.first?.udp.map { "perf QUIC \($0)" },
            ].compactMap { $0 }
            let line =
                "netbench serve in process behind profile \(profile.name) (\(profile.summary); "
                + listeners.joined(separator: ", ") + ")"
            return LoadTargets(
                targets: targets, host: testbed.servers, perfHost: perf, testbed: testbed, endpoints: endpoints,
                credentials: credentials, serverLine: line, loopback: false)
        }
        var host: ServerHost?
        if withHTTP {
            host = try ServerHost(
                scenarios: [scenario], credentials: credentials, address: Endpoint.loopbackAddress, namespace: nil,
                withQUIC: withQUIC)
        }
        var quic = QUICConfiguration()
        quic.initialRTT = .milliseconds(1)
        var perf: ServerHost?
        do {
            if withPerf {
                perf = try InProcessPerfServers.perfServer(
                    scenario, credentials, quic, address: Endpoint.loopbackAddress, namespace: nil)
            }
        } catch {
            host?.stop()
            throw error
        }
        let endpoints = host?.endpoints[0] ?? .init(tcp: nil, udp: nil)
        var parts: [String] = []
        if host != nil {
            parts.append(
                "netbench serve in process (\(endpoints.tcp.map { "\($0)" } ?? "")"
                    + (endpoints.udp.map { ", QUIC \($0)" } ?? "") + ")")
        }
        if let udp = perf?.endpoints.first?.udp { parts.append("netbench perf server in process (QUIC \(udp))") }
        return LoadTargets(
            targets: targets, host: host, perfHost: perf, endpoints: endpoints, credentials: credentials,
            serverLine: parts.joined(separator: ", "), loopback: true)
    }

    /// One resource at /obj of `size` bytes, no think time.
    static func generated(size: Int64) -> Scenario {
        Scenario(
            name: "load-\(size)B", origins: [.init(id: "o", host: "localhost")],
            resources: [.init(id: "obj", origin: "o", path: "/obj", bytes: size, type: .other)])
    }

    static func parseURL(_ text: String) throws -> (LoadTarget, String) {
        guard text.hasPrefix("https://") else {
            throw BenchError.usage("'\(text)': only https:// URLs (netbench speaks HTTP over TLS or QUIC)")
        }
        let rest = text.dropFirst(8)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = String(rest[..<slash])
        let path = slash == rest.endIndex ? "/" : String(rest[slash...])
        guard !authority.isEmpty, !authority.contains("@"), !authority.contains(" "), !path.contains(" ") else {
            throw BenchError.usage("'\(text)': not a URL this command reads (https://HOST[:PORT]/PATH)")
        }
        let withPort = authority.contains(":") ? authority : authority + ":443"
        let e: RemoteEndpoint
        do { e = try RemoteEndpoint(parsing: withPort) } catch { throw BenchError.usage("'\(text)': \(error)") }
        return (LoadTarget(serverName: e.host, path: path), "\(e)")
    }

    /// The largest sum of weights a URL list may have: the list is laid out once, one entry per unit of
    /// weight, and the generator goes round it (no draw per request).
    static let maxListWeight = 10_000

    /// A weighted URL list (`@FILE`): one URL per line, optionally followed by a whole-number weight
    /// (default 1); blank lines and lines starting with `#` are skipped. Returns each URL as often as its
    /// weight, interleaved by smooth weighted round robin (nginx's: weights 3 and 1 give a, a, b, a), so
    /// that the requests go in proportion to the weights over every round of the list. A line that does
    /// not parse is a data error naming the file, the line and the value (65).
    static func urlList(_ path: String) throws -> [String] {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else { throw BenchError.data("@\(path): not a readable UTF-8 text file (a URL list: one URL per line)") }
        var entries: [(url: String, weight: Int)] = []
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines).escapingControlCharacters
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            let at = "@\(path) line \(i + 1)"
            guard fields.count <= 2 else {
                throw BenchError.data(
                    "\(at): '\(line)': expected a URL and at most a weight (https://HOST[:PORT]/PATH 3)")
            }
            do { _ = try parseURL(fields[0]) } catch let e as BenchError {
                throw BenchError.data("\(at): \(e.message)")
            }
            var weight = 1
            if fields.count == 2 {
                guard let w = Int(fields[1]), (1...maxListWeight).contains(w) else {
                    throw BenchError.data(
                        "\(at): weight '\(fields[1])' is not a whole number from 1 to \(maxListWeight)")
                }
                weight = w
            }
            entries.append((fields[0], weight))
        }
        guard !entries.isEmpty else { throw BenchError.data("@\(path): no URL in the list") }
        let total = entries.reduce(0) { $0 + $1.weight }
        guard total <= maxListWeight else {
            throw BenchError.data("@\(path): the weights add up to \(total), more than \(maxListWeight)")
        }
        var current = Array(repeating: 0, count: entries.count)
        var order: [String] = []
        order.reserveCapacity(total)
        for _ in 0..<total {
            for j in entries.indices { current[j] += entries[j].weight }
            let best = current.indices.max { current[$0] < current[$1] || (current[$0] == current[$1] && $0 > $1) }!
            current[best] -= total
            order.append(entries[best].url)
        }
        return order
    }

    static func resolve(_ host: String, what: String) throws -> UInt32 {
        if let a = Endpoint.parseAddress(host) { return a }
        if host == "localhost" { return Endpoint.loopbackAddress }
        let addresses = try NameResolution.streamAddresses(host: host, port: nil, ipv4Only: true)
        guard let a = addresses.compactMap(\.ipv4).first else { throw BenchError.run("\(what): no IPv4 address") }
        return a
    }

    static func trust(_ ca: String?) throws -> RunCredentials {
        guard let ca else { return try RunCredentials.systemStore() }
        guard let pem = FileManager.default.contents(atPath: ca).flatMap({ String(data: $0, encoding: .utf8) }),
            pem.contains("BEGIN CERTIFICATE")
        else { throw BenchError.data("\(ca): not a readable PEM certificate file") }
        return RunCredentials(caPEM: pem)
    }
}

/// The terminal summary of one load, with units.
enum LoadSummary {
    static func text(_ r: LoadRecord) -> String {
        func ms(_ v: Double) -> String { Units.format(v, v < 10 ? 3 : 1) }
        func rate(_ v: Double) -> String { Units.format(v, v < 100 ? 1 : 0) }
        var lines: [String] = []
        let asked = r.steps.compactMap(\.rate)
        let model =
            r.model == "open"
            ? "open, "
                + (asked.count == 1
                    ? "\(rate(asked[0])) req/s" : "\(rate(asked.first!))..\(rate(asked.last!)) req/s")
            : "closed"
        lines.append(
            "\(r.transport.rawValue): \(model), \(r.connections) connections × \(r.streams) streams, "
                + "\(Units.format(r.durationMs / 1000, 1)) s")
        lines.append(
            "  achieved \(rate(r.achievedRate)) req/s (\(r.ok) ok of \(r.sent) sent"
                + (r.model == "open" ? ", \(r.scheduled) due" : "") + "), "
                + "\(Units.formatBytes(r.bytes)) received, "
                + (r.bytesUploaded.map { $0 > 0 ? "\(Units.formatBytes($0)) uploaded, " : "" } ?? "")
                + (r.upload.map { "\(Units.formatBytes($0)) upload per stream, " } ?? "")
                + "\(r.connectionsOpened) connections opened")
        lines.append("  latency " + latencyLine(r.latencyMs))
        if let link = r.link { lines += linkLines(link, r) }
        if r.steps.count > 1 {
            for s in r.steps {
                lines.append(
                    "  step \(rate(s.rate ?? 0)) req/s: achieved \(rate(s.achievedRate)) req/s, "
                        + latencyLine(s.latencyMs))
            }
        }
        let errors = r.errors.sorted { $0.key < $1.key }
        lines.append(
            "  errors " + (errors.isEmpty ? "0" : errors.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
        for (kind, _) in errors { lines.append("    \(kind): \(r.errorExamples[kind] ?? "")") }
        if r.behind {
            let due = r.durationMs > 0 ? Double(r.scheduled) / (r.durationMs / 1000) : 0
            lines.append(
                "  BEHIND: asked \(rate(due)) req/s, achieved \(rate(r.achievedRate)) req/s"
                    + (r.unsent > 0 ? "; \(r.unsent) due requests never sent (every stream busy)" : "")
                    + (r.sendLagMs.map { "; send lag p99 \(ms($0.p99)) ms, max \(ms($0.max)) ms" } ?? ""))
        }
        var cpu: [String] = []
        func perRequest(_ name: String, _ ms: Double) -> String {
            "\(name) \(Units.format(ms / 1000, 2)) s (\(Units.format(ms * 1000 / Double(r.sent), 1)) µs/request)"
        }
        if let g = r.generatorCpuMs, r.sent > 0 { cpu.append(perRequest("generator", g)) }
        if let s = r.serverCpuMs, r.sent > 0 { cpu.append(perRequest("server", s)) }
        if !cpu.isEmpty { lines.append("  CPU " + cpu.joined(separator: ", ")) }
        return lines.joined(separator: "\n")
    }

    /// The link's capacity and ideal beside the measured latency (`-p PROFILE`).
    static func linkLines(_ link: LoadLinkRecord, _ r: LoadRecord) -> [String] {
        func ms(_ v: Double) -> String { Units.format(v, v < 10 ? 3 : 1) }
        let rate = link.downlinkMbps.map { "\(Units.format($0, $0 < 10 ? 1 : 0)) Mbit/s down" } ?? "no rate limit"
        let size = Units.formatBytes(Int64(link.responseBytes.rounded()))
        var lines = [
            "  link \(link.profile): \(rate), RTT \(ms(link.rttMs)) ms; capacity "
                + (link.capacityRate.map { "\(Units.format($0, 0)) req/s" } ?? "unknown (no downlink rate)")
                + " of \(size) responses"
                + (link.capacityRate.map { c in
                    r.model == "open" && r.durationMs > 0
                        ? " (asked \(Units.format(100 * Double(r.scheduled) / (r.durationMs / 1000) / c, 0))%)" : ""
                } ?? "")
        ]
        let l = r.latencyMs
        let ideal = link.idealMs
        func times(_ v: Double) -> String { "\(Units.format(v / ideal, 2))×" }
        lines.append(
            "  ideal \(ms(ideal)) ms (RTT + \(size) at the downlink rate)"
                + (l.count > 0
                    ? ": p50 \(times(l.p50)), p90 \(times(l.p90)), p99 \(times(l.p99)), max \(times(l.max))" : ""))
        if let wire = link.wireBytesPerResponse {
            lines.append(
                "  downlink \(Units.formatBytes(Int64(wire.rounded()))) per response on the wire"
                    + (link.downlinkUtilization.map { ", \(Units.format(100 * $0, 0))% of its rate" } ?? ""))
        }
        if let flags = link.emulatorFlags { lines.append("  EMULATOR FELL BEHIND: " + flags.joined(separator: "; ")) }
        return lines
    }

    static func latencyLine(_ l: LatencySummary) -> String {
        func ms(_ v: Double) -> String { Units.format(v, v < 10 ? 3 : 1) }
        guard l.count > 0 else { return "none (no successful response)" }
        return "p50 \(ms(l.p50)) ms, p90 \(ms(l.p90)) ms, p99 \(ms(l.p99)) ms, p99.9 \(ms(l.p999)) ms, "
            + "p99.99 \(ms(l.p9999)) ms, max \(ms(l.max)) ms"
    }
}
