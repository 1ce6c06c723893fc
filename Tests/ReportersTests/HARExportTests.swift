import Foundation
import XCTest
import BenchCore
import BenchModel
@testable import Reporters

/// `report --format har`: the HAR of a hand-built run, field by field, and back through `import-har`.
final class HARExportTests: XCTestCase {
    static let scenario = Scenario(
        name: "shop",
        origins: [.init(id: "main", host: "www.shop.test"), .init(id: "cdn", host: "cdn.shop.test")],
        resources: [
            .init(id: "doc", origin: "main", path: "/", bytes: 30_000, type: .document),
            .init(
                id: "css", origin: "main", path: "/a.css", bytes: 8_000, type: .stylesheet, parent: "doc",
                revealAfterBytes: 1_000, renderBlocking: true),
            .init(
                id: "app", origin: "cdn", path: "/app.js?v=3", bytes: 50_000, type: .script, parent: "doc",
                renderBlocking: true),
            .init(id: "img", origin: "cdn", path: "/i.webp", bytes: 70_000, type: .image, parent: "app"),
            .init(id: "api", origin: "main", path: "/api/cart", bytes: 1_200, type: .xhr, parent: "app"),
        ])

    /// A load over h2: the document's connection (TCP 10 ms, TLS 10 ms) carries the stylesheet; the
    /// CDN's connection is opened for the script and reused for the image.
    static func run() -> RunRecord {
        func req(_ id: String, _ origin: String, conn: Int, _ t: [Double], bytes: Int64, fresh: [Double]? = nil)
            -> RequestRecord
        {
            var r = RequestRecord(id: id, origin: origin, queued: t[0], bytes: bytes)
            r.connection = conn
            if let f = fresh { r.connectStart = f[0]; r.connectEnd = f[1]; r.tlsEnd = f[2] }
            r.requestSent = t[1]; r.firstByte = t[2]; r.lastByte = t[3]
            r.status = 200; r.protocol = "h2"
            return r
        }
        var c0 = ConnectionRecord(id: 0, origin: "main", transport: .h2, connectStart: 0)
        c0.remoteAddress = "198.18.0.1:8443"
        var c1 = ConnectionRecord(id: 1, origin: "cdn", transport: .h2, connectStart: 62)
        c1.remoteAddress = "198.18.0.2:8443"
        var m = RunMetrics()
        m.pltMs = 250
        var run = RunRecord(
            scenario: "shop", profile: "4G", transport: .h2, index: 3, status: .ok, metrics: m,
            requests: [
                req("doc", "main", conn: 0, [0, 20, 50, 80], bytes: 30_000, fresh: [0, 10, 20]),
                req("css", "main", conn: 0, [55, 55, 90, 100], bytes: 8_000),
                req("app", "cdn", conn: 1, [60, 84, 120, 160], bytes: 50_000, fresh: [62, 72, 82]),
                req("img", "cdn", conn: 1, [161, 161, 200, 250], bytes: 70_000),
                req("api", "main", conn: 0, [161, 162, 190, 195], bytes: 1_200),
            ],
            connections: [c0, c1])
        run.startedAt = "2024-06-01T10:00:00Z"
        return run
    }

    static var results: ResultsFile {
        ResultsFile(
            netbenchVersion: "0.1.0", startedAt: "2024-06-01T09:59:00Z",
            host: HostInfo(kernel: "Linux", cpuCount: 2),
            suite: SuiteInfo(
                name: "s", scenarios: ["shop"], profiles: [], transports: [.h2], runs: 1, warmupRuns: 0, seed: 1,
                baselineTransport: nil, client: "builtin"),
            runs: [run()])
    }

    func object(_ data: Data) throws -> [String: Any] {
        let root = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try XCTUnwrap(root["log"] as? [String: Any])
    }

    /// `_priority` is the one the run recorded (a boosted image's Medium, a browser's later change)
    /// where it has one, else the scenario's model.
    func testPriorityIsTheRecordedOne() throws {
        var results = Self.results
        results.runs[0].requests[3].priority = "low"
        results.runs[0].requests[2].priority = "lowest"
        results.runs[0].requests[2].priorityChanged = "medium"
        let entries = try XCTUnwrap(
            try object(HARExport.files(results, scenarios: [Self.scenario])[0].data)["entries"] as? [[String: Any]])
        XCTAssertEqual(entries[3]["_priority"] as? String, "Medium", "the recorded low, not the model's lowest")
        XCTAssertEqual(entries[2]["_priority"] as? String, "High", "the last change")
        XCTAssertEqual(entries[0]["_priority"] as? String, "VeryHigh", "none recorded: the model's")
    }

