import Foundation

/// HdrHistogram's interval log (`.hlog`, log format 1.3, as `HistogramLogWriter` writes it):
/// comment lines `#[StartTime: …]` and `#[BaseTime: …]` (seconds since the epoch), the legend, then
/// one line per interval: start (seconds after the base time), length (seconds), the interval's
/// maximum divided by `maxValueUnitRatio`, and the histogram in its compressed base64 encoding.
/// A line may carry a tag first (`Tag=NAME,`). Text in, text out: the caller writes the file.
public struct HistogramLog: Sendable {
    /// One line, its histogram kept encoded (a long load keeps kilobytes per interval, not the
    /// counts array).
    public struct Interval: Sendable {
        public var startSeconds: Double
        public var lengthSeconds: Double
        public var tag: String?
        public var maxValue: Int64
        public var totalCount: Int64
        /// HdrHistogram's compressed encoding, base64.
        public var encoded: String
        public init(startSeconds: Double, lengthSeconds: Double, tag: String? = nil, histogram: HDRHistogram) throws {
            self.startSeconds = startSeconds; self.lengthSeconds = lengthSeconds; self.tag = tag
            maxValue = histogram.maxValue
            totalCount = histogram.totalCount
            encoded = try HDRHistogramEncoding.compressedBase64(histogram)
        }
        public func histogram() throws -> HDRHistogram {
            try HDRHistogramEncoding.decode(compressedBase64: encoded)
        }
    }

    /// Seconds since the epoch when the log starts; interval starts are relative to it.
    public var startTime: Double
    /// The histogram's unit per the unit the max column is printed in (values in µs, max in ms: 1000).
    public var maxValueUnitRatio: Double
    public var comment: String?
    public var intervals: [Interval] = []

    public init(startTime: Double, maxValueUnitRatio: Double, comment: String? = nil) {
        self.startTime = startTime; self.maxValueUnitRatio = maxValueUnitRatio; self.comment = comment
    }

    public static let legend =
        "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\""

    /// The log's text.
    public func render() -> String {
        var lines: [String] = []
        if let comment { lines.append("#" + comment.replacingOccurrences(of: "\n", with: " ")) }
        lines.append("#[Histogram log format version 1.3]")
        let iso = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: startTime))
        lines.append("#[StartTime: \(Self.fixed(startTime, 3)) (seconds since epoch), \(iso)]")
        lines.append("#[BaseTime: \(Self.fixed(startTime, 3)) (seconds since epoch)]")
        lines.append(Self.legend)
        for i in intervals {
            let tag = i.tag.map { "Tag=\($0)," } ?? ""
            let max = Double(i.maxValue) / maxValueUnitRatio
            lines.append(
                tag + "\(Self.fixed(i.startSeconds, 3)),\(Self.fixed(i.lengthSeconds, 3)),\(Self.fixed(max, 3)),"
                    + i.encoded)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads a log's intervals (comments other than StartTime/BaseTime and the legend are skipped);
    /// errors name the line.
    public static func parse(_ text: String) throws -> HistogramLog {
        var log = HistogramLog(startTime: 0, maxValueUnitRatio: 1)
        var base: Double?
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(raw)
            if line.isEmpty || line.hasPrefix("\"") { continue }
            if line.hasPrefix("#[StartTime: ") { log.startTime = Self.leadingNumber(line.dropFirst(13)) ?? 0; continue }
            if line.hasPrefix("#[BaseTime: ") { base = Self.leadingNumber(line.dropFirst(12)); continue }
            if line.hasPrefix("#") { continue }
            var tag: String?
            if line.hasPrefix("Tag="), let comma = line.firstIndex(of: ",") {
                tag = String(line[line.index(line.startIndex, offsetBy: 4)..<comma])
                line = line[line.index(after: comma)...]
            }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == 4, let start = Double(fields[0]), let length = Double(fields[1]) else {
                throw HDRHistogramEncoding.Failure.malformed("line \(n + 1): expected start,length,max,histogram")
            }
            let h = try HDRHistogramEncoding.decode(compressedBase64: String(fields[3]))
            log.intervals.append(try Interval(startSeconds: start, lengthSeconds: length, tag: tag, histogram: h))
        }
        if let base, base != log.startTime {
            for i in log.intervals.indices { log.intervals[i].startSeconds += base - log.startTime }
        }
        return log
    }

    static func leadingNumber(_ s: Substring) -> Double? {
        Double(s.prefix { $0.isNumber || $0 == "." })
    }

    static func fixed(_ v: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", v) }
}
