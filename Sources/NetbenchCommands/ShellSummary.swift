import Foundation
import BenchCore
import BenchModel
import LinkEmulator
import LinkModel
import Testbed

/// What a `netbench shell` session leaves: one screen on stderr, and with `--log` the same as JSON.
enum ShellSummary {
    /// The summary: how COMMAND ended, per path and direction the packets and bytes offered,
    /// delivered and dropped by cause, queueing delay, release lateness against the timer floor,
    /// the path events as applied, and whether the emulator's timing can be trusted.
    static func text(_ report: EmulatorReport, outcome: ShellOutcome, testbed: ShellTestbed) -> String {
        let seconds = Units.format(Double(outcome.elapsed) / 1e9, 1)
        let command = outcome.command.joined(separator: " ")
        var lines = ["netbench shell: \(command) " + ending(outcome) + " after \(seconds) s"]
        if let s = outcome.serverStatus { lines.append("  server program had already exited with \(s)") }
        for p in report.paths {
            lines.append("  path \(p.name)")
            lines.append("    up   (client → server) " + direction(p.uplink))
            lines.append("    down (server → client) " + direction(p.downlink))
        }
        lines += queueingDelayLines(report)
        let us = { (ns: Nanoseconds) in Units.format(Double(ns) / 1000, 0) + " µs" }
        let floor = testbed.timerFloor
        lines.append(
            "  release lateness p50 \(us(report.latenessP50)), p99 \(us(report.latenessP99)), "
                + "max \(us(report.latenessMax)) (timer floor p50 \(us(floor.p50)), p99 \(us(floor.p99)); "
                + "own part p99 \(us(report.ownLatenessP99)))")
        lines.append("  " + arrivalLine(report))
        if !report.pathEvents.isEmpty {
            let ms = { (ns: Nanoseconds) in Units.format(Double(ns) / 1e6, 1) + " ms" }
            let events = report.pathEvents.map { "\($0.path) \($0.action) at \(ms($0.appliedAt))" }
            lines.append("  path events: " + events.prefix(8).joined(separator: ", ") + (events.count > 8 ? ", …" : ""))
        }
        if !report.pcapFiles.isEmpty { lines.append("  pcap: " + report.pcapFiles.joined(separator: ", ")) }
        if let failure = report.captureFailure { lines.append("  pcap: \(failure)") }
        let other = report.unroutablePackets + report.nonIPv4Packets
        if other > 0 { lines.append("  \(other) packets not forwarded (not IPv4 or to no path)") }
        lines.append(
            report.flagged
                ? "  emulator FLAGGED: " + report.flagReasons.joined(separator: "; ")
                : "  emulator: no packet lost outside the link model, loop healthy")
        return lines.joined(separator: "\n")
    }

    /// How arrivals were stamped: by the kernel as packets entered the TUNs (with how long the loop
    /// took to read them, which no longer delays them), or when read, and why.
    static func arrivalLine(_ report: EmulatorReport) -> String {
        let us = { (ns: Nanoseconds) in Units.format(Double(ns) / 1000, 0) + " µs" }
        guard report.kernelArrivalStamps else {
            return "arrivals stamped when read" + (report.arrivalStampsFallback.map { " (kernel stamps \($0))" } ?? "")
        }
        return "arrivals stamped by the kernel: \(report.arrivalsStamped) packets (\(report.arrivalsUnstamped) "
            + "without a tapped copy, stamped when read); the loop read them p50 \(us(report.readLatencyP50)), "
            + "p99 \(us(report.readLatencyP99)), max \(us(report.readLatencyMax)) after they entered"
    }

