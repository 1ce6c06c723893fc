import Foundation
import BenchCore
import BenchModel
import Reporters
import Runner
import Testbed
import Browsers
import Workloads
import RemoteExecution
import SystemIO

/// Writes a run's files: every run is appended to `runs.jsonl` as it ends (one durable line: a
/// crash loses at most the run in flight), and results.json and the reports once the run ends.
enum ResultsWriter {
    static func writeFinal(_ results: ResultsFile, to directory: String) throws {
        try write(results, to: directory)
    }

    /// Every file of `formats` into `directory` (created if missing), atomically; the paths written.
    /// results.json is produced a run at a time, so it is never whole in memory.
    @discardableResult
    static func write(
        _ results: ResultsFile, to directory: String, formats: [ReportFormat] = ReportFormat.standard,
        log: LogLines? = nil
    ) throws -> [String] {
        var written: [String] = []
        if formats.contains(.json) {
            do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
                throw BenchError.run("\(directory): cannot create the directory: \(error.localizedDescription)")
            }
            let path = URL(fileURLWithPath: directory).appendingPathComponent("results.json").path
            do {
                try AppendOnlyFile.replace(path) { write in
                    if let log, log.lines.count == results.runs.count {
                        try results.encodeJSON(log: log.path, lines: log.lines, in: write)
                    } else {
                        try results.encodeJSON(in: write)
                    }
                }
            } catch let e as SystemError {
                throw BenchError.run("\(path): cannot write: \(e.reason)")
            }
            written.append(path)
        }
        let others = formats.filter { $0 != .json }
        guard !others.isEmpty else { return written }
        return written
            + (try ReportWriter.render(results, formats: others).map { name, data in
                let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
                try AtomicFile.write(data, to: path)
                return path
            })
    }

    /// Where the runs of results read from a log lie in it: results.json is then pretty-printed from
    /// those lines instead of encoded from decoded runs.
    struct LogLines {
        var path: String
        var lines: [ResultsLog.LineRange]
    }

    static func terminalSummary(_ results: ResultsFile) -> String { TextSummary.render(results) }
}

/// The runner's sink for `netbench run`: `DIR/runs.jsonl`, a header line then one line per run.
final class ResultsLogSink: RunSink {
    let directory: String
    /// Resume: the log exists and continues (a cut-off last line is cut away); no new header.
    let resuming: Bool
    /// Recorded in the header (the runner's header does not know the checkout).
    var source: SourceInfo?
    private var file: AppendOnlyFile?
    /// Runs appended by this process (a resumed log holds more).
    private var appended = 0
    /// Bytes of a cut-off line removed when a resumed log was opened.
    private(set) var truncatedBytes: Int64 = 0

    init(directory: String, resuming: Bool) {
        self.directory = directory
        self.resuming = resuming
    }

    var path: String { URL(fileURLWithPath: directory).appendingPathComponent(ResultsLog.fileName).path }

    func begin(_ results: ResultsFile) throws {
        if !resuming {
            var header = ResultsLog.Header(
                planDigest: results.planDigest ?? "", host: results.host, netbenchVersion: results.netbenchVersion,
                shard: results.shards?.first?.shard, startedAt: results.startedAt, suite: results.suite)
            header.source = source ?? results.source
            // A fresh run replaces any earlier log in the directory, as it replaces results.json.
            try AtomicFile.write(Data(try ResultsLog.headerLine(header)), to: path)
        }
        do { file = try AppendOnlyFile(path: path) } catch {
            throw BenchError.run("\(path): cannot open the results log for appending: \(error)")
        }
        truncatedBytes = file?.truncatedBytes ?? 0
    }

    func append(_ record: RunRecord) throws {
        guard let file else { throw BenchError.run("\(path): results log not open") }
        do { try file.append(try ResultsLog.recordLine(record)) } catch let e as SystemError {
            // One line that says what is kept: the log ends with the last whole run (append cuts a
            // partial one away), and --resume continues from it once there is room.
            let kept = resuming ? "the runs before it are kept" : "the \(appended) run(s) before it are kept"
            throw BenchError.run(
                "\(path): cannot append a run: \(e.reason); \(kept) (free space, then --resume \(directory))")
        }
        appended += 1
        // A key log or qlog that could not be written stops the suite after the run it belongs to.
        if let failure = DiagnosticWriteFailure.message {
            throw BenchError.run("\(failure); the runs so far are kept in \(path)")
        }
    }
}
