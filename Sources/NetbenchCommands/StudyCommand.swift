import Foundation
import BenchCore
import BenchModel
import Reporters
import Statistics
import CommandLineKit

/// `netbench study RESULTS --suite SUITE.json`: tests the published claims a suite declares
/// against its results, and reports bulk goodput as the QUIC interop runner does.
struct StudyCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "study",
            abstract: "test the claims a suite declares: speedup, interval, verdict",
            discussion: """
                For every claim in the suite's "claims" (baseline, candidate, minSpeedup, optional profiles, \
                scenarios, metric (default pltMs), client (default: the suite's first client)): per page and \
                profile, the ratio of median load times (baseline / candidate; > 1: the candidate is faster); their \
                geometric mean over pages and profiles; a 95% two-level percentile bootstrap interval (resample the \
                pages, then the runs within each page and profile); and the verdict: confirmed if the whole interval \
                lies above minSpeedup, refuted if it lies below, undecided otherwise. An undecided claim over \
                several pages also gets the interval of the pages alone (each cell at its median ratio: where the \
                interval goes as the runs grow): when that interval holds minSpeedup too, more runs cannot decide \
                the claim on these pages, only more pages can. Several RESULTS are pooled \
                (the runs of a study made in parts, e.g. light and heavy pages apart). Failed runs (timeouts) are \
                counted and left out. For bulk transfers: goodput per transport in kbit/s, mean (± sample sd) over \
                the runs, as the QUIC interop runner reports its goodput measurement.
                """,
            examples: [
                "netbench study results/quic-claim --suite Scenarios/suites/quic-claim.json",
                "netbench study results/interop --suite Scenarios/suites/interop-goodput.json --format md",
                "netbench study results/light results/heavy --suite Scenarios/suites/quic-claim.json",
            ],
            exitCodes: [
                ExitCodeDoc(.success, "studied (whatever the verdicts)"), Netbench.usageExit, Netbench.dataExit,
            ])
    }

    @Argument(
        "RESULTS", count: 1..., help: "results directories (or runs.jsonl / results.json files); several are pooled",
        completion: .directory) var results: [String]
    @Option("--suite", "-s", value: "SUITE.json", help: "the suite whose claims to test", parse: .file("json"))
    var suitePath: String?
    @Option("--format", "-f", value: "F", default: .text, help: "text or md", parse: .studyFormat) var format:
        StudyReport.OutputFormat
    @Option(
        "--resamples", value: "N", default: Bootstrap.defaultResamples, help: "bootstrap resamples",
        parse: .int(100...1_000_000)) var resamples: Int

    func run() throws -> ExitCode {
        let claims = try suitePath.map { try Suite.load(from: $0).claims ?? [] } ?? []
        var (r, _) = try ResultsInput.load(results[0])
        for more in results.dropFirst() {
            let (m, _) = try ResultsInput.load(more)
            r.runs += m.runs
            r.suite.scenarios += m.suite.scenarios.filter { !r.suite.scenarios.contains($0) }
            r.suite.profiles += m.suite.profiles.filter { p in !r.suite.profiles.contains { $0.name == p.name } }
            r.suite.transports += m.suite.transports.filter { !r.suite.transports.contains($0) }
        }
        print(
            StudyReport.render(StudyAnalysis(results: r, claims: claims, resamples: resamples), format: format),
            terminator: "")
        return .success
    }
}

extension ValueParser where T == StudyReport.OutputFormat {
    static var studyFormat: ValueParser<StudyReport.OutputFormat> {
        .init(expected: "one of text, md", completion: .choices(["text", "md"])) {
            StudyReport.OutputFormat(rawValue: $0 == "markdown" ? "md" : $0)
        }
    }
}
