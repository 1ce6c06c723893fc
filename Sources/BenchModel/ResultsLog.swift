import Foundation
import BenchCore

/// `runs.jsonl`: the append-only results log of a results directory.
///
/// The first line is a header (schema version, plan digest, host, netbench version, shard, start
/// time, the suite); every further line is one `RunRecord`, appended and made durable as the run
/// ends, so the cost of writing a run does not grow with the runs before it. `results.json` and the
/// reports are produced from this log. This type only makes and reads bytes; the file is written
/// by SystemIO's `AppendOnlyFile`.
public enum ResultsLog {
    public static let fileName = "runs.jsonl"
    /// What the header's `format` key holds, to tell a netbench log from any other JSON lines file.
    public static let formatName = "netbench-runs"

    public struct Header: Codable, Sendable {
        public var format: String
        public var schemaVersion: Int
        public var planDigest: String
        public var host: HostInfo
        public var netbenchVersion: String
        public var shard: ShardSpec?
        public var startedAt: String
        public var suite: SuiteInfo
        /// The checkout or label the run was made from (`ResultsFile.source`).
        public var source: SourceInfo?

        public init(planDigest: String, host: HostInfo, netbenchVersion: String, shard: ShardSpec?, startedAt: String, suite: SuiteInfo) {
            self.format = ResultsLog.formatName
            self.schemaVersion = ResultsFile.currentSchemaVersion
            self.planDigest = planDigest; self.host = host; self.netbenchVersion = netbenchVersion
            self.shard = shard; self.startedAt = startedAt; self.suite = suite
        }
    }

    /// What a log held when it was read.
    public struct Contents: Sendable {
        public var header: Header
        public var runs: [RunRecord]
        /// Bytes of a cut-off last line (a write interrupted by a crash) that were left out; 0 if none.
        public var droppedBytes: Int
        /// Where each run's line lies in the file, in the order of `runs` (to read a skimmed run whole later).
        public var lines: [LineRange] = []
        /// Whether the runs were skimmed: their `requests` and `connections` left empty (`load(from:skimming:)`).
        public var skimmed = false

        /// The log as a `results.json` value.
        public var resultsFile: ResultsFile {
            var r = ResultsFile(netbenchVersion: header.netbenchVersion, startedAt: header.startedAt, host: header.host,
                                suite: header.suite, runs: runs)
            r.planDigest = header.planDigest
            r.source = header.source
            if let s = header.shard { r.shards = [ShardRecord(shard: s, host: header.host, startedAt: header.startedAt)] }
            return r
        }
    }

    /// One line: compact JSON with sorted keys, then a newline.
    static func line<T: Encodable>(_ value: T) throws -> [UInt8] {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var bytes = [UInt8](try enc.encode(value))
        bytes.append(0x0A)
        return bytes
    }

    public static func headerLine(_ header: Header) throws -> [UInt8] { try line(header) }
    public static func recordLine(_ record: RunRecord) throws -> [UInt8] { try line(record) }
}

extension ResultsFile {
    /// The bytes of `JSONFile.encode(self)` (sorted keys, pretty printed), produced one run at a time
    /// so that a results file of thousands of runs is never held in memory whole.
    public func encodeJSON(in chunks: ([UInt8]) throws -> Void) throws {
        var head = self
        head.runs = []
        let text = [UInt8](try JSONFile.encode(head))
        let marker = Array(#""runs" : ["#.utf8)
        guard let start = text.firstRange(of: marker) else { return try chunks(text) }
        var end = start.upperBound
        while end < text.count, text[end] == 0x20 || text[end] == 0x0A { end += 1 }
        guard end < text.count, text[end] == 0x5D else { return try chunks(text) } // "]"
        try chunks(Array(text[..<start.upperBound]))
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        for (i, run) in runs.enumerated() {
            // A run's own lines, indented to its depth (array in the top-level object: 4 spaces).
            var out: [UInt8] = i == 0 ? [0x0A] : [0x2C, 0x0A]
            let body = [UInt8](try enc.encode(run))
            out.reserveCapacity(body.count * 5 / 4)
            for (j, line) in body.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
                if j > 0 { out.append(0x0A) }
                if !line.isEmpty { out.append(contentsOf: [0x20, 0x20, 0x20, 0x20]) } // blank lines stay blank
                out.append(contentsOf: line)
            }
            try chunks(out)
        }
        try chunks(runs.isEmpty ? Array(text[start.upperBound...]) : [0x0A, 0x20, 0x20] + Array(text[end...]))
    }
}
