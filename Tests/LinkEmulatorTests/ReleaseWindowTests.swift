import XCTest
import BenchCore
import LinkModel
@testable import LinkEmulator

/// The packet loop's batching window (`ReleaseWindow`, `LinkReleaseGate`): on a virtual clock a
/// gigabit link's packets leave in fewer passes, each within the window of its release, the wait
/// counted in its lateness, and the link model's decisions (release times, losses, AQM marks,
/// counters) are those of a loop that releases every packet on time; through real namespaces the
/// loop batches and counts every segment once.
final class ReleaseWindowTests: XCTestCase {
    private let t0 = Instant(nanoseconds: 1_000_000_000)
    private let us: Nanoseconds = 1_000

    func testWindowOnlyWhileALinkStreams() {
        let w = ReleaseWindow(window: 100 * us)
        let next = t0 + 1_000 * us
        // Streaming (12 µs spacing at 1 Gbit/s, a full delay line behind): held a whole window.
        XCTAssertEqual(w.releaseAt(next: next, previous: next + -12 * us, inFlight: 400), next + 100 * us)
        // A burst's tail: no longer than the packets still in flight need (2 more × 12 µs).
        XCTAssertEqual(w.releaseAt(next: next, previous: next + -12 * us, inFlight: 3), next + 24 * us)
        // A lone packet, the first after a gap, the first ever: at its release.
        XCTAssertEqual(w.releaseAt(next: next, previous: next + -12 * us, inFlight: 1), next)
        XCTAssertEqual(w.releaseAt(next: next, previous: next + -51 * us, inFlight: 400), next)
        XCTAssertEqual(w.releaseAt(next: next, previous: nil, inFlight: 400), next)
        XCTAssertEqual(w.releaseAt(next: next, previous: next, inFlight: 400), next)
        // No window.
        XCTAssertEqual(ReleaseWindow(window: 0).releaseAt(next: next, previous: next + -1 * us, inFlight: 400), next)
        // Only links of 500 Mbit/s or more.
        XCTAssertTrue(ReleaseWindow.applies(to: LinkConfiguration(rate: .constant(bitsPerSecond: 1e9))))
        XCTAssertTrue(ReleaseWindow.applies(to: LinkConfiguration(rate: .constant(bitsPerSecond: 500e6))))
        XCTAssertFalse(ReleaseWindow.applies(to: LinkConfiguration(rate: .constant(bitsPerSecond: 400e6))))
        XCTAssertFalse(ReleaseWindow.applies(to: LinkConfiguration(rate: .unlimited)))
    }

    func testAFreeReleaseWaitsForAWindowEndingSoonAfterIt() {
        let w = ReleaseWindow(window: 100 * us)
        // An ACK due 60 µs before the data link's window ends leaves in that pass.
        XCTAssertEqual(w.nextPass(held: t0 + 160 * us, free: t0 + 100 * us), t0 + 160 * us)
        XCTAssertEqual(w.nextPass(held: t0 + 200 * us, free: t0 + 100 * us), t0 + 200 * us)
        // Not when the window ends later than that, or before the free release.
        XCTAssertEqual(w.nextPass(held: t0 + 201 * us, free: t0 + 100 * us), t0 + 100 * us)
        XCTAssertEqual(w.nextPass(held: t0 + 90 * us, free: t0 + 100 * us), t0 + 90 * us)
        XCTAssertEqual(w.nextPass(held: nil, free: t0 + 100 * us), t0 + 100 * us)
        XCTAssertEqual(w.nextPass(held: t0 + 100 * us, free: nil), t0 + 100 * us)
        XCTAssertNil(w.nextPass(held: nil, free: nil))
    }

    /// What a virtual loop released: each packet's arrival order, release time and CE mark, the
    /// lateness it recorded (pass time − release), the passes that released, the link's counters.
    private struct Outcome {
        var released: [(sequence: Int64, release: Instant, ce: Bool)] = []
        var lateness: [Nanoseconds] = []
        /// The lateness of the packets the window did not hold (`LinkReleaseGate.unheld`).
        var unheld: [Nanoseconds] = []
        var passes = 0
        var counters = LinkCounters()
    }