    func testFieldsOfAnExportedRun() throws {
        let files = try HARExport.files(Self.results, scenarios: [Self.scenario])
        XCTAssertEqual(files.map(\.fileName), ["har/shop-4G-h2-3.har"])
        let log = try object(files[0].data)
        XCTAssertEqual(log["version"] as? String, "1.2")
        XCTAssertEqual((log["creator"] as? [String: Any])?["name"] as? String, "netbench")
        let page = try XCTUnwrap((log["pages"] as? [[String: Any]])?.first)
        XCTAssertEqual(page["startedDateTime"] as? String, "2024-06-01T10:00:00.000Z")
        XCTAssertEqual((page["pageTimings"] as? [String: Any])?["onLoad"] as? Double, 250)
        let entries = try XCTUnwrap(log["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 5)

        let doc = entries[0]
        XCTAssertEqual((doc["request"] as? [String: Any])?["url"] as? String, "https://www.shop.test/")
        XCTAssertEqual((doc["request"] as? [String: Any])?["httpVersion"] as? String, "HTTP/2")
        XCTAssertEqual(doc["connection"] as? String, "0")
        XCTAssertEqual(doc["serverIPAddress"] as? String, "198.18.0.1")
        XCTAssertEqual(doc["_priority"] as? String, "VeryHigh")
        XCTAssertEqual((doc["_initiator"] as? [String: Any])?["type"] as? String, "other")
        XCTAssertEqual(
            doc["timings"] as? [String: Double],
            ["blocked": 0, "dns": -1, "connect": 20, "ssl": 10, "send": 0, "wait": 30, "receive": 30])
        XCTAssertEqual(doc["time"] as? Double, 80)

        let app = entries[2]
        XCTAssertEqual((app["request"] as? [String: Any])?["url"] as? String, "https://cdn.shop.test/app.js?v=3")
        XCTAssertEqual(app["startedDateTime"] as? String, "2024-06-01T10:00:00.060Z")
        XCTAssertEqual(app["_priority"] as? String, "High")  // a parser-blocking script: medium, DevTools' High
        XCTAssertEqual(
            app["timings"] as? [String: Double],
            ["blocked": 2, "dns": -1, "connect": 20, "ssl": 10, "send": 2, "wait": 36, "receive": 40])
        XCTAssertEqual(app["time"] as? Double, 100)  // queued 60 → last byte 160
        XCTAssertEqual(app["serverIPAddress"] as? String, "198.18.0.2")

        let img = entries[3]
        XCTAssertEqual(img["_priority"] as? String, "Low")
        XCTAssertEqual(img["_resourceType"] as? String, "image")
        XCTAssertEqual(
            img["_initiator"] as? [String: String], ["type": "script", "url": "https://cdn.shop.test/app.js?v=3"])
        XCTAssertEqual((img["timings"] as? [String: Double])?["connect"], -1)  // a reused connection
        let response = try XCTUnwrap(img["response"] as? [String: Any])
        XCTAssertEqual(response["bodySize"] as? Int, 70_000)
        XCTAssertEqual((response["content"] as? [String: Any])?["mimeType"] as? String, "image/webp")
        XCTAssertEqual(entries[4]["_resourceType"] as? String, "fetch")
    }

    func testImportHARRebuildsTheScenarioShape() throws {
        let data = try HARExport.files(Self.results, scenarios: [Self.scenario])[0].data
        let back = try HARImporter.importHAR(data, file: "shop-4G-h2-3.har").scenario
        func shape(_ s: Scenario) -> [String] {
            let byID = Dictionary(uniqueKeysWithValues: s.resources.map { ($0.id, $0) })
            return s.resources.map { r in
                let host = s.origin(id: r.origin)!.host
                let parent = r.parent.flatMap { byID[$0] }.map { s.origin(id: $0.origin)!.host + $0.path } ?? "-"
                return "\(host)\(r.path) \(r.bytes) \(r.type.rawValue) ← \(parent)"
            }.sorted()
        }
        XCTAssertEqual(shape(back), shape(Self.scenario))
        XCTAssertEqual(back.resources.first { $0.path == "/app.js?v=3" }?.renderBlocking, true)
    }

    func testRunsOfAScenarioNotGivenAreADataError() throws {
        XCTAssertThrowsError(try HARExport.files(Self.results, scenarios: [])) { error in
            XCTAssertEqual((error as? BenchError)?.exitCode, .dataError)
            XCTAssertTrue("\(error)".contains("scenario 'shop'"), "\(error)")
        }
    }

    /// The terminal summary counts the requests the replay server answered 404.
    func testSummaryCountsRequestsNotInTheScenario() {
        var a = Self.run(), b = Self.run()
        a.server = ServerRecord()
        a.server?.notFound = ["www.shop.test /favicon.ico", "www.shop.test /x.js?v=2"]
        b.server = ServerRecord()
        b.server?.notFound = ["www.shop.test /favicon.ico"]
        XCTAssertEqual(
            TextSummary.notFoundSentence([a, b, Self.run()]),
            "not in the scenario (404): 3 request(s) in 2 run(s), e.g. www.shop.test /favicon.ico ×2, "
                + "www.shop.test /x.js?v=2 ×1 (runs[].server.notFound)")
        XCTAssertNil(TextSummary.notFoundSentence([Self.run()]))
    }
}
