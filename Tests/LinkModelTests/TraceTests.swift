import XCTest
import BenchCore
@testable import LinkModel
import TestSupport

final class TraceTests: XCTestCase {
    private func queue(_ text: String, limit: QueueLimit = .packets(10_000)) throws -> TraceRateQueue {
        TraceRateQueue(trace: try MahimahiTrace.parse(text: text), limit: limit, start: origin)
    }

    private func departures(_ q: TraceRateQueue) -> [Instant] {
        var out: [Instant] = []
        while let p = q.dequeue(now: at(ms: 1e6)) { out.append(p.departure) }
        return out
    }

    func testSingleLineTraceIsTwelveMegabits() throws {
        let trace = try MahimahiTrace.parse(text: "1\n")
        XCTAssertEqual(trace.meanBitsPerSecond, 12e6)
        let q = try queue("1\n")
        for i in 0..<5 { XCTAssertTrue(q.enqueue(packet(i, arrival: origin), now: origin)) }
        XCTAssertEqual(departures(q), [1, 2, 3, 4, 5].map { at(ms: $0) })
    }

    func testRepeatedLinesAndWrapAround() throws {
        // Opportunities at 2, 2, 5, then (period 5) 7, 7, 10, 12, 12, 15 …
        let q = try queue("2\n2\n5\n")
        for i in 0..<9 { XCTAssertTrue(q.enqueue(packet(i, arrival: origin), now: origin)) }
        XCTAssertEqual(departures(q), [2, 2, 5, 7, 7, 10, 12, 12, 15].map { at(ms: $0) })
    }

    func testLeadingZeroCoincidesWithPeriodOnWrap() throws {
        // "0, 3": opportunities at 0, 3, 3 (=3+0), 6, 6, 9 …
        let q = try queue("0\n3\n")
        for i in 0..<6 { XCTAssertTrue(q.enqueue(packet(i, arrival: origin), now: origin)) }
        XCTAssertEqual(departures(q), [0, 3, 3, 6, 6, 9].map { at(ms: $0) })
    }

    func testUnusedOpportunitiesAreWasted() throws {
        let q = try queue("1\n")
        // Idle until 5.5 ms: the opportunities at 1…5 ms are gone; the next is at 6 ms.
        XCTAssertTrue(q.enqueue(packet(0, arrival: at(ms: 5.5)), now: at(ms: 5.5)))
        // Arriving exactly at an opportunity's instant may use it.
        XCTAssertEqual(q.dequeue(now: at(ms: 100))?.departure, at(ms: 6))
        XCTAssertTrue(q.enqueue(packet(1, arrival: at(ms: 9)), now: at(ms: 9)))
        XCTAssertEqual(q.dequeue(now: at(ms: 100))?.departure, at(ms: 9))
    }

    func testPerByteAccounting() throws {
        // Three 500-byte packets share one opportunity.
        let q = try queue("1\n")
        for i in 0..<3 { XCTAssertTrue(q.enqueue(packet(i, size: 500, arrival: origin), now: origin)) }
        // A 1,000-byte packet: nothing left at 1 ms, so it takes the 2 ms opportunity, leaving 500…
        XCTAssertTrue(q.enqueue(packet(3, size: 1000, arrival: origin), now: origin))
        // …that a 1,200-byte packet takes, finishing with 700 bytes of the 3 ms opportunity.
        XCTAssertTrue(q.enqueue(packet(4, size: 1200, arrival: origin), now: origin))
        XCTAssertTrue(q.enqueue(packet(5, size: 800, arrival: origin), now: origin))
        XCTAssertTrue(q.enqueue(packet(6, size: 100, arrival: origin), now: origin))
        XCTAssertEqual(departures(q), [1, 1, 1, 2, 3, 3, 4].map { at(ms: $0) })
    }

    func testLeftoverOfAnOpportunityIsWastedWhenTheQueueEmpties() throws {
        let q = try queue("1\n")
        XCTAssertTrue(q.enqueue(packet(0, size: 100, arrival: origin), now: origin))
        // Arrives after the 1 ms opportunity fired with 1,400 bytes unused: those are gone.
        XCTAssertTrue(q.enqueue(packet(1, size: 100, arrival: at(ms: 1.1)), now: at(ms: 1.1)))
        XCTAssertEqual(departures(q), [at(ms: 1), at(ms: 2)])
    }

    func testSaturatedTraceLinkDeliversTheTraceMeanRate() throws {
        let text = try String(contentsOfFile: packageRoot + "/Scenarios/traces/Verizon-LTE-short.down", encoding: .utf8)
        let trace = try MahimahiTrace.parse(text: text)
        let link = Link(
            configuration: LinkConfiguration(rate: .trace(trace), queueLimit: .packets(100)), start: origin, seed: 1)
        // Keep the queue full for two full periods (one wrap) and count what leaves.
        let horizon = at(ns: 2 * trace.periodMs * 1_000_000)
        var delivered = 0, now = origin, handle = 0
        while now < horizon {
            while link.enqueue(packet(handle, arrival: now), now: now) == .accepted { handle += 1 }
            while link.dequeue(now: now) != nil { delivered += 1 }
            now = now + 1_000_000
        }
        let expected = 2 * trace.offsetsMs.count
        XCTAssertEqual(Double(delivered), Double(expected), accuracy: 101)
    }

    func testShippedTracesParseWithPlausibleRates() throws {
        // Mean rates from the traces' README (Mbit/s).
        let expected: [String: Double] = [
            "Verizon-LTE-short.down": 5.0, "Verizon-LTE-short.up": 6.0,
            "ATT-LTE-driving-2016.down": 4.6, "ATT-LTE-driving-2016.up": 1.9,
            "TMobile-UMTS-driving.down": 2.0, "TMobile-UMTS-driving.up": 0.9,
        ]
        for (name, mbit) in expected {
            let text = try String(contentsOfFile: packageRoot + "/Scenarios/traces/" + name, encoding: .utf8)
            let trace = try MahimahiTrace.parse(text: text)
            XCTAssertEqual(trace.meanBitsPerSecond / 1e6, mbit, accuracy: mbit * 0.15, name)
            XCTAssertGreaterThan(trace.periodMs, 100_000, name)
        }
    }

    func testParseErrorsNameLineAndValue() {
        func error(_ text: String) -> TraceError? {
            do { _ = try MahimahiTrace.parse(text: text); return nil } catch { return error as? TraceError }
        }
        XCTAssertEqual(error("1\n2\nabc\n")?.line, 3)
        XCTAssertEqual(error("1\n2\nabc\n")?.value, "abc")
        XCTAssertEqual(error("5\n4\n")?.line, 2)
        XCTAssertEqual(error("5\n4\n")?.value, "4")
        XCTAssertEqual(error("-3\n")?.value, "-3")
        XCTAssertEqual(error("1.5\n")?.line, 1)
        XCTAssertEqual(error("99999999999\n")?.line, 1)
        XCTAssertNotNil(error(""))
        XCTAssertNotNil(error("0\n0\n"))
        XCTAssertTrue("\(error("1\nx\n")!)".hasPrefix("trace line 2: \"x\""))
        // Blank lines, CRLF and trailing spaces are tolerated.
        XCTAssertEqual(try MahimahiTrace.parse(text: "0\r\n 3 \r\n\r\n").offsetsMs, [0, 3])
    }
}
