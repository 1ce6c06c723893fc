import Foundation
import BenchCore
import BenchModel
import Reporters
import CommandLineKit
import SystemIO

struct HistoryCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "history",
            abstract: "trends across results directories (median, 95% CI, changes)",
            discussion: """
                Orders the results by the commit date each recorded (netbench run records the git commit, branch and \
                commit date of the directory it ran in, and --label), else by their start time, and draws per \
                scenario/profile/transport the median PLT and TTFB with their 95% CIs, one point per directory. A \
                point \
                whose change from the cell's previous point is significant, as 'netbench compare' decides it \
                (bootstrap \
                CI of the change excluding 0 and Mann-Whitney p < 0.05, beyond --noise), is ringed; points where the \
                host or the netbench version changed are marked. Writes into --out:
                  history.html   one self-contained page (inline SVG)
                  history.csv    one row per point: median, CI, change from the previous point, p, verdict, \
                  host/version changed
                """,
            examples: [
                "netbench history results/* -o history",
                "netbench history results/2024-06-0* --noise 2% -o /tmp/trend",
            ],
            exitCodes: [
                ExitCodeDoc(.success, "written"), Netbench.usageExit,
                ExitCodeDoc(.dataError, "missing or unreadable results, or results of another schema version"),
            ])
    }

    @Argument(
        "DIR", help: "results directories (or their results.json / runs.jsonl), at least two", completion: .directory)
    var inputs: [String]
    @Option("--out", "-o", value: "DIR", help: "where to write history.html and history.csv", parse: .directory)
    var out: String?
    @Option(
        "--noise", value: "PCT", default: 0, defaultText: "0%",
        help: "changes whose whole CI lies within ±PCT count as no change", parse: .percent) var noise: Double

    func validate() throws {
        if inputs.count < 2 {
            throw BenchError.usage("history needs at least two results directories (got \(inputs.count))")
        }
        if out == nil { throw BenchError.usage("--out DIR is required: where to write history.html and history.csv") }
    }

    func run() throws -> ExitCode {
        try validate()
        let entries = try inputs.map { path -> History.Entry in
            let (results, _) = try ResultsInput.load(path)
            return History.Entry(name: path, results: results)
        }
        let history = History(entries, noise: noise)
        guard let out else { return .usage }
        do { try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true) } catch {
            throw BenchError.run("\(out): cannot create the directory: \(error.localizedDescription)")
        }
        for (name, text) in [
            (HistoryHTML.fileName, HistoryHTML.render(history)), (HistoryCSV.fileName, HistoryCSV.render(history)),
        ] {
            let path = URL(fileURLWithPath: out).appendingPathComponent(name).path
            try AtomicFile.write(Data(text.utf8), to: path)
            print("wrote \(path)")
        }
        let significant = history.series.flatMap(\.points).filter(\.isSignificant).count
        print("\(history.entries.count) results, \(history.series.count) series, \(significant) significant change(s)")
        return .success
    }
}