    /// Drives one 1 Gbit/s link (5 ms delay, 0.5% loss, CoDel marking ECN) with a sender offering
    /// 1.056 Gbit/s in 44-segment TSO bursts for 200 ms, then one lone packet 20 ms later, waking as
    /// the loop does: at the next arrival or the gate's release time, whichever is first.
    private func drive(window: Nanoseconds) -> Outcome {
        var codel = CoDelParameters()
        codel.ecn = true
        let link = Link(
            configuration: LinkConfiguration(
                delay: 5_000 * us, rate: .constant(bitsPerSecond: 1e9), loss: .bernoulli(0.005),
                discipline: .codel(codel)),
            start: t0, seed: 7)
        var arrivals: [(at: Instant, count: Int)] = (0..<400).map { (t0 + Nanoseconds($0) * 500 * us, 44) }
        arrivals.append((t0 + 220_000 * us, 1))
        var gate = LinkReleaseGate(window: ReleaseWindow(window: window))
        var out = Outcome(), now = t0, next = 0, handle: Int32 = 0, wakes = 0
        while true {
            wakes += 1
            guard wakes < 1_000_000 else {
                XCTFail("the virtual loop does not end")
                break
            }
            let release = gate.releaseAt(link, now: now)
            let arrival = next < arrivals.count ? arrivals[next].at : nil
            guard let wake = [release, arrival].compactMap({ $0 }).min() else { break }
            now = max(now, wake)
            if let a = arrival, a <= now {
                for _ in 0..<arrivals[next].count {
                    _ = link.enqueue(Packet(handle: handle, size: 1_500, arrival: now, flowHash: 1, ecn: 2), now: now)
                    handle += 1
                }
                next += 1
            }
            if let plan = gate.plan(link, now: now), plan.at <= now {
                out.passes += 1
                while let p = link.dequeue(now: now) {
                    out.released.append((p.sequence, p.release, p.ceMarked))
                    out.lateness.append(now.since(p.release))
                    if gate.unheld(p, next: link.nextWakeup(now: now), heldPass: plan.held) {
                        out.unheld.append(now.since(p.release))
                    }
                    gate.released(p)
                }
            }
            while link.takeDiscarded() != nil {}
        }
        out.counters = link.counters
        return out
    }

    func testWindowBatchesWithinItsLengthAndLeavesTheModelAlone() {
        let window = 100 * us
        let plain = drive(window: 0), batched = drive(window: window)
        // The link model decided the same: the same packets, release times and marks, the same counters.
        XCTAssertEqual(batched.released.map { $0.sequence }, plain.released.map { $0.sequence })
        XCTAssertEqual(batched.released.map { $0.release }, plain.released.map { $0.release })
        XCTAssertEqual(batched.released.map { $0.ce }, plain.released.map { $0.ce })
        XCTAssertEqual(batched.counters, plain.counters)
        XCTAssertGreaterThan(plain.counters.droppedByLoss.packets, 0)
        XCTAssertGreaterThan(plain.counters.markedCE.packets, 0, "CoDel marked under the 5.6% overload")
        XCTAssertEqual(plain.counters.forwarded.packets, Int64(plain.released.count))
        // Without a window every packet leaves at its release, one pass per release time.
        XCTAssertEqual(plain.lateness.max(), 0)
        XCTAssertEqual(plain.passes, Set(plain.released.map { $0.release }).count)
        // With one: at most a window late, the wait recorded as lateness, far fewer passes.
        XCTAssertEqual(batched.lateness.max(), window, "the first packet of a batch waited the whole window")
        XCTAssertGreaterThanOrEqual(batched.lateness.min() ?? -1, 0)
        XCTAssertLessThan(batched.passes * 6, batched.released.count, "\(batched.passes) passes")
        // The burst's last packet and the lone one after the gap were not held.
        XCTAssertEqual(batched.lateness.suffix(2), [0, 0])
        // Without a window no packet is held; with one, the packets not held (a crossing's last)
        // left on time though the held ones waited: the lateness a run's bound takes.
        XCTAssertEqual(plain.unheld.count, plain.released.count)
        XCTAssertEqual(plain.unheld.max(), 0)
        XCTAssertGreaterThanOrEqual(batched.unheld.count, 2)
        XCTAssertLessThan(batched.unheld.count * 20, batched.released.count, "\(batched.unheld.count) not held")
        XCTAssertEqual(batched.unheld.suffix(2), [0, 0])
        XCTAssertGreaterThan(percentile(batched.lateness, 0.5), 0, "the held packets waited")
        XCTAssertEqual(percentile(batched.unheld, 0.5), 0)
    }

