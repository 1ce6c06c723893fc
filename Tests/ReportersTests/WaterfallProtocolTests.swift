import XCTest
import BenchCore
import BenchModel
@testable import Reporters

/// The waterfall names each request's protocol and connection, and marks a request over another
/// protocol than the run's transport (an h3 page falling back to h2), so a reader sees it.
final class WaterfallProtocolTests: XCTestCase {
    /// An h3 page load in which `/app.js` went over a new h2 connection.
    static func mixedRun(index: Int = 1) -> RunRecord {
        var rng = SeededRandom(seed: 7 + UInt64(index))
        var run = SampleResults.pageRun(
            &rng, scenario: "news", profile: "4g", transport: .h3, index: index, rtt: 170)
        var c = ConnectionRecord(id: run.connections.count, origin: "static", transport: .h2, connectStart: 400)
        c.alpn = "h2"
        run.connections.append(c)
        let i = run.requests.firstIndex { $0.id == "/app.js" }!
        run.requests[i].protocol = "h2"
        run.requests[i].connection = c.id
        return run
    }

    func testMixedRunMarksTheRequestOverH2() throws {
        let run = Self.mixedRun()
        XCTAssertEqual(Waterfall.protocolNotes(run), ["1 request over h2 in an h3 run"])
        let svg = Waterfall.render(run, label: "mixed")
        XCTAssertTrue(svg.contains(">⚠ 1 request over h2 in an h3 run</text>"), "legend line")
        XCTAssertTrue(svg.contains(">another protocol</text>"), "legend entry of the marked colour")
        // Exactly one marked cell: red, with the reason in its tooltip, its text flagged.
        let cid = run.connections.count - 1
        XCTAssertTrue(
            svg.contains(
                "fill=\"\(Palette.worse)\"><title>/app.js: protocol h2, connection #\(cid); the run is h3</title>"),
            "marked protocol cell")
        XCTAssertEqual(svg.components(separatedBy: ">⚠ h2</text>").count - 1, 1)
        XCTAssertEqual(svg.components(separatedBy: "class=\"proto\">h3</text>").count - 1, run.requests.count - 1)
        XCTAssertEqual(svg.components(separatedBy: "; the run is").count - 1, 1)
        XCTAssertNil(HTMLReportTests.balanceProblem(svg))
    }

    func testSameRunAllOverH3HasNoMark() {
        var rng = SeededRandom(seed: 8)
        let run = SampleResults.pageRun(&rng, scenario: "news", profile: "4g", transport: .h3, index: 1, rtt: 170)
        XCTAssertEqual(Waterfall.protocolNotes(run), [])
        let svg = Waterfall.render(run, label: "h3")
        XCTAssertFalse(svg.contains("⚠"))
        XCTAssertFalse(svg.contains("the run is"))
        XCTAssertTrue(svg.contains(">#0</text>"), "connection column")
    }

    /// In the whole report: the median run's waterfall summary says it, and the report stays
    /// well-formed and self-contained.
    func testReportOfAMixedRunSaysItInTheSummary() {
        let runs = (1...5).map { Self.mixedRun(index: $0) }
        let file = SampleResults.file(runs: runs, transports: [.h3], perCell: 5)
        let html = HTMLReport.render(ResultsAnalysis(file))
        XCTAssertTrue(html.contains("connections · ⚠ 1 request over h2 in an h3 run</summary>"))
        XCTAssertNil(HTMLReportTests.balanceProblem(html))
        for forbidden in ["<script", "<link", "<img", "http://", "https://", "url("] {
            XCTAssertFalse(html.contains(forbidden), forbidden)
        }
    }

    /// Not recorded is "unknown" (not blank, not 0) and not counted as another protocol; a request
    /// without a protocol of its own takes its connection's ALPN; ALPN names match the transport.
    func testUnknownAndALPNFallback() {
        var rng = SeededRandom(seed: 9)
        var run = SampleResults.pageRun(&rng, scenario: "news", profile: "4g", transport: .h1, index: 1, rtt: 170)
        XCTAssertEqual(run.requests.count, 6)
        run.requests[0].protocol = "http/1.1"
        run.requests[1].protocol = nil
        run.requests[1].connection = nil
        run.requests[2].protocol = ""  // Resource Timing's nextHopProtocol when not exposed
        run.requests[2].connection = nil
        run.requests[3].protocol = nil  // its connection negotiated http/1.1
        run.connections[run.requests[4].connection!].alpn = "h2"
        run.requests[4].protocol = nil
        XCTAssertEqual(Waterfall.protocolName(run.requests[0], run: run), "h1")
        XCTAssertNil(Waterfall.protocolName(run.requests[1], run: run))
        XCTAssertNil(Waterfall.protocolName(run.requests[2], run: run))
        XCTAssertEqual(Waterfall.protocolName(run.requests[3], run: run), "h1")
        XCTAssertEqual(Waterfall.protocolName(run.requests[4], run: run), "h2")
        XCTAssertEqual(Waterfall.connectionName(run.requests[1]), "unknown")
        XCTAssertEqual(
            Waterfall.protocolNotes(run), ["1 request over h2 in an h1 run", "2 requests over an unknown protocol"])
        let svg = Waterfall.render(run, label: "h1")
        XCTAssertEqual(svg.components(separatedBy: "class=\"proto unknown\">unknown</text>").count - 1, 2)
        XCTAssertTrue(svg.contains("<title>/app.css: protocol unknown, connection unknown</title>"))
        XCTAssertEqual(svg.components(separatedBy: ">⚠ h2</text>").count - 1, 1)
    }
}
