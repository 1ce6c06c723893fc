import Foundation
import BenchCore

extension ResultsLog {
    /// Where one line lies in a log file: its first byte and its length without the newline.
    public struct LineRange: Sendable, Hashable {
        public var offset: Int64
        public var length: Int
    }

    /// Reads a log. A last line without its newline was cut off mid-write: it is dropped and
    /// counted in `droppedBytes`. Any other bad line is an error naming the file and the line.
    public static func parse(_ data: Data, file: String, skimming: Bool = false) throws -> Contents {
        var reader = Reader(file: file, skimming: skimming)
        try reader.feed(data)
        return try reader.finish()
    }

    /// Reads the log a block at a time: only the decoded runs are kept, never the whole file's bytes.
    /// Skimming leaves every run's `requests` and `connections` empty without decoding them (most of
    /// a line's bytes and of the time to read it); `details(of:in:path:)` reads chosen runs whole.
    public static func load(from path: String, skimming: Bool = false) throws -> Contents {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw BenchError.data("\(path): does not exist or cannot be read")
        }
        defer { try? handle.close() }
        var reader = Reader(file: path, skimming: skimming)
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

    /// The whole records of the runs at `indices` of skimmed `contents`, read again from `path`.
    public static func details(of indices: [Int], in contents: Contents, path: String) throws -> [Int: RunRecord] {
        guard !indices.isEmpty else { return [:] }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw BenchError.data("\(path): does not exist or cannot be read")
        }
        defer { try? handle.close() }
        let decoder = JSONDecoder()
        var out: [Int: RunRecord] = [:]
        for i in indices where contents.lines.indices.contains(i) {
            let range = contents.lines[i]
            let bytes: Data
            do {
                try handle.seek(toOffset: UInt64(range.offset))
                bytes = try handle.read(upToCount: range.length) ?? Data()
            } catch {
                throw BenchError.data("\(path): cannot be read: \(error.localizedDescription)")
            }
            do { out[i] = try decoder.decode(RunRecord.self, from: bytes) } catch let e as DecodingError {
                throw BenchError.data("\(path): run \(i + 1): \(JSONFile.describe(e).escapingControlCharacters)")
            }
        }
        return out
    }

    /// Line by line: the header, then runs; what follows the last newline is a cut-off line.
    struct Reader {
        let file: String
        let skimming: Bool
        /// Bytes after the last newline seen, and the file offset of the first of them.
        var pending: [UInt8] = []
        var pendingOffset: Int64 = 0
        var header: Header?
        var runs: [RunRecord] = []
        var lines: [LineRange] = []
        var lineNumber = 0
        let decoder = JSONDecoder()

        init(file: String, skimming: Bool) { self.file = file; self.skimming = skimming }

        mutating func feed(_ block: Data) throws {
            pending.append(contentsOf: block)
            let bytes = pending
            let consumed = try bytes.withUnsafeBufferPointer { buffer -> Int in
                var start = 0
                while start < buffer.count, let newline = buffer[start...].firstIndex(of: 0x0A) {
                    try line(
                        UnsafeBufferPointer(rebasing: buffer[start..<newline]), offset: pendingOffset + Int64(start))
                    start = newline + 1
                }
                return start
            }
            pending.removeFirst(consumed)
            pendingOffset += Int64(consumed)
        }

        func finish() throws -> Contents {
            guard let header else {
                throw BenchError.data("\(file): no header line (empty or cut-off netbench runs log)")
            }
            return Contents(header: header, runs: runs, droppedBytes: pending.count, lines: lines, skimmed: skimming)
        }

        private mutating func line(_ bytes: UnsafeBufferPointer<UInt8>, offset: Int64) throws {
            lineNumber += 1
            guard header != nil else { return header = try Self.header(Data(buffer: bytes), file: file) }
            if bytes.isEmpty { return }
            let json = skimming ? RecordSkimmer.emptying(["requests", "connections"], in: bytes).map { Data($0) } : nil
            do { runs.append(try decoder.decode(RunRecord.self, from: json ?? Data(buffer: bytes))) } catch let e
                as DecodingError
            {
                throw BenchError.data("\(file):\(lineNumber): \(JSONFile.describe(e).escapingControlCharacters)")
            }
            lines.append(LineRange(offset: offset, length: bytes.count))
        }

        private static func header(_ line: Data, file: String) throws -> Header {
            guard !line.isEmpty else {
                throw BenchError.data("\(file):1: empty header line (is this a netbench runs.jsonl?)")
            }
            struct Probe: Decodable { var format: String?; var schemaVersion: Int? }
            let probe = try JSONFile.decode(Probe.self, from: line, file: "\(file):1")
            guard probe.format == formatName else {
                throw BenchError.data(
                    "\(file):1: format is \(probe.format.map { "'\($0.escapingControlCharacters)'" } ?? "missing"); "
                        + "expected '\(formatName)' (is this a netbench runs.jsonl?)"
                )
            }
            guard probe.schemaVersion == ResultsFile.currentSchemaVersion else {
                throw BenchError.data(
                    "\(file):1: schemaVersion is \(probe.schemaVersion.map(String.init) ?? "missing"); this netbench "
                        + "reads results of version \(ResultsFile.currentSchemaVersion)"
                )
            }
            return try JSONFile.decode(Header.self, from: line, file: "\(file):1")
        }
    }
}

