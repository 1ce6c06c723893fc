import BenchCore
import BenchModel
import Runner
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
