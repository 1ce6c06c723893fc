import Foundation
import XCTest
import BenchModel
@testable import Reporters

/// `--format prometheus` and `--format influx` against golden files (Fixtures/golden/metrics.prom,
/// metrics.influx; NETBENCH_UPDATE_GOLDENS=1 regenerates), and their escaping rules.
final class MetricsExportTests: XCTestCase {
    static func sample() -> ResultsFile {
        var r = SampleResults.demo()
        r.source = SourceInfo(
            commit: "0123456789abcdef0123456789abcdef01234567", branch: "main",
            commitDate: "2024-06-01T09:00:00Z", dirty: false, label: "nightly")
        for i in r.runs.indices {
            r.runs[i].startedAt = "2024-06-01T10:00:\(String(format: "%02d", i % 60)).\(String(format: "%03d", i))Z"
        }
        r.runs[1].startedAt = nil  // takes the results' start
        return r
    }

    func testPrometheusGolden() throws {
        try GoldenTests.assertGolden(PrometheusExposition.render(ResultsAnalysis(Self.sample())), "metrics.prom")
    }

    func testInfluxGolden() throws {
        try GoldenTests.assertGolden(InfluxLineProtocol.render(Self.sample()), "metrics.influx")
    }

    func testPrometheusFamiliesAreContiguousAndEveryCellHasItsSamples() throws {
        let analysis = ResultsAnalysis(Self.sample())
        let text = PrometheusExposition.render(analysis)
        var seen: [String] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let name = String(line[..<line.firstIndex(of: "{")!])
            if seen.last != name {
                XCTAssertFalse(seen.contains(name), "\(name) split in two groups"); seen.append(name)
            }
        }
        XCTAssertEqual(seen, PrometheusExposition.families.map(\.name))
        let runs = text.split(separator: "\n").filter { $0.hasPrefix("netbench_runs{") }
        XCTAssertEqual(runs.count, analysis.cells.count)
        // news/cable/h1 had 12 runs, one of them failed; the warm-up is not counted.
        let failed = text.split(separator: "\n").first {
            $0.hasPrefix("netbench_failures{scenario=\"news\",profile=\"cable\",transport=\"h1\"")
        }
        XCTAssertEqual(failed.map { String($0.split(separator: " ").last!) }, "1")
    }

    func testAnUnknownFigureHasNoSample() {
        var run = RunRecord(scenario: "s", profile: "p", transport: .h2, index: 0, status: .ok)
        run.metrics.ttfbMs = 20  // no page load time recorded
        let text = PrometheusExposition.render(ResultsAnalysis(SampleResults.file(runs: [run])))
        XCTAssertTrue(text.contains("netbench_ttfb_median_seconds{scenario=\"s\""), text)
        XCTAssertFalse(text.contains("netbench_plt_median_seconds{"), text)
        XCTAssertTrue(text.contains("# TYPE netbench_plt_median_seconds gauge"))
    }

    func testPrometheusEscapesLabelValuesAndOmitsAnUnknownCommit() throws {
        var r = SampleResults.file(runs: [
            RunRecord(scenario: "a \"b\"\\c\nd", profile: "p", transport: .h2, index: 0, status: .ok)
        ])
        r.runs[0].metrics.pltMs = 1500
        let text = PrometheusExposition.render(ResultsAnalysis(r))
        XCTAssertTrue(
            text.contains(
                #"netbench_plt_median_seconds{scenario="a "#
                    + #"\"b\"\\c\nd",profile="p",transport="h2",client="builtin",netbench_version="0.1.0"} 1.5"#
            ), text)
        XCTAssertFalse(text.contains("commit="))
    }

    func testPushPathGroupsBySuiteAndLabelWithBase64ForUnsafeValues() {
        var r = SampleResults.file(runs: [])
        XCTAssertEqual(PrometheusExposition.pushPath(r), "/metrics/job/netbench/suite/demo")
        r.source = SourceInfo(commit: "abc", label: "release-1.2")
        XCTAssertEqual(PrometheusExposition.pushPath(r), "/metrics/job/netbench/suite/demo/label/release-1.2")
        r.suite.name = "weak/network"
        r.source?.label = ""
        // base64url of "weak/network" and of the empty string.
        XCTAssertEqual(
            PrometheusExposition.pushPath(r), "/metrics/job/netbench/suite@base64/d2Vhay9uZXR3b3Jr/label@base64/=")
    }

    func testInfluxEscapesTagsAndStringsAndUsesTheRunsOwnTime() throws {
        var run = RunRecord(
            scenario: "a b,c=d", profile: "p", transport: .h3, index: 7, status: .failed, error: "reset \"x\" \\ y")
        run.startedAt = "2024-06-01T10:00:01.5Z"
        let text = InfluxLineProtocol.render(SampleResults.file(runs: [run]))
        XCTAssertEqual(
            text,
            #"netbench_run,client=builtin,netbench_version=0.1.0,profile=p,scenario=a\ "#
                + #"b\,c\=d,status=failed,suite=demo,transport=h3,warmup=false index=7i,error="reset \"x\" \\ y" "#
                + #"1717236001500000000"#
                + "\n")
    }
}
