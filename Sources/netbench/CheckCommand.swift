import Foundation
import BenchCore
import BenchModel
import Reporters

struct CheckCommand: Command {
    static let name = "check"
    static let summary = "gate CI: fail on a significant regression or a broken threshold"
    static let help = """
    usage: netbench check DIR --baseline DIR_OR_FILE [--max-regression 5%] [--thresholds FILE]
                          [--junit FILE] [--metrics pltMs,ttfbMs,handshakeMs,goodputMbps]

    Compares DIR/results.json with the baseline, scenario/profile/transport by scenario/profile/
    transport, and checks thresholds. Exits 1 only when
      - a metric regressed significantly by more than --max-regression (default 5%): the whole 95%
        bootstrap CI of the relative change of the median lies beyond it AND Mann-Whitney p < 0.05
        (times: slower is worse; goodput: lower is worse), or
      - a threshold does not hold.
    Noise between two runs of the same code passes. Cells present on one side only are skipped.

    Thresholds (k6-style), from a JSON file; a suite file's "thresholds" work as they are:
      {"thresholds": ["pltMs.p95 < 3000",
                      {"expr": "ttfbMs.median <= 500", "scenario": "news", "profile": "4g", "transport": "h3"},
                      "pltMs.median <= 2 * ideal"]}
    metric.stat OP value, stat: median p50 p90 p95 p99 mean min max, OP: < <= > >= ==; value: a number
    in the metric's unit, or ideal (the runs' own lower bound: idealPltMs / idealTtfbMs), optionally
    times a factor. A threshold that matches no runs fails.

    --baseline may be omitted when --thresholds is given. --junit writes one test case per check.
    Exit codes: 0 pass, 1 regression or threshold failed, 64 usage, 65 missing or unreadable results,
    baseline or thresholds file, or results of another schema version.

    examples:
      netbench check results/branch --baseline results/baseline.json --max-regression 5% --junit junit.xml
      netbench check results/branch --thresholds Scenarios/suites/ci.json
    """

    static func run(_ args: inout Arguments) throws -> ExitCode {
        let baselinePath = try args.option("--baseline", "-b")
        let thresholdsPath = try args.option("--thresholds")
        let junitPath = try args.option("--junit")
        let limitText = try args.option("--max-regression") ?? "5%"
        guard let maxRegression = Percent.parse(limitText) else {
            throw BenchError.usage("--max-regression '\(limitText)' is not a percentage (e.g. 5%)")
        }
        let metrics = try MetricList.parse(try args.option("--metrics"))
        let positionals = try args.positionals()
        guard positionals.count == 1 else { throw BenchError.usage("give the results directory to check (netbench check DIR --baseline DIR_OR_FILE)") }
        guard baselinePath != nil || thresholdsPath != nil else {
            throw BenchError.usage("nothing to check against: give --baseline DIR_OR_FILE and/or --thresholds FILE")
        }

        let (current, _) = try ResultsInput.load(positionals[0])
        var outcomes: [CheckOutcome] = []
        if let baselinePath {
            let (baseline, _) = try ResultsInput.load(baselinePath, role: "baseline")
            do {
                outcomes += try CheckRun.regressions(current: current, baseline: baseline, maxRegression: maxRegression, metrics: metrics)
            } catch let e as BenchError {
                throw BenchError(e.exitCode, "\(positionals[0]) against \(baselinePath): \(e.message)")
            }
        }
        if let thresholdsPath {
            outcomes += CheckRun.thresholds(try ThresholdFile.load(from: thresholdsPath), results: current)
        }
        let run = CheckRun(outcomes: outcomes)
        for o in outcomes {
            let tag = o.status == .passed ? "PASS" : o.status == .failed ? "FAIL" : "SKIP"
            print("\(tag)  \(o.name): \(o.message)")
        }
        if let junitPath {
            try JSONFile.writeAtomically(Data(JUnitReport.render(outcomes).utf8), to: junitPath)
            print("wrote \(junitPath)")
        }
        let failed = outcomes.filter { $0.status == .failed }
        let regressions = failed.filter { $0.kind == "regression" }.count
        let thresholds = failed.count - regressions
        if run.failed {
            print("check failed: \(regressions) significant regression\(regressions == 1 ? "" : "s") beyond \(limitText), "
                  + "\(thresholds) threshold\(thresholds == 1 ? "" : "s") broken (\(outcomes.count) checks)")
            return .regression
        }
        let skipped = outcomes.filter { $0.status == .skipped }.count
        print("check passed: \(outcomes.count - skipped) checks" + (skipped > 0 ? ", \(skipped) skipped" : ""))
        return .success
    }
}
