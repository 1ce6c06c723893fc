import XCTest
import BenchModel

/// Asserts the per-request timestamps of a successful run are complete and ordered.
func assertOrderedTimestamps(_ run: RunRecord, file: StaticString = #filePath, line: UInt = #line) {
    for r in run.requests {
        let label = "\(run.transport.rawValue) \(r.id)"
        guard let sent = r.requestSent, let fb = r.firstByte, let lb = r.lastByte else {
            return XCTFail("\(label): missing timestamps", file: file, line: line)
        }
        XCTAssertGreaterThanOrEqual(r.queued, 0, label, file: file, line: line)
        if let cs = r.connectStart {
            XCTAssertLessThanOrEqual(
                r.queued, cs + 0.001, "\(label): queued after connectStart", file: file, line: line)
            if let ce = r.connectEnd {
                XCTAssertLessThanOrEqual(cs, ce, "\(label): connectStart > connectEnd", file: file, line: line)
            }
            if let te = r.tlsEnd {
                XCTAssertLessThanOrEqual(
                    r.connectEnd ?? cs, te, "\(label): connectEnd > tlsEnd", file: file, line: line)
                XCTAssertLessThanOrEqual(te, sent + 0.001, "\(label): tlsEnd > requestSent", file: file, line: line)
            }
        }
        XCTAssertLessThanOrEqual(r.queued, sent + 0.001, "\(label): queued > requestSent", file: file, line: line)
        XCTAssertLessThanOrEqual(sent, fb, "\(label): requestSent > firstByte", file: file, line: line)
        XCTAssertLessThanOrEqual(fb, lb, "\(label): firstByte > lastByte", file: file, line: line)
        if let plt = run.metrics.pltMs { XCTAssertLessThanOrEqual(lb, plt + 0.001, label, file: file, line: line) }
    }
}