/// A JSON object with the values of some top-level members replaced by `[]`, found by a byte scan
/// that only matches brackets and strings, so that what is skipped costs no decoding.
enum RecordSkimmer {
    /// The object's bytes with the named top-level members' values as `[]`; nil when the bytes are
    /// not one JSON object as far as the scan can tell (the decoder then reads them whole and names the error).
    static func emptying(_ names: [String], in p: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let keys = names.map { Array("\"\($0)\"".utf8) }
        var i = skipSpace(p, 0)
        guard i < p.count, p[i] == UInt8(ascii: "{") else { return nil }
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(2048)
        i += 1
        var first = true
        while true {
            i = skipSpace(p, i)
            guard i < p.count else { return nil }
            if p[i] == UInt8(ascii: "}") { break }
            if !first {
                guard p[i] == UInt8(ascii: ",") else { return nil }
                i = skipSpace(p, i + 1)
            }
            guard i < p.count, p[i] == UInt8(ascii: "\""), let keyEnd = skipString(p, i) else { return nil }
            var colon = skipSpace(p, keyEnd)
            guard colon < p.count, p[colon] == UInt8(ascii: ":") else { return nil }
            colon += 1
            let valueStart = skipSpace(p, colon)
            guard let valueEnd = skipValue(p, valueStart) else { return nil }
            if !first { out.append(UInt8(ascii: ",")) }
            let key = UnsafeBufferPointer(rebasing: p[i..<keyEnd])
            if keys.contains(where: { $0.elementsEqual(key) }) {
                out.append(contentsOf: key)
                out.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]")])
            } else {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: p[i..<valueEnd]))
            }
            first = false
            i = valueEnd
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    static func skipSpace(_ p: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var i = start
        while i < p.count, p[i] == 0x20 || p[i] == 0x0A || p[i] == 0x0D || p[i] == 0x09 { i += 1 }
        return i
    }

    /// The index after the closing quote of the string opening at `start`.
    static func skipString(_ p: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        var i = start + 1
        while i < p.count {
            switch p[i] {
            case UInt8(ascii: "\\"): i += 2
            case UInt8(ascii: "\""): return i + 1
            default: i += 1
            }
        }
        return nil
    }

    /// The index after the value starting at `start` (string, object, array or scalar).
    static func skipValue(_ p: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        guard start < p.count else { return nil }
        switch p[start] {
        case UInt8(ascii: "\""): return skipString(p, start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0, i = start
            while i < p.count {
                switch p[i] {
                case UInt8(ascii: "\""): guard let e = skipString(p, i) else { return nil }; i = e; continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default: break
                }
                i += 1
            }
            return nil
        default:
            var i = start
            scalar: while i < p.count {
                switch p[i] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09: break scalar
                default: i += 1
                }
            }
            return i > start ? i : nil
        }
    }
}
