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
    }
}

extension EmulatorRecord {
    /// Copies each link direction's queueing delay, counts, series and files into `links`.
    mutating func recordLinks(_ report: EmulatorReport) {
        var out: [LinkQueueRecord] = []
        for (i, path) in report.paths.enumerated() {
            let sides: [(LinkQueueRecord.Direction, LinkCounters, LinkQueueing?)] = [
                (.up, path.uplink, path.uplinkQueueing), (.down, path.downlink, path.downlinkQueueing),
            ]
            for (j, (direction, counters, queueing)) in sides.enumerated() {
                var r = LinkQueueRecord(
                    path: path.name, direction: direction, received: counters.received.packets,
                    forwarded: counters.forwarded.packets, dropped: counters.dropped.packets,
                    departed: queueing?.sojourn.count ?? 0)
                if let q = queueing {
                    let m = QueueDelayMetrics(q.sojourn)
                    (r.sojournP50Ms, r.sojournP90Ms) = (m.p50Ms, m.p90Ms)
                    (r.sojournP99Ms, r.sojournMaxMs) = (m.p99Ms, m.maxMs)
                    r.series = LinkSeriesRecord(q.series)
                    r.linkLog = q.logFile
                }
                // pcap files come per path as up-in, up-out, down-in, down-out.
                let k = 4 * i + 2 * j
                if report.pcapFiles.count >= k + 2 {
                    (r.pcapIn, r.pcapOut) = (report.pcapFiles[k], report.pcapFiles[k + 1])
                }
                out.append(r)
            }
        }
        links = out.isEmpty ? nil : out
        linksDrained = report.drained
    }
}

extension RunMetrics {
    /// Each direction's queueing delay over all its paths.
    mutating func recordQueueDelay(_ report: EmulatorReport) {
        var up = SojournHistogram(), down = SojournHistogram()
        for p in report.paths {
            if let q = p.uplinkQueueing { up.merge(q.sojourn) }
            if let q = p.downlinkQueueing { down.merge(q.sojourn) }
        }
        uplinkQueueDelay = up.count > 0 ? QueueDelayMetrics(up) : nil
        downlinkQueueDelay = down.count > 0 ? QueueDelayMetrics(down) : nil
    }
}

extension QueueDelayMetrics {
    init(_ h: SojournHistogram) {
        func ms(_ ns: Nanoseconds) -> Double { (Double(ns) / 1_000).rounded() / 1_000 }
        self.init(p50Ms: ms(h.percentile(0.5)), p90Ms: ms(h.percentile(0.9)), p99Ms: ms(h.percentile(0.99)),
                  maxMs: ms(h.maximum))
    }
}

extension LinkSeriesRecord {
    init(_ s: LinkSeries) {
        func ms(_ ns: Nanoseconds) -> Double { (Double(ns) / 1_000).rounded() / 1_000 }
        self.init(
            binMs: ms(s.binWidth), offeredBytes: s.offeredBytes, departedBytes: s.departedBytes,
            capacityBytes: s.capacityBytes, drops: s.drops, delayP50Ms: s.delayP50.map(ms),
            delayMaxMs: s.delayMax.map(ms))
    }
}
