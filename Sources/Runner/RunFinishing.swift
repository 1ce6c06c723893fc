import BenchCore
import BenchModel
import LinkModel

/// The one step that finishes a run's record, for every executor (the testbed's, `run --server`'s):
/// the RTT and the lower bounds from what the document's connection negotiated, the note when cross
/// traffic shared the link, how far the emulator's lateness could have moved the figures, and a bulk
/// transfer's goodput. The scheduler's ETA and the testbed's time limits use the same bounds
/// (`plannedIdeal`) before anything was measured.
public struct RunFinishing: Sendable {
    /// The RTT the bounds are computed with, ms: configured (emulated) or measured; nil when unknown.
    public var rttMs: Double?
    /// Why the RTT is unknown, as the record's `idealNote` says it.
    public var rttProblem: String?
    /// The bottleneck's downlink rate; nil: serialization is free (loopback, a real network).
    public var downlinkBitsPerSecond: Double?
    /// TLS 1.2 was asked for (`--tls-version 1.2`): what a run's bounds assume when its record does
    /// not say what the connection negotiated.
    public var configuredTLS12: Bool
    /// Whether the server waits the scenario's think times (netbench serve) or answers at once.
    public var serverThinks: Bool
    /// The congestion controls of netbench's own server (TCP's, nil for the system's; QUIC's): a
    /// bulk download's bound then counts the server's slow start. nil: another server.
    public var ownServerCongestionControl: (tcp: String?, quic: String)?

    public init(
        rttMs: Double?, rttProblem: String? = nil, downlinkBitsPerSecond: Double? = nil,
        configuredTLS12: Bool = false, serverThinks: Bool = true
    ) {
        self.rttMs = rttMs
        self.rttProblem = rttProblem
        self.downlinkBitsPerSecond = downlinkBitsPerSecond
        self.configuredTLS12 = configuredTLS12
        self.serverThinks = serverThinks
    }

    /// The bounds of a run of `transport` before it ran: a cold first view with the configured TLS.
    public func plannedIdeal(_ transport: TransportKind) -> IdealPageLoad? {
        rttMs.map {
            var ideal = IdealPageLoad(
                rttMs: $0, downlinkBitsPerSecond: downlinkBitsPerSecond, transport: transport,
                tls12: configuredTLS12)
            ideal.thinkTimes = serverThinks
            ideal.slowStart = senderSlowStart(transport)
            return ideal
        }
    }

    /// The slow start of netbench's own server sending over `transport`; nil for another server.
    func senderSlowStart(_ transport: TransportKind) -> IdealPageLoad.SlowStart? {
        ownServerCongestionControl.map { .sender(congestionControl: transport == .h3 ? $0.quic : $0.tcp) }
    }

    /// Finishes `record` (a run of `scenario`): lateness bound, ideal, cross-traffic note, goodput.
    public func finish(_ record: inout RunRecord, scenario: Scenario) {
        record.applyLatenessBound(
            scenario: scenario, transport: record.transport,
            zeroRTT: record.connections.first?.earlyDataAccepted == true,
            downlinkBitsPerSecond: downlinkBitsPerSecond)
        setIdeal(&record, scenario)
        noteCrossTraffic(&record)
        setGoodput(&record, scenario)
    }

    /// The run's bounds, from what its document connection negotiated (read back, not requested):
    /// QUIC 0-RTT accepted: 1 RTT; TLS 1.2: 4 RTT, resumed 3; TLS 1.3: 3 RTT, resumed too (no
    /// TLS early data here). Unknown when the RTT is; no PLT bound for a bulk transfer without a
    /// bottleneck rate (`IdealPageLoad.missingBound`).
    func setIdeal(_ record: inout RunRecord, _ scenario: Scenario) {
        record.metrics.rttMs = rttMs
        guard let rttMs else {
            record.metrics.idealNote = rttProblem
            return
        }
        let doc = record.requests.first?.connection.flatMap { i in record.connections.first { $0.id == i } }
        let tls12 = doc?.tlsVersion.map { $0.hasSuffix("1.2") } ?? configuredTLS12
        var ideal = IdealPageLoad(
            rttMs: rttMs, downlinkBitsPerSecond: downlinkBitsPerSecond,
            transport: record.transport, zeroRTT: doc?.earlyDataAccepted == true,
            tls12: tls12, resumed: doc?.resumed == true)
        ideal.thinkTimes = serverThinks
        ideal.slowStart = senderSlowStart(record.transport)
        record.metrics.idealModel = ideal.modelDescription(for: scenario)
        record.metrics.idealTtfbMs = ideal.ttfbMs(scenario)
        if let missing = ideal.missingBound(scenario) {
            record.metrics.idealNote = missing
        } else {
            record.metrics.idealPltMs = ideal.pltMs(scenario)
        }
    }

