import XCTest
import BenchCore
import BenchModel
@testable import Reporters

/// The filmstrip in the HTML report: a row per transport, a column every 100 ms showing the last
/// frame painted by then, changes framed, each distinct frame embedded once.
final class FilmstripReportTests: XCTestCase {
    func results() -> ResultsFile {
        var file = BrowserMetricsReportTests.browserRuns(perCell: 3)
        var h2 = FilmstripRecord(
            scenario: "news", profile: "4g", transport: .h2, client: .chromium,
            frames: [
                .init(ms: 0, jpeg: "d2hpdGU="), .init(ms: 250, jpeg: "dGV4dA=="), .init(ms: 420, jpeg: "aW1hZ2U="),
            ])
        h2.firstContentfulPaintMs = 250
        h2.largestContentfulPaintMs = 420
        h2.loadEventMs = 480
        var h3 = FilmstripRecord(scenario: "news", profile: "4g", transport: .h3, client: .chromium, frames: [])
        h3.error = "the browser sent no frames"
        file.filmstrips = [h2, h3]
        return file
    }

    func testRowsPerTransportWithAFrameEvery100Ms() throws {
        let html = HTMLReport.render(ResultsAnalysis(results(), resamples: 200))
        XCTAssertTrue(html.contains("Filmstrip: what the page showed, every 100 ms"))
        // Each distinct frame once, as a class.
        for (j, b64) in ["d2hpdGU=", "dGV4dA==", "aW1hZ2U="].enumerated() {
            XCTAssertEqual(
                html.components(separatedBy: "url(data:image/jpeg;base64,\(b64))").count - 1, 1,
                "frame \(j) embedded once")
        }
        // The h2 row: columns 0.0 … 0.5 s (the load ends at 480 ms); the text from 0.3 s, the image from 0.5 s.
        let h2 = try XCTUnwrap(html.components(separatedBy: "<div class=\"fs-row\">").dropFirst().first)
        let cells = h2.components(separatedBy: "<figure").dropFirst()
        XCTAssertEqual(
            cells.map { $0.components(separatedBy: "<figcaption>")[1].prefix(6) },
            ["0.0 s<", "0.1 s<", "0.2 s<", "0.3 s<", "0.4 s<", "0.5 s<"])
        let frames = cells.map { c -> Int? in
            guard let r = c.range(of: "-0-") else { return nil }
            return Int(String(c[r.upperBound...].prefix { $0.isNumber }))
        }
        XCTAssertEqual(frames, [0, 0, 0, 1, 1, 2])
        XCTAssertEqual(
            cells.map { $0.hasPrefix(" class=\"fs-frame fs-changed\"") }, [false, false, false, true, false, true])
        XCTAssertTrue(h2.contains("FCP 250 ms · LCP 420 ms · load 480 ms"))
        XCTAssertTrue(html.contains("the browser sent no frames"), "a failed capture says why")
    }

    func testNoFilmstripWithoutFrames() {
        XCTAssertFalse(
            HTMLReport.render(ResultsAnalysis(BrowserMetricsReportTests.browserRuns(perCell: 3), resamples: 200))
                .contains("Filmstrip"))
    }
}
