import Foundation
import BenchCore
import BenchModel
import Runner
import Testbed
import Browsers
import Workloads
import RemoteExecution
import Statistics
import SystemIO
import CommandLineKit

/// `netbench responsiveness`: latency under load (RPM), per queue size and transport.
struct ResponsivenessCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "responsiveness",
            abstract: "latency under load (RPM) per queue size, transport and direction",
            discussion: """
                Measures responsiveness as the IETF draft "Responsiveness under Working Conditions" \
                (draft-ietf-ippm-responsiveness-08) does, through the profile's emulated link with each --queue size \
                (bdp: one bandwidth-delay product; 4bdp; 1s: a bloated queue holding 1 s at the downlink rate). \
                Idle, then with --load-flows bulk transfers per loaded direction filling the queue (after --ramp-up), \
                it sends every 100 ms a foreign probe (a new connection: TCP and TLS handshakes, or the QUIC \
                handshake, then a 1-byte GET on it) and a self probe (a 1-byte GET on a load-generating connection; \
                idle: on a quiet one). --direction chooses what the load saturates: down (GETs of an endless body), \
                up (POSTs of an endless body) or bidir (both); --mode chooses how bidir loads them, as the draft's \
                concurrent and sequential tests: parallel (both at once, one RPM) or sequential (a download phase, \
                then an upload phase, each with its own RPM). Each probe kind is reduced to its trimmed mean TM \
                (slowest 5% dropped); Foreign RPM = 60000 / mean of TM(tcp), TM(tls), TM(http) (QUIC: TM(quic), \
                TM(http)); Self RPM = 60000 / TM(http on the loaded connection); RPM = their mean. Probes still in \
                flight when a phase ends get up to 6 s; those unanswered are counted and left out. The load flows \
                ask for incremental priority (RFC 9218 u=3, i) so that an HTTP/3 server interleaves the self probes; \
                the h2 client keeps at most 16 KiB unsent in the kernel (TCP_NOTSENT_LOWAT), as the draft asks of \
                test endpoints. A GET on an HTTP/3 upload connection never completes here (the client's nghttp3 \
                0.8 sends the endless upload first), so those self probes are the load connections' smoothed RTT, \
                the draft's fallback (counted apart). \
                NBDP queues hold at least 30 packets; both directions get the same queue in bytes. Deviations from \
                the draft: a fixed probe rate and a fixed number of load flows. Needs root (network namespaces and \
                TUN devices).
                """,
            examples: [
                "netbench responsiveness --profile interop",
                "netbench responsiveness --profile Cable --queue bdp,1s --transport h2",
                "netbench responsiveness --profile Cable --queue 1s,codel,fq_codel,pie",
                "netbench responsiveness --profile interop --direction up,bidir --mode parallel,sequential -o rpm.json",
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
    @Option(
        "--direction", value: "LIST", default: [ResponsivenessRun.Direction.down], defaultText: "down",
        help: "what the load saturates: down (downloads), up (uploads), bidir (both)",
        parse: .list(of: .choice())) var directions: [ResponsivenessRun.Direction]
    @Option(
        "--mode", value: "LIST", default: [ResponsivenessRun.Mode.parallel], defaultText: "parallel",
        help: "how bidir loads both directions: parallel (at once, one RPM) or sequential (down, then up)",
        parse: .list(of: .choice())) var modes: [ResponsivenessRun.Mode]
    @Option(
        "--load-flows", value: "N", default: 4, help: "bulk transfers per loaded direction", parse: .int(1...32))
    var loadFlows: Int
    @Option(
        "--duration", value: "D", default: 4_000_000_000, defaultText: "4s",
        help: "probing time of each loaded phase (the idle phase takes half)", parse: .duration(atLeast: 500_000_000))
    var duration: Nanoseconds
    @Option(
        "--ramp-up", value: "D", default: 4_000_000_000, defaultText: "4s",
        help: "load time before loaded probes begin (the load fills the queue)", parse: .duration()) var rampUp:
        Nanoseconds
    @Flag(
        "--ecn",
        help: "ECN at the endpoints, as run --ecn: TCP negotiates it in the emulated namespaces (the loads use "
            + "cubic, which reacts to CE), QUIC sends ECT(0)") var ecn: Bool
    @Option(
        "--output", "-o", value: "FILE.json",
        help: "write every cell's record (RPM, trimmed means in ms, probe counts, load in Mbit/s) as JSON",
        parse: .file("json")) var output: String?

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

    /// The (direction, mode) cells: a mode matters for bidir only.
    var loads: [(ResponsivenessRun.Direction, ResponsivenessRun.Mode?)] {
        directions.flatMap { d in d == .bidir ? modes.map { (d, Optional($0)) } : [(d, nil)] }
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
        var records: [ResponsivenessRecord] = []
        var failed = false
        for (q, p) in profiles {
            for t in transports {
                for (direction, mode) in loads {
                    let label = mode.map { "\(direction) \($0)" } ?? direction.rawValue
                    writeError("\(base.name), queue \(q), \(t.rawValue), \(label)…")
                    var r = ResponsivenessRun(profile: p, transport: t, library: library)
                    r.direction = direction
                    r.mode = mode ?? .parallel
                    r.loadFlows = loadFlows
                    r.loadedDuration = duration
                    r.idleDuration = duration / 2
                    r.rampUp = rampUp
                    r.ecn = ecn
                    var record = ResponsivenessRecord(
                        profile: base.name, queue: q.description, transport: t, direction: direction.rawValue)
                    record.mode = mode?.rawValue
                    if ecn { record.ecn = true }
                    do {
                        let o = try r.execute()
                        if o.idle.result == nil || o.loaded.contains(where: { $0.probes.result == nil }) {
                            failed = true
                        }
                        record.take(o)
                        rows += Self.rows(queue: q, transport: t, o)
                    } catch {
                        failed = true
                        record.error = "\(error)"
                        rows.append("\(q) \(t.rawValue) \(label): failed: \(error)")
                    }
                    records.append(record)
                    if let output { try AtomicFile.write(try JSONFile.encode(records), to: output) }
                }
            }
        }
        print("responsiveness on \(base.name) (\(base.summary)), \(loadFlows) load flows per direction")
        print(rows.joined(separator: "\n"))
        return failed ? .runFailed : .success
    }

    static let header =
        "queue       bytes      tr  load       idle RPM (foreign/self)  loaded RPM (foreign/self)  loaded self ms  "
            + "down Mbit/s  up Mbit/s  probes idle/loaded (unfinished)"

    /// One line per loaded phase (the idle figures repeat on each).
    static func rows(queue: ResponsivenessQueue, transport: TransportKind, _ o: ResponsivenessRun.Outcome) -> [String]
    {
        func rpm(_ r: Responsiveness.Result?) -> String {
            guard let r else { return "—" }
            return "\(Units.format(r.rpm, 0)) (\(Units.format(r.foreignRPM, 0))/\(Units.format(r.selfRPM, 0)))"
        }
        func pad(_ s: String, _ n: Int) -> String {
            s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count)
        }
        return o.loaded.map { l in
            let counts =
                "\(o.idle.foreignProbes + o.idle.selfProbes)/\(l.probes.foreignProbes + l.probes.selfProbes) "
                + "(\(o.idle.unfinished)/\(l.probes.unfinished))"
            var line =
                pad(queue.description, 12) + pad(o.queueLimitBytes.map { Units.formatBytes(Int64($0)) } ?? "?", 11)
                + pad(transport.rawValue, 4) + pad(l.load.rawValue, 11)
                + pad(rpm(o.idle.result), 25) + pad(rpm(l.probes.result), 27)
                + pad(l.probes.result.map { Units.format($0.selfHTTPMs, 1) } ?? "—", 16)
                + pad(l.downloadMbps.map { Units.format($0, 2) } ?? "—", 13)
                + pad(l.uploadMbps.map { Units.format($0, 2) } ?? "—", 11) + counts
            if !o.emulatorFlags.isEmpty { line += "  FLAGGED: " + o.emulatorFlags.joined(separator: "; ") }
            if l.probes.selfEstimated > 0 { line += "  self = QUIC smoothed RTT (\(l.probes.selfEstimated))" }
            if let f = l.probes.firstFailure ?? o.idle.firstFailure { line += "  first probe failure: \(f)" }
            return line
        }
    }
}

