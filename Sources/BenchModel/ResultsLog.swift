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

    /// Reads a log. A last line without its newline was cut off mid-write: it is dropped and
    /// counted in `droppedBytes`. Any other bad line is an error naming the file and the line.
    public static func parse(_ data: Data, file: String) throws -> Contents {
        var reader = Reader(file: file)
        try reader.feed(data)
        return try reader.finish()
    }

    /// Reads the log a block at a time: only the decoded runs are kept, never the whole file's bytes.
    public static func load(from path: String) throws -> Contents {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw BenchError.data("\(path): does not exist or cannot be read")
        }
        defer { try? handle.close() }
        var reader = Reader(file: path)
        while true {
            let block: Data
            do { block = try handle.read(upToCount: 1 << 20) ?? Data() } catch {
                throw BenchError.data("\(path): cannot be read: \(error.localizedDescription)")
            }
            if block.isEmpty { break }
            try reader.feed(block)
        }
        return try reader.finish()
    }

    /// Line by line: the header, then runs; what follows the last newline is a cut-off line.
    struct Reader {
        let file: String
        var pending = Data()
        var header: Header?
        var runs: [RunRecord] = []
        var lineNumber = 0
        let decoder = JSONDecoder()

        init(file: String) { self.file = file }

        mutating func feed(_ block: Data) throws {
            pending.append(block)
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: 0x0A) {
                try line(pending[start..<newline])
                start = pending.index(after: newline)
            }
            pending = Data(pending[start...])
        }

        func finish() throws -> Contents {
            guard let header else { throw BenchError.data("\(file): no header line (empty or cut-off netbench runs log)") }
            return Contents(header: header, runs: runs, droppedBytes: pending.count)
        }

        private mutating func line(_ bytes: Data) throws {
            lineNumber += 1
            guard header != nil else { return header = try Self.header(Data(bytes), file: file) }
            if bytes.isEmpty { return }
            do { runs.append(try decoder.decode(RunRecord.self, from: Data(bytes))) } catch let e as DecodingError {
                throw BenchError.data("\(file):\(lineNumber): \(JSONFile.describe(e).escapingControlCharacters)")
            }
        }

        private static func header(_ line: Data, file: String) throws -> Header {
            guard !line.isEmpty else { throw BenchError.data("\(file):1: empty header line (is this a netbench runs.jsonl?)") }
            struct Probe: Decodable { var format: String?; var schemaVersion: Int? }
            let probe = try JSONFile.decode(Probe.self, from: line, file: "\(file):1")
            guard probe.format == formatName else {
                throw BenchError.data("\(file):1: format is \(probe.format.map { "'\($0.escapingControlCharacters)'" } ?? "missing"); expected '\(formatName)' (is this a netbench runs.jsonl?)")
            }
            guard probe.schemaVersion == ResultsFile.currentSchemaVersion else {
                throw BenchError.data("\(file):1: schemaVersion is \(probe.schemaVersion.map(String.init) ?? "missing"); this netbench reads results of version \(ResultsFile.currentSchemaVersion)")
            }
            return try JSONFile.decode(Header.self, from: line, file: "\(file):1")
        }
    }
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
