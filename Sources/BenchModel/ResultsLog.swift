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

        public init(
            planDigest: String, host: HostInfo, netbenchVersion: String, shard: ShardSpec?, startedAt: String,
            suite: SuiteInfo
        ) {
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
            var r = ResultsFile(
                netbenchVersion: header.netbenchVersion, startedAt: header.startedAt, host: header.host,
                suite: header.suite, runs: runs)
            r.planDigest = header.planDigest
            r.source = header.source
            if let s = header.shard {
                r.shards = [ShardRecord(shard: s, host: header.host, startedAt: header.startedAt)]
            }
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
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try encodeJSON(runCount: runs.count, in: chunks) { i, out in
            Self.appendIndented(try enc.encode(runs[i]), to: &out)
        }
    }

    /// A run's pretty-printed lines, indented to its depth in results.json (4 spaces; blank lines stay blank).
    private static func appendIndented(_ body: Data, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + body.count * 5 / 4)
        for (j, line) in body.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            if j > 0 { out.append(0x0A) }
            if !line.isEmpty { out.append(contentsOf: [0x20, 0x20, 0x20, 0x20]) }
            out.append(contentsOf: line)
        }
    }

    /// The same bytes with the runs taken from a log's lines (`lines`, in `path`) instead of
    /// `runs`: each compact line is pretty-printed as it is read (`JSONPretty`), never decoded, so a
    /// results file of thousands of runs costs a byte scan. The log's lines are the same encoder's
    /// output with sorted keys, so the bytes equal encoding the decoded runs (tested).
    public func encodeJSON(log path: String, lines: [ResultsLog.LineRange], in chunks: ([UInt8]) throws -> Void) throws
    {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw BenchError.data("\(path): does not exist or cannot be read")
        }
        defer { try? handle.close() }
        var offset: Int64 = -1
        try encodeJSON(runCount: lines.count, in: chunks) { i, out in
            let range = lines[i]
            let bytes: Data
            do {
                if offset != range.offset { try handle.seek(toOffset: UInt64(range.offset)) }
                bytes = try handle.read(upToCount: range.length) ?? Data()
                offset = range.offset + Int64(bytes.count)
            } catch {
                throw BenchError.data("\(path): cannot be read: \(error.localizedDescription)")
            }
            guard bytes.count == range.length else {
                throw BenchError.data("\(path): changed while it was read (run \(i + 1))")
            }
            out.reserveCapacity(bytes.count * 3 / 2)
            let start = out.count
            out.append(contentsOf: [0x20, 0x20, 0x20, 0x20])
            guard bytes.withUnsafeBytes({ JSONPretty.append($0, depth: 2, to: &out) }) else {
                // Not netbench's compact line (edited, or written by another tool): decode and
                // encode this one run, so key order and number formats are the encoder's.
                out.removeSubrange(start...)
                let run: RunRecord
                do { run = try JSONDecoder().decode(RunRecord.self, from: bytes) } catch let e as DecodingError {
                    throw BenchError.data("\(path): run \(i + 1): \(JSONFile.describe(e).escapingControlCharacters)")
                }
                let enc = JSONEncoder()
                enc.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
                Self.appendIndented(try enc.encode(run), to: &out)
                return
            }
        }
    }

    /// The skeleton (this file without runs, pretty-printed) with `runCount` runs spliced into its
    /// `runs` array, run `i`'s lines made by `run(i, &bytes)` at their depth (4 spaces).
    private func encodeJSON(
        runCount: Int, in chunks: ([UInt8]) throws -> Void, run: (Int, inout [UInt8]) throws -> Void
    ) throws {
        var head = self
        head.runs = []
        let text = [UInt8](try JSONFile.encode(head))
        let marker = Array(#""runs" : ["#.utf8)
        guard let start = text.firstRange(of: marker) else { return try chunks(text) }
        var end = start.upperBound
        while end < text.count, text[end] == 0x20 || text[end] == 0x0A { end += 1 }
        guard end < text.count, text[end] == 0x5D else { return try chunks(text) }  // "]"
        try chunks(Array(text[..<start.upperBound]))
        for i in 0..<runCount {
            // A run's own lines, indented to its depth (array in the top-level object: 4 spaces).
            var out: [UInt8] = i == 0 ? [0x0A] : [0x2C, 0x0A]
            try run(i, &out)
            try chunks(out)
        }
        try chunks(runCount == 0 ? Array(text[start.upperBound...]) : [0x0A, 0x20, 0x20] + Array(text[end...]))
    }
}