extension ResponsivenessRecord {
    /// The outcome's phases as records.
    mutating func take(_ o: ResponsivenessRun.Outcome) {
        queueBytes = o.queueLimitBytes
        emulatorFlags = o.emulatorFlags.isEmpty ? nil : o.emulatorFlags
        idle = Self.phase("idle", o.idle)
        loaded = o.loaded.map { l in
            var p = Self.phase(l.load.rawValue, l.probes)
            p.downloadMbps = l.downloadMbps
            p.uploadMbps = l.uploadMbps
            if ecn == true { p.ecnLoadConnections = l.ecnConnections }
            return p
        }
    }

    static func phase(_ load: String, _ p: ResponsivenessRun.Phase) -> Phase {
        var r = Phase(load: load, foreignProbes: p.foreignProbes, selfProbes: p.selfProbes, unfinished: p.unfinished)
        r.firstFailure = p.firstFailure
        r.selfProbesEstimated = p.selfEstimated > 0 ? p.selfEstimated : nil
        if let x = p.result {
            r.rpm = x.rpm; r.foreignRPM = x.foreignRPM; r.selfRPM = x.selfRPM
            r.handshakeMs = x.handshakeMs; r.foreignHTTPMs = x.foreignHTTPMs; r.selfHTTPMs = x.selfHTTPMs
        }
        return r
    }
}
