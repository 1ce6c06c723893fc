import Foundation
import BenchCore
import BenchModel
import SystemIO
import Reporters
import CommandLineKit

struct CheckCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "check",
            abstract: "gate CI: fail on a significant regression or a broken threshold",
            discussion: """
                Compares DIR/results.json with the baseline, scenario/profile/transport by scenario/profile/transport, \
                and checks thresholds. Exits 1 only when a metric regressed significantly by more than \
                --max-regression (the whole 95% bootstrap CI of the relative change of the median lies beyond it AND \
                Mann-Whitney p < 0.05; times: slower is worse; goodput: lower is worse), or a threshold does not \
                hold. Noise between two runs of the same code passes. Cells present on one side only are skipped.

                Thresholds (k6-style), from a JSON file; a suite file's "thresholds" work as they are:
                  {"thresholds": ["pltMs.p95 < 3000",
                                  {"expr": "ttfbMs.median <= 500", "scenario": "news", "profile": "4g", "transport": \
                                  "h3"},
                                  "pltMs.median <= 2 * ideal"]}
                metric.stat OP value, stat: median p50 p90 p95 p99 mean min max, OP: < <= > >= ==; value: a number \
                in the metric's unit, or ideal (the runs' own lower bound: idealPltMs / idealTtfbMs), optionally \
                times a factor. A threshold that matches no runs fails.

                --baseline may be omitted when --thresholds is given. --junit writes one test case per check.

                Load results (a directory with load.json from netbench load -o): thresholds only, e.g.
                  {"thresholds": ["errors == 0", "achievedRate >= 0.99 * asked",
                                  {"expr": "latencyMs.p99 <= 50", "transport": "h3", "rate": 1000},
                                  "latencyMs.p50 <= 1.5 * ideal"]}
                latencyMs.STAT (p50 median p90 p99 p999 p9999 max mean; ms), achievedRate (req/s) or errors; \
                value: a number, asked (the rate asked for) or ideal (the emulated link's ideal, load -p), \
                optionally times a factor; "rate" limits it to the step asked at that rate (req/s).
                """,
            examples: [
                "netbench check results/branch --baseline results/baseline.json --max-regression 5% --junit junit.xml",
                "netbench check results/branch --thresholds Scenarios/suites/ci.json",
                "netbench check results/branch --baseline results/main --json",
                "netbench check load-out --thresholds load-gates.json --junit junit.xml",
            ],
            exitCodes: [
                ExitCodeDoc(.success, "pass"),
                ExitCodeDoc(.regression, "a significant regression or a broken threshold"),
                Netbench.usageExit,
                ExitCodeDoc(
                    .dataError,
                    "missing or unreadable results, baseline or thresholds file, or results of another schema version"),
            ])
    }

    @Argument("DIR", help: "the results directory (or results.json) to check", completion: .directory) var input: String
    @Option("--baseline", "-b", value: "DIR_OR_FILE", help: "the results to compare against", parse: .file("json"))
    var baselinePath: String?
    @Option(
        "--max-regression", value: "PCT", default: 0.05, defaultText: "5%",
        help: "the largest significant slowdown that still passes", parse: .percent) var maxRegression: Double
    @Option(
        "--thresholds", value: "FILE", help: "a thresholds or suite file (k6-style expressions)", parse: .file("json"))
    var thresholdsPath: String?
    @Option("--junit", value: "FILE", help: "also write a JUnit XML file, one test case per check", parse: .file("xml"))
    var junitPath: String?
    @Option(
        "--metrics", value: "LIST", help: "metrics to test (default: pltMs, ttfbMs, handshakeMs, goodputMbps)",
        parse: .metrics) var metrics: [Metric]?
    @Flag("--json", help: "print the outcome and every check as JSON") var json: Bool
    @Flag("--quiet", "-q", help: "print only the checks that failed (the exit status tells pass or fail)") var quiet:
        Bool

    func validate() throws {
        _ = try OutputMode.from(json: json, quiet: quiet)
        guard baselinePath != nil || thresholdsPath != nil else {
            throw BenchError.usage("nothing to check against: give --baseline DIR_OR_FILE and/or --thresholds FILE")
        }
    }

    func run() throws -> ExitCode {
        let limitText = String(format: "%g%%", maxRegression * 100)
        let metrics = self.metrics ?? Metric.compared
        var outcomes: [CheckOutcome] = []
        if LoadMergeInput.holdsLoad(input) {
            outcomes = try LoadMergeInput.check(input, baseline: baselinePath, thresholds: thresholdsPath)
        } else {
            let (current, _) = try ResultsInput.load(input)
            if let baselinePath {
                let (baseline, _) = try ResultsInput.load(baselinePath, role: "baseline")
                do {
                    outcomes += try CheckRun.regressions(
                        current: current, baseline: baseline, maxRegression: maxRegression, metrics: metrics)
                } catch let e as BenchError {
                    throw BenchError(e.exitCode, "\(input) against \(baselinePath): \(e.message)")
                }
            }
            if let thresholdsPath {
                outcomes += CheckRun.thresholds(try ThresholdFile.load(from: thresholdsPath), results: current)
            }
        }
        let run = CheckRun(outcomes: outcomes)
        let mode = try OutputMode.from(json: json, quiet: quiet)
        for o in outcomes where mode == .table || (mode == .quiet && o.status == .failed) {
            let tag = o.status == .passed ? "PASS" : o.status == .failed ? "FAIL" : "SKIP"
            print("\(tag)  \(o.name): \(o.message)")
        }
        if let junitPath {
            try AtomicFile.write(Data(JUnitReport.render(outcomes).utf8), to: junitPath)
            if mode == .table { print("wrote \(junitPath)") }
        }
        if mode == .json {
            try OutputMode.printJSON(
                CheckJSON(
                    passed: !run.failed,
                    checks: outcomes.map {
                        CheckJSON.Check(
                            kind: $0.kind.rawValue, name: $0.name, status: $0.status.rawValue, message: $0.message)
                    }))
            return run.failed ? .regression : .success
        }
        let failed = outcomes.filter { $0.status == .failed }
        let regressions = failed.filter { $0.kind == .regression }.count
        let thresholds = failed.count - regressions
        if run.failed {
            if mode == .quiet { return .regression }
            print(
                "check failed: \(regressions) significant regression\(regressions == 1 ? "" : "s") beyond "
                    + "\(limitText), "
                    + "\(thresholds) threshold\(thresholds == 1 ? "" : "s") broken (\(outcomes.count) checks)")
            return .regression
        }
        if mode == .quiet { return .success }
        let skipped = outcomes.filter { $0.status == .skipped }.count
        print("check passed: \(outcomes.count - skipped) checks" + (skipped > 0 ? ", \(skipped) skipped" : ""))
        return .success
    }
}

/// `check --json`: the outcome and every check.
struct CheckJSON: Encodable {
    struct Check: Encodable { var kind: String; var name: String; var status: String; var message: String }
    var passed: Bool
    var checks: [Check]
}
