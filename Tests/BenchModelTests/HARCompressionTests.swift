import Foundation
import XCTest
@testable import BenchModel

/// `gzipAsRecorded` (the default): a body the HAR says came gzip-encoded is stored encoded again (decoding
/// back to the HAR's content, nginx's default framing) with `contentEncoding: gzip`; with
/// `--decompress-bodies`, decoded.
final class HARCompressionTests: XCTestCase {
    func testGzipBodiesAreEncodedAgainUnlessDecompressionIsAsked() throws {
        let text = String(repeating: "body { color: #123456; } ", count: 200)
        let entry: [String: Any] = [
            "startedDateTime": "2026-11-27T12:00:00.000Z", "time": 10,
            "request": ["method": "GET", "url": "https://gz.test/a.css", "headers": []],
            "response": [
                "status": 200,
                "headers": [
                    ["name": "Content-Type", "value": "text/css"], ["name": "Content-Encoding", "value": "gzip"],
                ],
                "content": ["size": text.utf8.count, "mimeType": "text/css", "text": text],
            ],
        ]
        let page: [String: Any] = [
            "startedDateTime": "2026-11-27T12:00:00.000Z", "time": 10,
            "request": ["method": "GET", "url": "https://gz.test/", "headers": []],
            "response": [
                "status": 200, "headers": [["name": "Content-Type", "value": "text/html"]],
                "content": ["size": 28, "mimeType": "text/html", "text": "<link rel=stylesheet href=a>"],
            ],
        ]
        let har = try JSONSerialization.data(withJSONObject: ["log": ["version": "1.2", "entries": [page, entry]]])
        var options = HARImporter.Options(name: "gz", bodiesDirectory: "bodies")
        XCTAssertTrue(options.gzipAsRecorded, "compression is replayed as recorded by default")
        options.gzipAsRecorded = false
        let plain = try HARImporter.importHAR(har, file: "gz.har", options: options)
        XCTAssertNil(plain.scenario.resources[1].body?.contentEncoding)
        XCTAssertEqual(plain.scenario.resources[1].bytes, Int64(text.utf8.count))
        XCTAssertEqual(plain.report.bodies.decodedFromWire, 1)

        options.gzipAsRecorded = true
        let gz = try HARImporter.importHAR(har, file: "gz.har", options: options)
        let r = gz.scenario.resources[1]
        XCTAssertEqual(r.body?.contentEncoding, "gzip")
        XCTAssertEqual(gz.report.bodies.reencoded, 1)
        XCTAssertEqual(gz.report.bodies.decodedFromWire, 0)
        XCTAssertTrue(gz.report.bodies.sizeMismatches.isEmpty, "content.size is the decoded length")
        let bytes = try XCTUnwrap(gz.bodies[r.body!.sha256])
        XCTAssertEqual(Int64(bytes.count), r.bytes)
        XCTAssertLessThan(bytes.count, text.utf8.count / 5)
        // zlib's gzip framing as nginx sends it at level 1: mtime 0, XFL 4, OS 3; ISIZE the decoded length.
        XCTAssertEqual(Array(bytes.prefix(10)), [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 4, 3])
        let isize = bytes.suffix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
        XCTAssertEqual(isize, text.utf8.count)
        // Deterministic: the same content gives the same bytes.
        XCTAssertEqual(HARCompression.gzip(Array(text.utf8)), bytes)
        // What a browser's decoder hands the page: the HAR's content length (the Network-domain byte check).
        XCTAssertEqual(ContentDecoding.decodedLength(of: bytes, encoding: "gzip"), text.utf8.count)
        XCTAssertNil(ContentDecoding.decodedLength(of: Array(bytes.dropLast(6)), encoding: "gzip"), "truncated")
        XCTAssertNil(ContentDecoding.decodedLength(of: bytes, encoding: "br"))
        // The decoded bytes themselves (`scenario export` writes them beside the stored gzip).
        XCTAssertEqual(ContentDecoding.decoded(bytes, encoding: "gzip"), Array(text.utf8))
        XCTAssertNil(ContentDecoding.decoded(Array(bytes.dropLast(6)), encoding: "gzip"), "truncated")
        XCTAssertNil(ContentDecoding.decoded(bytes + [0], encoding: "gzip"), "bytes after the stream")
        XCTAssertNil(ContentDecoding.decoded(bytes, encoding: "br"))
    }
}
