import Foundation
import XCTest
import BenchCore
@testable import BenchModel

/// Recorded bodies: `import-har` keeps `content.text`, `Scenario.load` reads the files back.
final class HARBodiesTests: XCTestCase {
    /// One HAR entry; `content` is the JSON of `response.content`.
    static func entry(_ url: String, at ms: Int, content: String, mime: String = "text/html", extra: String = "")
        -> String
    {
        """
        {"startedDateTime": "2024-10-01T12:00:00.\(String(format: "%03d", ms))Z", "time": 50,
         "request": {"method": "GET", "url": "\(url)", "headers": []},
         "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "\(mime)"}\(extra)],
                      "bodySize": 100, "content": \(content)},
         "timings": {"blocked": 0, "dns": 0, "connect": 10, "ssl": 5, "send": 0, "wait": 20, "receive": 20}}
        """
    }

    static func har(_ entries: [String]) -> Data {
        Data(#"{"log": {"version": "1.2", "creator": {"name": "test"}, "entries": ["#.utf8)
            + Data(entries.joined(separator: ",").utf8) + Data("]}}".utf8)
    }

    static let binary: [UInt8] = Array(0...255)
    static let page = "<html><link rel=stylesheet href=/a.css></html>"

    static func sample(cssContent: String? = nil) -> Data {
        har([
            entry(
                "https://www.site.test/", at: 0,
                content: #"{"size": 46, "mimeType": "text/html", "text": "\#(page)"}"#),
            entry(
                "https://www.site.test/a.css", at: 100,
                content: cssContent
                    ?? #"{"size": 256, "encoding": "base64", "text": "\#(Data(binary).base64EncodedString())"}"#,
                mime: "text/css", extra: #", {"name": "content-encoding", "value": "gzip"}"#),
            entry(
                "https://cdn.site.test/i.png", at: 200, content: #"{"size": 4000, "mimeType": "image/png"}"#,
                mime: "image/png"),
        ])
    }

    func testBodiesKeptWithTypeSizeAndDigest() throws {
        var options = HARImporter.Options(bodiesDirectory: "s.bodies")
        options.gzipAsRecorded = false  // --decompress-bodies
        let r = try HARImporter.importHAR(Self.sample(), file: "s.har", options: options)
        let s = r.scenario
        XCTAssertEqual(s.bodies, "s.bodies")
        let doc = try XCTUnwrap(s.root), css = s.resources[1], img = s.resources[2]
        XCTAssertEqual(doc.bytes, Int64(Self.page.utf8.count))
        XCTAssertEqual(doc.body?.sha256, SHA256.hex(Array(Self.page.utf8)))
        XCTAssertEqual(doc.body?.contentType, "text/html")
        XCTAssertEqual(css.bytes, 256)
        XCTAssertEqual(css.body?.contentType, "text/css")
        XCTAssertNil(css.body?.contentEncoding)  // decoded on request: served uncompressed
        XCTAssertNil(img.body)
        XCTAssertEqual(img.bytes, 100)  // no content: bodySize as before
        XCTAssertEqual(r.bodies[SHA256.hex(Self.binary)], Self.binary)
        XCTAssertEqual(r.bodies.count, 2)
        XCTAssertEqual(r.report.bodies.real, 2)
        XCTAssertEqual(r.report.bodies.bytes, Int64(Self.page.utf8.count + 256))
        XCTAssertEqual(r.report.bodies.decodedFromWire, 1)
        XCTAssertEqual(r.report.bodies.sizeMismatches, [])
    }

    func testWithoutDirectoryContentIsNotKept() throws {
        let r = try HARImporter.importHAR(Self.sample(), file: "s.har")
        XCTAssertNil(r.scenario.bodies)
        XCTAssertTrue(r.scenario.resources.allSatisfy { $0.body == nil })
        XCTAssertEqual(r.report.bodies.real, 0)
        XCTAssertEqual(r.report.bodies.notKept, 2)
        XCTAssertEqual(r.scenario.root?.bytes, 100)
    }

    func testInvalidBase64NamesFileEntryAndField() throws {
        let bad = #"{"size": 3, "encoding": "base64", "text": "not*base64!"}"#
        XCTAssertThrowsError(
            try HARImporter.importHAR(
                Self.sample(cssContent: bad), file: "bad.har", options: .init(bodiesDirectory: "b"))
        ) { error in
            let e = error as? BenchError
            XCTAssertEqual(e?.exitCode, .dataError)
            XCTAssertTrue(
                e?.message.hasPrefix("bad.har: log.entries[1].response.content.text: not valid base64") == true,
                "\(error)")
        }
        let unknown = #"{"size": 3, "encoding": "rot13", "text": "abc"}"#
        XCTAssertThrowsError(
            try HARImporter.importHAR(
                Self.sample(cssContent: unknown), file: "u.har", options: .init(bodiesDirectory: "b"))
        ) { error in
            XCTAssertTrue("\(error)".contains("u.har: log.entries[1].response.content.encoding: 'rot13'"), "\(error)")
        }
    }

    /// The sample's stylesheet was recorded gzip-encoded: these tests keep bodies decoded (`--decompress-bodies`).
    static func decoded(_ directory: String) -> HARImporter.Options {
        var o = HARImporter.Options(bodiesDirectory: directory)
        o.gzipAsRecorded = false
        return o
    }

    func testSizeMismatchIsKeptAsRecordedAndReported() throws {
        let css = #"{"size": 999, "text": "body{}"}"#
        let r = try HARImporter.importHAR(Self.sample(cssContent: css), file: "m.har", options: Self.decoded("b"))
        XCTAssertEqual(r.scenario.resources[1].bytes, 6)
        XCTAssertEqual(r.report.bodies.sizeMismatches.map(\.entry), [1])
        XCTAssertTrue(r.report.bodies.sizeMismatches[0].description.contains("content.size is 999"))
    }

    /// Writes `s` and its bodies into a fresh directory; returns the scenario's path.
    func write(_ r: HARImporter.Result, skipping: String? = nil) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nb-bodies-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("s.bodies"), withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        for (digest, bytes) in r.bodies where digest != skipping {
            try Data(bytes).write(to: dir.appendingPathComponent("s.bodies/\(digest)"))
        }
        let path = dir.appendingPathComponent("s.json").path
        try JSONFile.encode(r.scenario).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testLoadReadsBodiesAndRefusesAMissingFile() throws {
        let r = try HARImporter.importHAR(Self.sample(), file: "s.har", options: Self.decoded("s.bodies"))
        let loaded = try Scenario.load(from: try write(r))
        XCTAssertEqual(loaded.recordedBody(of: loaded.resources[1]), Self.binary)
        XCTAssertEqual(loaded.recordedBody(of: loaded.resources[0]), Array(Self.page.utf8))
        XCTAssertNil(loaded.recordedBody(of: loaded.resources[2]))
        XCTAssertEqual(loaded.recordedBodyCount, 2)

        let digest = SHA256.hex(Self.binary)
        let path = try write(r, skipping: digest)
        XCTAssertThrowsError(try Scenario.load(from: path)) { error in
            XCTAssertEqual((error as? BenchError)?.exitCode, .dataError)
            XCTAssertTrue("\(error)".contains("\(path): resources[1].body.sha256: body file "), "\(error)")
            XCTAssertTrue("\(error)".contains("s.bodies/\(digest) does not exist"), "\(error)")
        }
    }

    func testValidationOfBodyKeys() throws {
        var s = try HARImporter.importHAR(Self.sample(), file: "s.har", options: .init(bodiesDirectory: "d")).scenario
        s.bodies = nil
        s.resources[1].body?.sha256 = "ABC"
        XCTAssertThrowsError(try s.validate(file: "v.json")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("v.json: resources[1].body.sha256: 'ABC' is not 64 lower-case hex"), text)
            XCTAssertTrue(text.contains("v.json: bodies: missing: resources[0].body needs"), text)
        }
    }
}
