import BenchCore
import BenchModel
import LinkEmulator
import LinkModel

extension EmulatorRecord {
    /// Copies into the run's record what bounds the emulator's timing: the timer floor measured
    /// before the block, and what the emulator could not control during the run.
    mutating func record(_ report: EmulatorReport, timerFloor: TimerFloor?) {
        let us = { (ns: Nanoseconds) in Double(ns) / 1_000 }
        let ms = { (ns: Nanoseconds) in Double(ns) / 1_000_000 }
        timerFloorP50Us = timerFloor.map { us($0.p50) }
        timerFloorP99Us = timerFloor.map { us($0.p99) }
        timerFloorP999Us = timerFloor?.p999.map(us)
        loopRunQueueWaitMs = report.loopRunQueueWait.map(ms)
        stealMs = report.stealTime.map(ms)
        loopCPUShare = report.loopCPUShare
        preciseSpinMarginUs = report.spinMargin.map(us)
        wakeLatenessP99Us = us(report.wakeLatenessP99)
        ownLatenessP99Us = us(report.ownLatenessP99)
    }
}

extension RunRecord {
    /// Bounds how far the emulator's release lateness could have moved this run's PLT and TTFB
    /// (`LatenessBound`, round trips counted on the page's critical path by the ideal's own
    /// recursion) and flags the run when either bound exceeds 1% of its figure.
    mutating func applyLatenessBound(scenario: Scenario, transport: TransportKind, zeroRTT: Bool, downlinkBitsPerSecond: Double?) {
        guard var e = emulator, let p50 = e.releaseLatenessP50Us, let p99 = e.releaseLatenessP99Us else { return }
        // With a huge RTT and free serialization the ideal counts round trips (think times vanish).
        let unit = 1e6
        let counter = IdealPageLoad(rttMs: unit, downlinkBitsPerSecond: nil, transport: transport, zeroRTT: zeroRTT)
        let pltTrips = Int((counter.pltMs(scenario) / unit).rounded())
        let ttfbTrips = Int((counter.ttfbMs(scenario) / unit).rounded())
        let ns = { (us: Double) in Nanoseconds((us * 1_000).rounded()) }
        // Handshake flights: about 10 packets per connection (hellos, certificate, finished, request).
        let handshakePackets = 10
        let plt = LatenessBound(latenessP50: ns(p50), latenessP99: ns(p99), roundTrips: pltTrips,
                                packets: LatenessBound.packets(forBytes: metrics.bytes ?? 0, overhead: handshakePackets * max(1, metrics.connections ?? 1)),
                                packetSpacing: LatenessBound.packetSpacing(bitsPerSecond: downlinkBitsPerSecond))
        let ttfb = LatenessBound(latenessP50: ns(p50), latenessP99: ns(p99), roundTrips: ttfbTrips, packets: handshakePackets)
        e.pltLatenessBoundMs = Double(plt.bound) / 1e6
        e.ttfbLatenessBoundMs = Double(ttfb.bound) / 1e6
        var reasons: [String] = []
        for (name, bound, figure) in [("pltMs", plt, metrics.pltMs), ("ttfbMs", ttfb, metrics.ttfbMs)] {
            guard let figure, bound.couldMove(ns(figure * 1_000)) else { continue }
            reasons.append("release lateness (p50 \(Units.format(p50 / 1000, 3)) ms, p99 \(Units.format(p99 / 1000, 3)) ms) could move \(name) "
                           + "by up to \(Units.format(Double(bound.bound) / 1e6, 2)) ms = \(Units.format(bound.share(of: ns(figure * 1_000))! * 100, 1))% > 1%")
        }
        if !reasons.isEmpty {
            e.flagged = true
            if error == nil { error = "emulator lateness: " + reasons.joined(separator: "; ") }
        }
        emulator = e
    }
}
