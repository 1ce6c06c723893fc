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
    }
}