    /// Queueing delay per path and direction: each packet's sojourn in the bottleneck (departure −
    /// arrival, serialization included), from the emulator's histogram, and CE marks where an AQM made any.
    static func queueingDelayLines(_ report: EmulatorReport) -> [String] {
        let ms = { (ns: Nanoseconds) in Units.format(Double(ns) / 1e6, 2) + " ms" }
        var lines: [String] = []
        for p in report.paths {
            for (word, q, c) in [("up  ", p.uplinkQueueing, p.uplink), ("down", p.downlinkQueueing, p.downlink)] {
                guard let h = q?.sojourn, h.count > 0 else { continue }
                var line = "  queueing delay \(p.name) \(word) p50 \(ms(h.percentile(0.5))), "
                line += "p90 \(ms(h.percentile(0.9))), p99 \(ms(h.percentile(0.99))), max \(ms(h.maximum))"
                if c.markedCE.packets > 0 { line += "; \(c.markedCE.packets) packets marked CE" }
                lines.append(line)
            }
        }
        return lines
    }

    static func ending(_ o: ShellOutcome) -> String {
        if o.timedOut { return "stopped by --duration (exit 124)" }
        if o.status > 128 { return "ended by signal \(o.status - 128) (exit \(o.status))" }
        return "exited with \(o.status)"
    }

    static func direction(_ c: LinkCounters) -> String {
        "\(c.received.packets) packets \(Units.formatBytes(c.received.bytes)) in, "
            + "\(c.forwarded.packets) \(Units.formatBytes(c.forwarded.bytes)) out; drops: "
            + "loss \(c.droppedByLoss.packets), queue \(c.droppedByQueue.packets), "
            + "outage \(c.droppedByOutage.packets)"
    }

    /// The session's emulator record: counters, lateness, queueing delay, series, files.
    static func record(_ report: EmulatorReport, testbed: ShellTestbed) -> EmulatorRecord {
        var emulator = EmulatorRecord(report, profile: testbed.profile, timerFloor: testbed.timerFloor)
        emulator.tcpCongestionControl = testbed.network.namespaceDefaultCongestionControl
        emulator.pcapFiles = report.pcapFiles.isEmpty ? nil : report.pcapFiles
        return emulator
    }

    /// `--log`: the session and the emulator's report as JSON (sorted keys).
    static func log(_ report: EmulatorReport, outcome: ShellOutcome, testbed: ShellTestbed) throws -> Data {
        let emulator = record(report, testbed: testbed)
        let log = ShellLog(
            command: outcome.command, serverShell: outcome.serverShell, exitStatus: outcome.status,
            timedOut: outcome.timedOut, durationMs: Double(outcome.elapsed) / 1e6,
            environment: testbed.environment, emulator: emulator,
            paths: report.paths.map {
                ShellLog.PathLog(name: $0.name, up: .init($0.uplink), down: .init($0.downlink))
            },
            pathEvents: report.pathEvents.map {
                ShellLog.EventLog(
                    path: $0.path, action: "\($0.action)", scheduledAtMs: $0.scheduledAt.map { Double($0) / 1e6 },
                    appliedAtMs: Double($0.appliedAt) / 1e6)
            })
        return try JSONFile.encode(log)
    }
}

/// The `--log` file of a shell session (schema version 1).
struct ShellLog: Codable {
    struct Count: Codable {
        var packets: Int64
        var bytes: Int64
        init(_ c: PacketCount) { packets = c.packets; bytes = c.bytes }
    }
    struct DirectionLog: Codable {
        var received, forwarded, droppedByLoss, droppedByQueue, droppedByOutage: Count
        init(_ c: LinkCounters) {
            received = .init(c.received); forwarded = .init(c.forwarded)
            droppedByLoss = .init(c.droppedByLoss); droppedByQueue = .init(c.droppedByQueue)
            droppedByOutage = .init(c.droppedByOutage)
        }
    }
    struct PathLog: Codable {
        var name: String
        var up: DirectionLog
        var down: DirectionLog
    }
    struct EventLog: Codable {
        var path: String
        var action: String
        var scheduledAtMs: Double?
        var appliedAtMs: Double
    }
    var version = 1
    var command: [String]
    var serverShell: String?
    var exitStatus: Int32
    var timedOut: Bool
    var durationMs: Double
    var environment: [String: String]
    var emulator: EmulatorRecord
    var paths: [PathLog]
    var pathEvents: [EventLog]
}
