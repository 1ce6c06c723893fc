import BenchCore

/// One-way delay over time (in the spirit of Mahimahi's mm-file-delay proposal, PR #135).
///
/// File format: one point a line, `TIME_MS DELAY_MS` (two non-negative decimal numbers separated by
/// spaces or tabs), times strictly increasing; blank lines and lines starting with `#` are ignored.
/// TIME_MS is an offset from the link's start. The delay at time t is interpolated linearly
/// between the points around t; before the first point it is the first delay, after the last point
/// it holds the last delay (the trace does not loop). A packet's delay is taken at the time it
/// leaves the bottleneck queue.
public struct DelayTrace: Sendable, Equatable {
    public struct Point: Sendable, Equatable {
        public var time: Nanoseconds
        public var delay: Nanoseconds
        public init(time: Nanoseconds, delay: Nanoseconds) {
            self.time = time
            self.delay = delay
        }
    }

    public let points: [Point]

    public init(points: [Point]) throws {
        guard !points.isEmpty else { throw TraceError(line: 0, value: "", problem: "the delay trace holds no points") }
        for i in points.indices.dropFirst() where points[i].time <= points[i - 1].time {
            throw TraceError(
                line: i + 1, value: "\(points[i].time)",
                problem: "times must increase (point \(i) holds the same or a later time)")
        }
        self.points = points
    }

    public var minimumDelay: Nanoseconds { points.map(\.delay).min()! }
    public var maximumDelay: Nanoseconds { points.map(\.delay).max()! }

    /// The time-weighted mean delay over the trace's span (the first delay for a one-point trace).
    public var meanDelay: Nanoseconds {
        guard points.count > 1 else { return points[0].delay }
        var area = 0.0
        for i in points.indices.dropFirst() {
            let a = points[i - 1], b = points[i]
            area += Double(b.time - a.time) * Double(a.delay + b.delay) / 2
        }
        return Nanoseconds(area / Double(points.last!.time - points[0].time))
    }

    /// The delay at `offset` from the link's start (linear interpolation; first value before the
    /// trace, last value after it).
    public func delay(at offset: Nanoseconds) -> Nanoseconds {
        if offset <= points[0].time { return points[0].delay }
        if offset >= points[points.count - 1].time { return points[points.count - 1].delay }
        var lo = 0, hi = points.count - 1  // points[lo].time < offset < points[hi].time
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if points[mid].time <= offset { lo = mid } else { hi = mid }
        }
        let a = points[lo], b = points[hi]
        let f = Double(offset - a.time) / Double(b.time - a.time)
        return a.delay + Nanoseconds((f * Double(b.delay - a.delay)).rounded())
    }

    /// Parses a delay trace file's text; errors name the line and the value.
    public static func parse(text: String) throws -> DelayTrace {
        var points: [Point] = []
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 2 else {
                throw TraceError(line: lineNumber, value: line, problem: "expected two numbers: TIME_MS DELAY_MS")
            }
            let values = try fields.map { f -> Nanoseconds in
                guard let v = Double(f), v.isFinite else {
                    throw TraceError(line: lineNumber, value: String(f), problem: "not a number of milliseconds")
                }
                guard v >= 0 else {
                    throw TraceError(line: lineNumber, value: String(f), problem: "negative (times and delays are ≥ 0)")
                }
                guard v < 1e9 else {
                    throw TraceError(line: lineNumber, value: String(f), problem: "too large (above 10^9 ms)")
                }
                return Nanoseconds.milliseconds(v)
            }
            if let previous = points.last, values[0] <= previous.time {
                throw TraceError(
                    line: lineNumber, value: String(fields[0]),
                    problem: "times must increase (the point before is at \(Double(previous.time) / 1e6) ms)")
            }
            points.append(Point(time: values[0], delay: values[1]))
        }
        return try DelayTrace(points: points)
    }
}
