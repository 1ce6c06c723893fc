import Foundation
import XCTest
import BenchCore
import LinkModel
import LinkEmulator
import TestSupport

/// CE marking through real namespaces: ping's ECT(0) echo requests overload a CoDel link with ECN.
/// The server's kernel verifies every IPv4 header checksum and silently drops a packet whose
/// checksum is wrong, so an echo reply for every marked request proves the emulator's rewrite.
final class ECNMarkingTests: XCTestCase {
    private func pingThroughCoDel(tos: Int) throws -> (report: EmulatorReport, received: Int) {
        try requireEmulationPrivileges()
        try require(FileManager.default.isExecutableFile(atPath: "/usr/bin/ping"), "needs ping (iputils-ping)")
        var codel = CoDelParameters()
        codel.ecn = true
        // 5 Mbit/s against a preload of 200 1,228-byte requests, then one a millisecond (~9.8
        // Mbit/s): a queue of a few hundred milliseconds builds.
        let link = LinkConfiguration(
            delay: .milliseconds(5), rate: .constant(bitsPerSecond: 5e6), discipline: .codel(codel))
        let network = try EmulatedNetwork.create(paths: [PathConfiguration(name: "wifi", uplink: link, downlink: link)])
        defer { network.teardown() }
        try network.start()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = [
            "netns", "exec", network.clientNamespace, "/usr/bin/ping", "-n", "-q", "-Q", "\(tos)", "-l", "200",
            "-i", "0.001", "-s", "1200", "-c", "600", "-W", "3",
            Endpoint(address: network.serverAddress, port: 0).addressString,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let report = try network.stop()
        // "600 packets transmitted, 598 received, …"
        let summary = try XCTUnwrap(out.split(separator: "\n").first { $0.contains("transmitted") }, out)
        let received = try XCTUnwrap(
            summary.split(separator: ",").first { $0.contains("received") }?
                .split(separator: " ").first.flatMap { Int($0) }, String(summary))
        return (report, received)
    }

    func testMarkedRequestsArriveWithAValidChecksum() throws {
        let (report, received) = try pingThroughCoDel(tos: 0b10)
        let up = report.paths[0].uplink
        print("ECT(0): \(up.markedCE.packets) marked, \(up.droppedByQueue.packets) dropped, \(received) replies")
        XCTAssertGreaterThan(up.markedCE.packets, 5, "CoDel marked the overloading ECT(0) requests")
        XCTAssertEqual(up.droppedByQueue.packets, 0, "ECT packets are marked, not dropped")
        // Every request the link forwarded, marked ones included, was answered.
        XCTAssertEqual(Int64(received), up.forwarded.packets)
        XCTAssertEqual(report.paths[0].downlink.droppedByQueue.packets, 0)
    }

    func testNotECTRequestsAreDropped() throws {
        let (report, received) = try pingThroughCoDel(tos: 0)
        let up = report.paths[0].uplink
        print("Not-ECT: \(up.markedCE.packets) marked, \(up.droppedByQueue.packets) dropped, \(received) replies")
        XCTAssertEqual(up.markedCE.packets, 0)
        XCTAssertGreaterThan(up.droppedByQueue.packets, 5)
        XCTAssertEqual(Int64(received), up.forwarded.packets)
    }
}
