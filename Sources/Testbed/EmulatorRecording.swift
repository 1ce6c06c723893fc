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
        packetsDroppedQueueUp = report.paths.reduce(0) { $0 + $1.uplink.droppedByQueue.packets }
        packetsDroppedQueueDown = report.paths.reduce(0) { $0 + $1.downlink.droppedByQueue.packets }
        packetsMarkedCEUp = report.paths.reduce(0) { $0 + $1.uplink.markedCE.packets }
        packetsMarkedCEDown = report.paths.reduce(0) { $0 + $1.downlink.markedCE.packets }
        record(report, timerFloor: timerFloor)
        recordLinks(report)
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
        releaseSpinWindowUs = us(report.releaseSpinWindow)
        releaseSpinMs = ms(report.releaseSpinTime)
        releaseWindowUs = us(report.releaseWindow)
        if report.releaseWindow > 0 {
            unheldLatenessP50Us = us(report.unheldLatenessP50)
            unheldLatenessP99Us = us(report.unheldLatenessP99)
            promptLatenessP50Us = report.promptLatenessP50.map(us)
            promptLatenessP99Us = report.promptLatenessP99.map(us)
        }
        wakeLatenessP99Us = us(report.wakeLatenessP99)
        ownLatenessP99Us = us(report.ownLatenessP99)
        arrivalStamps = report.kernelArrivalStamps ? "kernel" : "read"
        arrivalStampsFallback = report.arrivalStampsFallback
        if report.kernelArrivalStamps {
            arrivalsUnstamped = report.arrivalsUnstamped
            readLatencyP50Us = us(report.readLatencyP50)
            readLatencyP99Us = us(report.readLatencyP99)
        }
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
                r.droppedByLoss = counters.droppedByLoss.packets
                r.droppedByQueue = counters.droppedByQueue.packets
                r.droppedByOutage = counters.droppedByOutage.packets
                r.markedCE = counters.markedCE.packets
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
