import BenchCore
import BenchModel
import Runner
import LinkEmulator
import LinkModel

extension EmulatorRecord {
    /// The record of one `start()`…`stop()` of `profile`'s emulator: counters, lateness, the flag.
    package init(_ report: EmulatorReport, profile: Profile, timerFloor: TimerFloor?) {
        self.init(profile: profile.name, configured: profile.summary, flagged: !report.flagReasons.isEmpty)
        releaseLatenessP50Us = Double(report.latenessP50) / 1000
        releaseLatenessP99Us = Double(report.latenessP99) / 1000
        tunDrops = report.devices.reduce(0) { $0 + Int64($1.after.txDropped - $1.before.txDropped) }
        packetsForwarded = report.releasedPackets
        packetsDroppedLoss = report.paths.reduce(0) {
            $0 + Int64($1.uplink.droppedByLoss.packets + $1.downlink.droppedByLoss.packets)
        }
        packetsDroppedQueue = report.paths.reduce(0) {
            $0 + Int64($1.uplink.droppedByQueue.packets + $1.downlink.droppedByQueue.packets)
        }
        record(report, timerFloor: timerFloor)
    }

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
        linkDirections = report.paths.flatMap { p in
            [
                LinkDirectionRecord(measured: p.uplinkDelay, counters: p.uplink, path: p.name, direction: "up"),
                LinkDirectionRecord(measured: p.downlinkDelay, counters: p.downlink, path: p.name, direction: "down"),
            ]
        }
    }
}

extension LinkDirectionRecord {
    /// From the emulator's one-way delay histogram and the link's counters.
    init(measured h: OneWayDelayHistogram, counters: LinkCounters, path: String, direction: String) {
        let ms = { (ns: Nanoseconds) in Double(ns) / 1_000_000 }
        let quantiles =
            h.count == 0
            ? nil
            : DelayQuantiles(
                min: ms(h.minimum), p1: ms(h.quantile(0.01)), p10: ms(h.quantile(0.1)), p50: ms(h.quantile(0.5)),
                p90: ms(h.quantile(0.9)), p99: ms(h.quantile(0.99)), max: ms(h.maximum))
        self.init(
            path: path, direction: direction, packets: counters.forwarded.packets, oneWayDelayMs: quantiles,
            reorderedPackets: counters.reordered.packets)
    }
}
