import Foundation
import XCTest
import TestSupport
import BenchCore
import BenchModel
import SystemIO
import Transport
import Replay
@testable import Runner
@testable import Testbed
@testable import Browsers
@testable import NetbenchCommands

/// Compression replayed as recorded, by default: nginx with gzip on serves the documentation site (HTML,
/// jinja.css pulling pocoo.css and basic.css in by @import from another origin, scripts); Chromium
/// records it (bodies decoded), the import encodes each gzip body again, and the stored bytes are the
/// bytes nginx sends for that file (curl, Accept-Encoding: gzip); the replay serves them encoded, with
/// `content-encoding: gzip`, and Chromium's loads over h1, h2 and h3 pass every byte check, the
/// @imported stylesheets (no Resource Timing entry: they come from a cross-origin stylesheet) included.
final class RecordCompressionTests: XCTestCase {
    func testGzipBodiesAreStoredAndReplayedAsNginxSentThem() throws {
        if ChromiumBrowser.locate() == nil { try missingPrerequisite("Chromium: " + ChromiumBrowser.installHint) }
        try require(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl (scripts/bootstrap.sh --test)")
        let site = try LocalDocSite(gzip: true)
        defer { site.stop() }
        let dir = NSTemporaryDirectory() + "netbench-gzip-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var settings = ChromiumRecorder.Settings()
        settings.resolve = LocalDocSite.hosts.map { ($0, "127.0.0.1") }
        settings.insecure = true
        let recording = try ChromiumRecorder.record(
            url: site.url("index.html"), executable: ChromiumBrowser.locate()!, settings: settings)
        let options = HARImporter.Options(name: "site", bodiesDirectory: "bodies")
        let result = try HARImporter.importHAR(
            recording.har, file: dir + "/site.har", options: options)
        XCTAssertGreaterThan(result.report.bodies.reencoded, 3)
        try ImportHARCommand.writeBodies(result.bodies, to: "bodies", besideScenario: dir + "/site.json")
        try AtomicFile.write(try JSONFile.encode(result.scenario), to: dir + "/site.json")
        let scenario = try Scenario.load(from: dir + "/site.json")
        let gzipped = scenario.resources.filter { $0.body?.contentEncoding == "gzip" }
        XCTAssertTrue(gzipped.contains { $0.type == .stylesheet }, "\(gzipped.map(\.path))")
        XCTAssertTrue(gzipped.contains { $0.type == .script }, "\(gzipped.map(\.path))")
        XCTAssertTrue(scenario.resources.contains { $0.type == .image && $0.body?.contentEncoding == nil })
        var compared = 0
        for r in gzipped where r.type != .document {
            let origin = scenario.origin(id: r.origin)!.host
            let wire = try Self.curl(
                ["-sk", "--resolve", "\(origin):\(site.port):127.0.0.1", "-H", "Accept-Encoding: gzip",
                 "https://\(origin):\(site.port)\(r.path)"])
            XCTAssertEqual(SHA256.hex(wire), r.body?.sha256, "\(r.path): nginx's gzip bytes")
            XCTAssertEqual(Int64(wire.count), r.bytes, r.path)
            compared += 1
        }
        XCTAssertGreaterThan(compared, 3)
        let imported = gzipped.filter { ["/_static/pocoo.css", "/_static/basic.css"].contains($0.path) }
        XCTAssertEqual(imported.count, 2, "the @imported stylesheets are stored gzip-encoded")
        // The replay server sends the stored bytes with the recorded header, to browsers as to netbench's client.
        let catalog = ReplayCatalog(scenario: scenario, renderingPagesFor: 443)
        for r in gzipped {
            let host = scenario.origin(id: r.origin)!.host
            let answer = catalog.respond(
                to: ServerRequest(
                    method: "GET", path: r.path, authority: host, headers: [("user-agent", "test")],
                    httpProtocol: "h2"))
            XCTAssertEqual(answer.status, 200, r.path)
            XCTAssertTrue(answer.headers.contains { $0.0 == "content-encoding" && $0.1 == "gzip" }, r.path)
            XCTAssertEqual(answer.prefix, scenario.recordedBody(of: r), r.path)
        }

        var request = RunRequest(
            suiteName: "gzip", scenarios: [(dir + "/site.json", scenario)], profiles: [.loopback],
            transports: [.h1, .h2, .h3], runs: 1, outputDirectory: dir + "/out")
        request.pageLoads.timeout = .seconds(60)
        request.pageLoads.clients = [.chromium]
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        XCTAssertEqual(Set(results.runs.map(\.transport)), [.h1, .h2, .h3])
        for run in results.runs {
            XCTAssertEqual(run.status, .ok, "\(run.transport): " + (run.error ?? ""))
            XCTAssertEqual(run.server?.notFound ?? [], [], "\(run.transport)")
            for r in gzipped {
                XCTAssertEqual(run.requests.first { $0.id == r.id }?.bytes, r.bytes, "\(run.transport) \(r.path)")
            }
        }
    }

    /// curl's standard output (the body as sent: no --compressed).
    static func curl(_ arguments: [String]) throws -> [UInt8] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "curl \(arguments)")
        return [UInt8](data)
    }
}
