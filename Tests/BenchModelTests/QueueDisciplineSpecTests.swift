import Foundation
import XCTest
import BenchCore
@testable import BenchModel

final class QueueDisciplineSpecTests: XCTestCase {
    private func profile(_ queue: String, extra: String = "") throws -> Profile {
        let json = #"{"schemaVersion": 1, "name": "x", "rtt": 40, "down": "10Mbit", "up": "2Mbit", "queue": "#
            + queue + extra + "}"
        let p = try JSONFile.decode(Profile.self, from: Data(json.utf8), file: "p.json")
        try p.validate(file: "p.json")
        return p
    }

    func testObjectFormDecodesAndFillsLinuxDefaults() throws {
        let p = try profile(#"{"discipline": "fq_codel", "target": "4ms", "memoryLimit": "8MB"}"#)
        guard case .discipline(let d)? = p.queue else { return XCTFail("\(String(describing: p.queue))") }
        XCTAssertEqual(d.name, .fq_codel)
        XCTAssertEqual(d.target, .ms(4))
        XCTAssertEqual(d.memoryLimit, 8_000_000)
        XCTAssertNil(d.quantum)
        let full = d.withDefaults()
        XCTAssertEqual(full.target, .ms(4), "given values stay")
        XCTAssertEqual(full.quantum, 1514)
        XCTAssertEqual(full.flows, 1024)
        XCTAssertEqual(full.limit, .packets(10240))
        XCTAssertEqual(full.interval, .ms(100))
        XCTAssertEqual(full.ecn, true)
        XCTAssertEqual(full.dropBatch, 64)
        let pie = try XCTUnwrap({ () -> QueueDisciplineSpec? in
            if case .discipline(let d)? = try profile(#"{"discipline": "pie"}"#).queue { return d.withDefaults() }
            return nil
        }())
        XCTAssertEqual(pie.target, .ms(15))
        XCTAssertEqual(pie.tupdate, .ms(15))
        XCTAssertEqual(pie.alpha, 0.125)
        XCTAssertEqual(pie.beta, 1.25)
        XCTAssertEqual(pie.maxBurst, .ms(150))
        XCTAssertEqual(pie.limit, .packets(1000))
        XCTAssertEqual(pie.ecn, false)
    }

    func testStringFormsStillMeanDropTail() throws {
        XCTAssertEqual(try profile(#""bdp""#).queue, .bandwidthDelayProduct)
        XCTAssertEqual(try profile(#""25 packets""#).queue, .packets(25))
        XCTAssertEqual(try profile(#""64KB""#).queue, .bytes(64_000))
    }

    func testPerDirectionQueues() throws {
        let p = try profile(#""bdp""#, extra: #", "downQueue": {"discipline": "codel", "ecn": true}"#)
        XCTAssertEqual(p.queue(up: true), .bandwidthDelayProduct)
        guard case .discipline(let d)? = p.queue(up: false) else { return XCTFail() }
        XCTAssertEqual(d.name, .codel)
        XCTAssertEqual(d.ecn, true)
        XCTAssertEqual(p.queueSummary, "down codel ecn, up BDP")
        XCTAssertEqual(try profile(#""25 packets""#).queueSummary, "25 pkts")
    }

    func testResultsRecordTheParametersInForce() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nb-queue-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("q.json").path
        try Data(
            #"{"schemaVersion": 1, "name": "q", "rtt": 40, "down": "10Mbit", "up": "2Mbit", "#
                .appending(#""queue": {"discipline": "codel", "target": "3ms"}}"#).utf8
        ).write(to: URL(fileURLWithPath: path))
        let loaded = try Profile.load(from: path)
        let json = String(decoding: try JSONEncoder().encode(loaded), as: UTF8.self)
        for part in [#""discipline":"codel""#, #""target":"3ms""#, #""interval":"100ms""#, #""limit":"1000 packets""#,
            #""ecn":false"#]
        {
            XCTAssertTrue(json.contains(part), "\(part) in \(json)")
        }
        // And it reads back the same.
        XCTAssertEqual(try JSONDecoder().decode(Profile.self, from: Data(json.utf8)).queue, loaded.queue)
    }

    func testBadInputNamesFileKeyAndValue() {
        func message(_ q: String, extra: String = "") -> String { errorMessage { _ = try profile(q, extra: extra) } }
        assertContains(
            message(#"{"discipline": "red"}"#), "p.json: queue.discipline: 'red' is not a queue discipline",
            "fq_codel")
        assertContains(message(#"{"discipline": "codel", "tagret": "5ms"}"#), "p.json: queue.tagret: '5ms'",
            "not a parameter of codel")
        assertContains(message(#"{"discipline": "codel", "quantum": 300}"#), "p.json: queue.quantum:",
            "not a parameter of codel")
        assertContains(
            message(#"{"discipline": "codel", "target": "200ms", "interval": "100ms"}"#),
            "p.json: queue.target: 200 ms is above the interval 100 ms")
        assertContains(message(#"{"discipline": "fq_codel", "quantum": 0}"#), "p.json: queue.quantum: 0")
        assertContains(
            message(#"{"discipline": "droptail", "ecn": true}"#),
            "p.json: queue.ecn: true: droptail cannot mark CE")
        assertContains(
            message(#""bdp""#, extra: #", "upQueue": {"discipline": "drophead", "ecn": true}"#),
            "p.json: upQueue.ecn: true: drophead cannot mark CE")
        assertContains(message(#"{"discipline": "pie", "tupdate": "10us"}"#), "p.json: queue.tupdate:", "below 1 ms")
        assertContains(message(#"{"target": "5ms"}"#), "discipline")
        assertContains(message(#"{"discipline": "pie", "limit": "bdp"}"#), "p.json: queue.limit:")
    }
}
