import Foundation
import BenchCore
import BenchModel
import Runner
import Testbed
import Browsers
import Workloads
import RemoteExecution
import Statistics
import CommandLineKit

/// `netbench responsiveness`: latency under load (RPM), per queue size and transport.
struct ResponsivenessCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "responsiveness",
            abstract: "latency under load (RPM) per queue size and transport",
            discussion: """
                Measures responsiveness as the IETF draft "Responsiveness under Working Conditions" \
                (draft-ietf-ippm-responsiveness-08) does, through the profile's emulated link with each --queue size \
                (bdp: one bandwidth-delay product; 4bdp; 1s: a bloated queue holding 1 s at the downlink rate). \
                Idle, then with --load-flows bulk downloads filling the queue (after --ramp-up), it sends every 100 ms \
                a foreign probe (a new connection: TCP and TLS handshakes, or the QUIC handshake, then a 1-byte GET \
                on it) and a self probe (a 1-byte GET on a load-generating connection; idle: on a quiet one). \
                Each kind is reduced to its trimmed mean TM (slowest 5% dropped); Foreign RPM = 60000 / mean of \
                TM(tcp), TM(tls), TM(http) (QUIC: TM(quic), TM(http)); Self RPM = 60000 / TM(http on the loaded \
                connection); RPM = their mean. Probes still in flight when a phase ends get up to 6 s; those \
                unanswered are counted and left out. The load flows ask for incremental priority (RFC 9218 \
                u=3, i) so that an HTTP/3 server interleaves the self probes. NBDP queues hold at least 30 \
                packets. Deviations from the draft: a fixed probe rate, a fixed number of load flows, downloads \
                only. Needs root (network namespaces and TUN devices).
                """,
            examples: [
                "netbench responsiveness --profile interop",
                "netbench responsiveness --profile Cable --queue bdp,1s --transport h2",
                "netbench responsiveness --profile Cable --queue 1s,codel,fq_codel,pie",
            ],
            exitCodes: [
                ExitCodeDoc(.success, "every cell measured"),
                ExitCodeDoc(.runFailed, "a cell had no RPM (no probe answered) or the network could not be built"),
                Netbench.usageExit, Netbench.dataExit,
                ExitCodeDoc(.noPermission, "no privilege for network namespaces and TUN devices"),
            ])
    }

    @Option(
        "--profile", "-p", value: "NAME", help: "the link: a profile name or file with a constant rate and an RTT",
        parse: .nonEmpty) var profileName: String
    @Option(
        "--queue", "-q", value: "LIST", default: ["bdp", "4bdp", "1s"], defaultText: "bdp,4bdp,1s",
        help: "queues: drop-tail sizes NBDP (multiples of the bandwidth-delay product) or a drain time (1s); "
            + "drophead:SIZE; codel, fq_codel, pie (Linux defaults)",
        parse: .list(of: .nonEmpty)) var queueTexts: [String]
    @Option(
        "--transport", "-t", value: "LIST", default: [TransportKind.h2, .h3], defaultText: "h2,h3",
        help: "transports (h1, h2: TCP+TLS; h3: QUIC)", parse: .list(of: .choice())) var transports: [TransportKind]
    @Option("--load-flows", value: "N", default: 4, help: "bulk downloads that load the link", parse: .int(1...32))
    var loadFlows: Int
    @Option(
        "--duration", value: "D", default: 4_000_000_000, defaultText: "4s",
        help: "probing time of the loaded phase (the idle phase takes half)", parse: .duration(atLeast: 500_000_000))
    var duration: Nanoseconds
    @Option(
        "--ramp-up", value: "D", default: 4_000_000_000, defaultText: "4s",
        help: "load time before loaded probes begin (the load fills the queue)", parse: .duration()) var rampUp:
        Nanoseconds

    func validate() throws { _ = try queues() }

    func queues() throws -> [ResponsivenessQueue] {
        try queueTexts.map { t in
            guard let q = ResponsivenessQueue(t) else {
                throw BenchError.usage(
                    "--queue '\(t)': expected bdp, NBDP (e.g. 4bdp), a drain time (e.g. 1s, 500ms), "
                        + "droptail:SIZE, drophead:SIZE, codel, fq_codel or pie")
            }
            return q
        }
    }

    func run() throws -> ExitCode {
        let queues = try queues()
        let library = Library.locate()
        let base = try library.profile(profileName)
        guard base.isEmulated else {
            throw BenchError.usage("--profile \(profileName): not emulated; responsiveness needs an emulated link")
        }
        let profiles = try queues.map { q in
            guard let p = q.applied(to: base) else {
                throw BenchError.data(
                    "profile '\(base.name)': needs a constant downlink rate ('down') and an 'rtt' to size queues by")
            }
            return (q, p)
        }
        try PrivilegeGate.requireEmulation()
        var rows: [String] = [Self.header]
        var failed = false
        for (q, p) in profiles {
            for t in transports {
                writeError("\(base.name), queue \(q), \(t.rawValue)…")
                var r = ResponsivenessRun(profile: p, transport: t, library: library)
                r.loadFlows = loadFlows
                r.loadedDuration = duration
                r.idleDuration = duration / 2
                r.rampUp = rampUp
                do {
                    let o = try r.execute()
                    if o.idle.result == nil || o.loaded.result == nil { failed = true }
                    rows.append(Self.row(queue: q, transport: t, o))
                } catch {
                    failed = true
                    rows.append("\(q) \(t.rawValue): failed: \(error)")
                }
            }
        }
        print("responsiveness on \(base.name) (\(base.summary)), \(loadFlows) load flows")
        print(rows.joined(separator: "\n"))
        return failed ? .runFailed : .success
    }

    static let header =
        "queue       bytes      tr  idle RPM (foreign/self)    loaded RPM (foreign/self)   loaded self ms  load Mbit/s "
            + " probes idle/loaded (unfinished)"

    static func row(queue: ResponsivenessQueue, transport: TransportKind, _ o: ResponsivenessRun.Outcome) -> String {
        func rpm(_ r: Responsiveness.Result?) -> String {
            guard let r else { return "—" }
            return "\(Units.format(r.rpm, 0)) (\(Units.format(r.foreignRPM, 0))/\(Units.format(r.selfRPM, 0)))"
        }
        func pad(_ s: String, _ n: Int) -> String {
            s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count)
        }
        let counts =
            "\(o.idle.foreignProbes + o.idle.selfProbes)/\(o.loaded.foreignProbes + o.loaded.selfProbes) "
                + "(\(o.idle.unfinished)/\(o.loaded.unfinished))"
        var line =
            pad(queue.description, 12) + pad(o.queueLimitBytes.map { Units.formatBytes(Int64($0)) } ?? "?", 11)
            + pad(transport.rawValue, 4)
            + pad(rpm(o.idle.result), 27) + pad(rpm(o.loaded.result), 28)
            + pad(o.loaded.result.map { Units.format($0.selfHTTPMs, 1) } ?? "—", 16)
            + pad(o.loadMbps.map { Units.format($0, 2) } ?? "—", 13) + counts
        if !o.emulatorFlags.isEmpty { line += "  FLAGGED: " + o.emulatorFlags.joined(separator: "; ") }
        if let f = o.loaded.firstFailure ?? o.idle.firstFailure { line += "  first probe failure: \(f)" }
        return line
    }
}