    private func percentile(_ values: [Nanoseconds], _ q: Double) -> Nanoseconds {
        let sorted = values.sorted()
        return sorted.isEmpty ? -1 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]
    }

    /// Through real namespaces at 1 Gbit/s with offload and the default window: the loop released
    /// in batches, every segment counted once, nothing flagged; a 400 Mbit/s link gets no window.
    func testGigabitLinkReleasesInBatches() throws {
        try requireEmulationPrivileges()
        let options = EmulatedNetwork.Options()
        XCTAssertEqual(options.releaseWindow, ReleaseWindow.defaultWindow, "on by default")
        let network = try EmulatedNetwork.create(
            paths: [.symmetric(name: "fibre", roundTrip: .milliseconds(10), rate: .constant(bitsPerSecond: 1e9))],
            options: options)
        defer { network.teardown() }
        try network.start()
        let g = try Calibration.measureGoodput(on: network, duration: .seconds(2), warmup: .seconds(1))
        let report = try network.stop()
        XCTAssertEqual(report.releaseWindow, ReleaseWindow.defaultWindow)
        XCTAssertEqual(report.flagReasons, [])
        XCTAssertGreaterThan(g.bitsPerSecond, 100e6, "goodput \(g.bitsPerSecond) bit/s")
        let down = report.paths[0].downlink, up = report.paths[0].uplink
        XCTAssertEqual(report.releasedPackets, down.forwarded.packets + up.forwarded.packets)
        XCTAssertLessThan(
            report.releasePasses * 2, report.releasedPackets,
            "\(report.releasePasses) passes for \(report.releasedPackets) packets")
        XCTAssertLessThan(report.offloadWrites * 2, report.releasedPackets)
        // Held packets waited for their window's end: counted apart from the loop's wake-ups, whose
        // lateness (the same for held and unheld packets of a pass) can outweigh the hold in a debug build.
        XCTAssertGreaterThan(
            report.heldPackets * 4, report.releasedPackets, "\(report.heldPackets) of \(report.releasedPackets) held")
        let meanHold = report.heldWait / max(1, report.heldPackets)
        XCTAssertGreaterThan(meanHold, 0, "held packets waited")
        XCTAssertLessThanOrEqual(meanHold, ReleaseWindow.defaultWindow, "a hold ends with its window")
        XCTAssertNotNil(report.promptLatenessP50, "the connection's handshake went before the transfer streamed")
        // The loop slept between its passes, fewer times than it released packets.
        let sleeps = try XCTUnwrap(report.loopSleeps, "the loop's sleeps are counted")
        XCTAssertGreaterThan(sleeps, 0)
        XCTAssertLessThan(sleeps, report.releasedPackets, "\(sleeps) sleeps for \(report.releasedPackets) packets")
    }

    func testNoWindowBelowItsRate() throws {
        try requireEmulationPrivileges()
        let network = try EmulatedNetwork.create(paths: [
            .symmetric(name: "cable", roundTrip: .milliseconds(10), rate: .constant(bitsPerSecond: 400e6))
        ])
        defer { network.teardown() }
        try network.start()
        _ = try Calibration.measureGoodput(on: network, duration: .seconds(1), warmup: .milliseconds(500))
        let report = try network.stop()
        XCTAssertEqual(report.releaseWindow, 0, "no link reaches 500 Mbit/s")
        XCTAssertEqual(report.unheldLatenessP50, report.latenessP50)
        XCTAssertEqual(report.unheldLatenessP99, report.latenessP99)
        XCTAssertEqual(report.heldPackets, 0)
        XCTAssertEqual(report.heldWait, 0)
    }
}
