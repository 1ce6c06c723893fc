import Foundation
import BenchCore
import Statistics

extension LoadResults {
    /// The loads of shards (`netbench load --shard I/N`, each a fraction of the rate) as one: counts
    /// and bytes summed, histograms added bucket by bucket (exact: HDR histograms of the same
    /// parameters add; different parameters are refused), percentiles and rates recomputed from the
    /// sums. Every shard must have run the same loads (transports, model, connections, streams, steps).
    public static func merged(_ shards: [(source: String, results: LoadResults)]) throws -> LoadResults {
        guard let (firstSource, first) = shards.first else { throw BenchError.usage("no shards to merge") }
        var loads = first.loads
        for (source, r) in shards.dropFirst() {
            guard r.loads.map(\.shape) == first.loads.map(\.shape) else {
                throw BenchError.data(
                    "\(source): loads \(r.loads.map(\.shape)) differ from \(firstSource)'s \(first.loads.map(\.shape))")
            }
            for i in loads.indices {
                do { try loads[i].add(r.loads[i]) } catch {
                    throw BenchError.data("\(source): loads[\(i)] (\(r.loads[i].transport.rawValue)): \(error)")
                }
            }
        }
        var out = LoadResults(
            netbenchVersion: first.netbenchVersion, startedAt: shards.map(\.results.startedAt).min() ?? first.startedAt,
            server: first.server, targets: first.targets, loads: loads)
        out.targetWeights = first.targetWeights
        out.shard = "merged from " + shards.map { $0.results.shard ?? $0.source }.joined(separator: ", ")
        return out
    }
}

extension LoadRecord {
    /// What must agree for two shards' loads to add.
    var shape: String {
        "\(transport.rawValue) \(model) c\(connections) m\(streams) steps \(steps.count)"
            + (upload.map { " upload \($0)" } ?? "")
    }

    /// Adds another shard's load of the same shape (the durations are the longer one's).
    mutating func add(_ o: LoadRecord) throws {
        var h = try histogram.decode()
        try h.add(try o.histogram.decode())
        histogram = try EncodedHistogram(h)
        latencyMs = LatencySummary(h)
        durationMs = max(durationMs, o.durationMs)
        scheduled += o.scheduled; sent += o.sent; ok += o.ok; unsent += o.unsent
        bytes += o.bytes; connectionsOpened += o.connectionsOpened
        if bytesUploaded != nil || o.bytesUploaded != nil {
            bytesUploaded = (bytesUploaded ?? 0) + (o.bytesUploaded ?? 0)
        }
        for (k, v) in o.errors { errors[k, default: 0] += v }
        for (k, v) in o.errorExamples where errorExamples[k] == nil { errorExamples[k] = v }
        achievedRate = durationMs > 0 ? Double(ok) / (durationMs / 1000) : 0
        behind = behind || o.behind
        generatorCpuMs = sum(generatorCpuMs, o.generatorCpuMs)
        serverCpuMs = sum(serverCpuMs, o.serverCpuMs)
        sendLagMs = nil  // per shard only: a lag summary does not add
        hlog = nil
        // Each shard crossed its own emulated link: the link's figures stay (capacity and ideal are
        // per link), what was measured on one link does not describe the sum.
        if var l = link {
            let flags = (l.emulatorFlags ?? []) + (o.link?.emulatorFlags ?? [])
            l.wireBytesPerResponse = nil
            l.downlinkUtilization = nil
            l.emulatorFlags = flags.isEmpty ? nil : flags
            link = l
        }
        for i in steps.indices {
            var s = try steps[i].histogram.decode()
            try s.add(try o.steps[i].histogram.decode())
            steps[i].histogram = try EncodedHistogram(s)
            steps[i].latencyMs = LatencySummary(s)
            steps[i].rate = zip2(steps[i].rate, o.steps[i].rate, +)
            steps[i].scheduled += o.steps[i].scheduled
            steps[i].ok += o.steps[i].ok
            steps[i].durationMs = max(steps[i].durationMs, o.steps[i].durationMs)
            steps[i].achievedRate = steps[i].durationMs > 0 ? Double(steps[i].ok) / (steps[i].durationMs / 1000) : 0
        }
    }

    private func sum(_ a: Double?, _ b: Double?) -> Double? { zip2(a, b, +) }
}

private func zip2(_ a: Double?, _ b: Double?, _ f: (Double, Double) -> Double) -> Double? {
    guard let a, let b else { return nil }
    return f(a, b)
}

extension HistogramLog {
    /// The interval log of the sum of shards' logs: intervals of `interval` seconds from the earliest
    /// shard's start, each the exact sum of the shard intervals that begin within it (by absolute
    /// time: each shard's StartTime plus the interval's start), empty ones kept so the log has no
    /// gaps. The intervals' histograms together equal the sum of every shard's (no count is lost or
    /// split); a shard's interval lands whole in the merged interval its start falls in. Histograms
    /// with other parameters than the first shard's are refused.
    public static func merged(_ logs: [HistogramLog], interval: Double = 1, comment: String? = nil) throws
        -> HistogramLog
    {
        guard let first = logs.first else { throw BenchError.usage("no interval logs to merge") }
        let start = logs.map(\.startTime).min() ?? first.startTime
        var sums: [Int: HDRHistogram] = [:]
        var template: HDRHistogram?
        var end = 0.0
        for log in logs {
            for i in log.intervals {
                let h = try i.histogram()
                if template == nil { template = h }
                let offset = log.startTime - start + i.startSeconds
                end = Swift.max(end, offset + i.lengthSeconds)
                let k = Swift.max(0, Int((offset / interval + 1e-9).rounded(.down)))
                if var s = sums[k] {
                    try s.add(h)
                    sums[k] = s
                } else {
                    sums[k] = h
                }
            }
        }
        var out = HistogramLog(startTime: start, maxValueUnitRatio: first.maxValueUnitRatio, comment: comment)
        guard var empty = template, let last = sums.keys.max() else { return out }
        empty.reset()
        for k in 0...last {
            let begin = Double(k) * interval
            let length = k == last ? Swift.max(interval, end - begin) : interval
            out.intervals.append(
                try HistogramLog.Interval(startSeconds: begin, lengthSeconds: length, histogram: sums[k] ?? empty))
        }
        return out
    }
}