    /// The page's ideal is the bound on an empty link: say so when flows competed for it.
    func noteCrossTraffic(_ record: inout RunRecord) {
        guard let n = record.crossTraffic?.flows.count, n > 0 else { return }
        let note = "the ideal assumes the whole link; \(n) cross-traffic flow\(n == 1 ? "" : "s") shared it"
        record.metrics.idealNote = record.metrics.idealNote.map { $0 + "; " + note } ?? note
    }

    /// Download: body bytes over first → last byte. Upload: body bytes over request sent → the
    /// server's answer, which leaves only once the last body byte arrived.
    func setGoodput(_ record: inout RunRecord, _ scenario: Scenario) {
        guard let bulk = scenario.bulk, record.status == .ok, let req = record.requests.first else { return }
        let window =
            bulk.direction == .download
            ? (req.lastByte ?? 0) - (req.firstByte ?? 0)
            : (req.firstByte ?? 0) - (req.requestSent ?? 0)
        if window > 0 { record.metrics.goodputMbps = Double(bulk.bytes) * 8 / (window / 1000) / 1e6 }
        if bulk.direction == .upload { record.metrics.bytes = bulk.bytes }
    }
}

extension RunRecord {
    /// Bounds how far the emulator's release lateness could have moved this run's PLT and TTFB
    /// (`LatenessBound`, round trips counted on the page's critical path by the ideal's own
    /// recursion) and flags the run when either bound exceeds 1% of its figure. Where a link had a
    /// release window, PLT takes the lateness of the packets it did not hold (`unheldLatenessP50Us`:
    /// a crossing ends with such a packet, and a held packet leaves no later than the packets behind
    /// it are due, `ReleaseWindow`), and TTFB that of the packets released while no link streamed
    /// (`promptLatenessP50Us`: the handshake and the first request go before any transfer), except
    /// when cross traffic shared the link, or no packet was released so.
    mutating func applyLatenessBound(
        scenario: Scenario, transport: TransportKind, zeroRTT: Bool,
        downlinkBitsPerSecond: Double?
    ) {
        guard var e = emulator, let all50 = e.releaseLatenessP50Us, let all99 = e.releaseLatenessP99Us else { return }
        typealias Lateness = (p50: Double, p99: Double, what: String)
        var pltLateness: Lateness = (all50, all99, "release lateness")
        var ttfbLateness = pltLateness
        if (e.releaseWindowUs ?? 0) > 0, let u50 = e.unheldLatenessP50Us, let u99 = e.unheldLatenessP99Us {
            pltLateness = (u50, u99, "release lateness of packets not held")
            ttfbLateness = pltLateness
            if crossTraffic?.flows.isEmpty ?? true, let q50 = e.promptLatenessP50Us, let q99 = e.promptLatenessP99Us {
                ttfbLateness = (q50, q99, "release lateness while no link streamed")
            }
        }
        // With a huge RTT and free serialization the ideal counts round trips (think times vanish).
        let unit = 1e6
        let counter = IdealPageLoad(rttMs: unit, downlinkBitsPerSecond: nil, transport: transport, zeroRTT: zeroRTT)
        let pltTrips = Int((counter.pltMs(scenario) / unit).rounded())
        let ttfbTrips = Int((counter.ttfbMs(scenario) / unit).rounded())
        let ns = { (us: Double) in Nanoseconds((us * 1_000).rounded()) }
        // Handshake flights: about 10 packets per connection (hellos, certificate, finished, request).
        let handshakePackets = 10
        let packets = LatenessBound.packets(
            forBytes: metrics.bytes ?? 0,
            overhead: handshakePackets * max(1, metrics.connections ?? 1))
        let plt = LatenessBound(
            latenessP50: ns(pltLateness.p50), latenessP99: ns(pltLateness.p99), roundTrips: pltTrips,
            packets: packets, packetSpacing: LatenessBound.packetSpacing(bitsPerSecond: downlinkBitsPerSecond))
        let ttfb = LatenessBound(
            latenessP50: ns(ttfbLateness.p50), latenessP99: ns(ttfbLateness.p99), roundTrips: ttfbTrips,
            packets: handshakePackets)
        e.pltLatenessBoundMs = Double(plt.bound) / 1e6
        e.ttfbLatenessBoundMs = Double(ttfb.bound) / 1e6
        var reasons: [String] = []
        for (name, bound, figure, l) in [
            ("pltMs", plt, metrics.pltMs, pltLateness), ("ttfbMs", ttfb, metrics.ttfbMs, ttfbLateness),
        ] {
            guard let figure, bound.couldMove(ns(figure * 1_000)) else { continue }
            reasons.append(
                "\(l.what) (p50 \(Units.format(l.p50 / 1000, 3)) ms, p99 "
                    + "\(Units.format(l.p99 / 1000, 3)) ms) could move \(name) "
                    + "by up to \(Units.format(Double(bound.bound) / 1e6, 2)) ms = "
                    + "\(Units.format(bound.share(of: ns(figure * 1_000))! * 100, 1))% > 1%")
        }
        if !reasons.isEmpty {
            e.flagged = true
            if error == nil { error = "emulator lateness: " + reasons.joined(separator: "; ") }
        }
        emulator = e
    }
}
