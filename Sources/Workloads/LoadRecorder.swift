import Foundation
import BenchCore
import Statistics

/// What one load measured: counts, errors by kind, and latency histograms (µs) in total, per step
/// and per interval (the `.hlog` lines).
public struct LoadOutcome: Sendable {
    public struct Step: Sendable {
        /// The rate asked for (open model), nil for the closed model.
        public var rate: Double?
        public var duration: Nanoseconds
        public var scheduled: Int
        public var ok: Int
        public var latency: HDRHistogram
        /// Successful responses per second of the step.
        public var achievedRate: Double { duration > 0 ? Double(ok) / (Double(duration) / 1e9) : 0 }
    }

    /// Seconds since the epoch when the load started.
    public var startedAt: Double
    /// From the start to the end of the schedule (or the closed model's duration).
    public var duration: Nanoseconds
    public var steps: [Step]
    public var latency: HDRHistogram
    public var intervals: [HistogramLog.Interval]
    /// Open model: requests whose intended time came; all models: requests sent, and answered
    /// with the right status and bytes.
    public var scheduled: Int
    public var sent: Int
    public var ok: Int
    /// Open model: requests due that never left because every stream of every connection was busy.
    public var unsent: Int
    public var errors: [String: Int]
    /// The first message of each error kind.
    public var errorExamples: [String: String]
    /// Response body bytes received.
    public var bytes: Int64
    /// Request body bytes (HTTP bodies, perf uploads) of the requests answered.
    public var bytesUploaded: Int64 = 0
    public var connectionsOpened: Int
    /// Open model: how late requests left after their intended time (µs).
    public var sendLag: HDRHistogram
    /// CPU time of the generator's thread (nil if unknown).
    public var generatorCPUms: Double?

    public var errorCount: Int { errors.values.reduce(0, +) }
    public var achievedRate: Double { duration > 0 ? Double(ok) / (Double(duration) / 1e9) : 0 }
}

/// Accumulates a load's figures as responses arrive (on the generator's thread).
struct LoadRecorder {
    var scheduled = 0
    var sent = 0
    var okCount = 0
    var unsent = 0
    /// Due requests never queued (the backlog was full).
    var skipped = 0
    var bytes: Int64 = 0
    var bytesUploaded: Int64 = 0
    var connectionsOpened = 0
    var errors: [String: Int] = [:]
    var examples: [String: String] = [:]
    var stepHistograms: [HDRHistogram]
    var stepOK: [Int]
    var stepScheduled: [Int]
    var sendLags: HDRHistogram
    var interval: HDRHistogram
    var intervalIndex = 0
    var intervals: [HistogramLog.Interval] = []
    let intervalLength: Nanoseconds
    var start = Instant(nanoseconds: 0)
    var wallClock = 0.0

    init(steps: Int, interval: Nanoseconds) throws {
        let empty = try HDRHistogram(HDRHistogram.latencyMicroseconds)
        stepHistograms = Array(repeating: empty, count: steps)
        stepOK = Array(repeating: 0, count: steps)
        stepScheduled = Array(repeating: 0, count: steps)
        sendLags = empty
        self.interval = empty
        intervalLength = interval
    }

    mutating func begin(at start: Instant, wallClock: Double) { self.start = start; self.wallClock = wallClock }

    mutating func count(_ kind: String, _ n: Int, example: String) {
        guard n > 0 else { return }
        errors[kind, default: 0] += n
        if examples[kind] == nil { examples[kind] = example }
    }

    mutating func sendLag(_ lag: Nanoseconds) { sendLags.record(max(0, lag) / 1000) }

    mutating func ok(latency: Nanoseconds, step: Int, at t: Instant) {
        let us = max(0, latency) / 1000
        okCount += 1
        stepOK[step] += 1
        stepHistograms[step].record(us)
        advance(to: t)
        interval.record(us)
    }

    /// Closes the intervals that ended before `t` (empty ones too: the log has no gaps).
    mutating func advance(to t: Instant) {
        let index = Int(t.since(start) / intervalLength)
        while intervalIndex < index {
            // Encoding fails only when zlib's compress2 finds no memory for its state.
            if let line = try? HistogramLog.Interval(
                startSeconds: Double(intervalIndex) * Double(intervalLength) / 1e9,
                lengthSeconds: Double(intervalLength) / 1e9, histogram: interval)
            {
                intervals.append(line)
            }
            interval.reset()
            intervalIndex += 1
        }
    }

    /// `finished`: when the last response came (or the grace ran out); `loadEnd`: the schedule's end.
    mutating func finish(at end: Instant, loadEnd: Instant) -> LoadOutcome {
        advance(to: end)
        if interval.totalCount > 0 || intervals.isEmpty {
            let begin = Double(intervalIndex) * Double(intervalLength) / 1e9
            if let line = try? HistogramLog.Interval(
                startSeconds: begin, lengthSeconds: max(0, Double(end.since(start)) / 1e9 - begin),
                histogram: interval)
            {
                intervals.append(line)
            }
        }
        var total = stepHistograms[0]
        for h in stepHistograms.dropFirst() { try? total.add(h) }  // same parameters by construction
        return LoadOutcome(
            startedAt: wallClock, duration: loadEnd.since(start), steps: [], latency: total, intervals: intervals,
            scheduled: scheduled, sent: sent, ok: okCount, unsent: unsent, errors: errors, errorExamples: examples,
            bytes: bytes, bytesUploaded: bytesUploaded, connectionsOpened: connectionsOpened, sendLag: sendLags)
    }
}
