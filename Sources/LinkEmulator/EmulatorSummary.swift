import BenchCore
import LinkModel

extension EmulatorReport {
    /// A one-screen account of what the emulator did, for a person at a terminal (`netbench
    /// shell`'s exit, say): per path and direction the packets and bytes offered and delivered,
    /// drops by cause and the queueing delay (sojourn in the bottleneck, serialization included);
    /// then release lateness beside the timer floor measured before (`timerFloor`, if any), the
    /// link logs, and whether the run is flagged and why.
    public func summaryLines(timerFloor: TimerFloor? = nil) -> [String] {
        var lines: [String] = []
        for p in paths {
            for (word, c, q) in [("up", p.uplink, p.uplinkQueueing), ("down", p.downlink, p.downlinkQueueing)] {
                var line = "\(p.name) \(word): \(c.received.packets) packets (\(Self.bytes(c.received.bytes))) "
                line += "offered, \(c.forwarded.packets) (\(Self.bytes(c.forwarded.bytes))) delivered"
                line += "; dropped: loss \(c.droppedByLoss.packets), queue \(c.droppedByQueue.packets), "
                line += "outage \(c.droppedByOutage.packets)"
                if let h = q?.sojourn, h.count > 0 {
                    line += "; queueing p50 \(Self.ms(h.percentile(0.5))), p90 \(Self.ms(h.percentile(0.9))), "
                    line += "p99 \(Self.ms(h.percentile(0.99))), max \(Self.ms(h.maximum))"
                }
                lines.append(line)
            }
        }
        var lateness = "release lateness p50 \(Self.us(latenessP50)), p99 \(Self.us(latenessP99)), "
        lateness += "max \(Self.us(latenessMax))"
        if let f = timerFloor { lateness += " (timer floor p99 \(Self.us(f.p99)))" }
        lateness += "; at p99 the timer's part \(Self.us(wakeLatenessP99)), the emulator's \(Self.us(ownLatenessP99))"
        lines.append(lateness)
        if !linkLogFiles.isEmpty { lines.append("link logs: " + linkLogFiles.joined(separator: ", ")) }
        if let linkLogFailure { lines.append(linkLogFailure) }
        if !pcapFiles.isEmpty { lines.append("pcap files: \(pcapFiles.count) in the capture directory") }
        if let captureFailure { lines.append(captureFailure) }
        lines.append(flagged ? "flagged: " + flagReasons.joined(separator: "; ") : "not flagged")
        return lines
    }

    static func ms(_ ns: Nanoseconds) -> String { Units.format(Double(ns) / 1e6, 2) + " ms" }
    static func us(_ ns: Nanoseconds) -> String { Units.format(Double(ns) / 1e3, 1) + " µs" }
    static func bytes(_ b: Int64) -> String { Units.formatBytes(b) }
}
