import Foundation
import XCTest
import TestSupport
import BenchCore
import BenchModel
import Runner
@testable import Testbed
import NetbenchCommands

/// `run --pcap`: an h2 and an h3 load of a small page through a lossy emulated link, then every
/// pcap file read back: its headers, its records, and its packet counts against the emulator's.
final class PcapCaptureTests: XCTestCase {
    override func setUpWithError() throws {
        try requireRoot("needs root (network namespaces and TUN devices)")
    }

    func testEveryPacketIntoAndOutOfTheLinkIsCaptured() throws {
        let dir = NSTemporaryDirectory() + "netbench-pcap-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/pcap", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let profilePath = dir + "/lossy.json"
        let profile =
            #"{"schemaVersion": 1, "name": "pcap lossy", "down": "20Mbit", "up": "5Mbit", "rtt": "20ms", "#
            + #""loss": "2%", "queue": "bdp"}"#
        try profile.write(toFile: profilePath, atomically: true, encoding: .utf8)
        let library = Library(root: packageRoot + "/Scenarios")
        let path = packageRoot + "/Scenarios/pages/small-page.json"
        var request = RunRequest(
            suiteName: "pcap-test", scenarios: [(path, try Scenario.load(from: path))],
            profiles: [try library.profile(profilePath)], transports: [.h2, .h3], runs: 2, warmupRuns: 1,
            outputDirectory: dir + "/out")
        request.library = library
        request.pageLoads.timeout = .seconds(60)
        request.diagnostics.pcapDirectory = dir + "/pcap"
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        XCTAssertEqual(results.runs.count, 6, "a warm-up and two runs per transport")
        var allFiles: [String] = []
        var lossDrops: Int64 = 0
        for run in results.runs {
            XCTAssertEqual(run.status, .ok, "\(run.transport): \(run.error ?? "")")
            let e = try XCTUnwrap(run.emulator)
            let files = try XCTUnwrap(e.pcapFiles, "\(run.transport) run \(run.index): no pcap files recorded")
            XCTAssertEqual(files.count, 4, "one path: up and down, in and out")
            allFiles += files
            lossDrops += e.packetsDroppedLoss ?? 0
            try check(run, files)
        }
        XCTAssertEqual(Set(allFiles).count, allFiles.count, "every run has files of its own: \(allFiles)")
        XCTAssertTrue(allFiles.contains { $0.contains("-warmup1-") }, "warm-ups are marked: \(allFiles)")
        XCTAssertGreaterThan(lossDrops, 0, "2% loss dropped packets, which the in-files hold and the out-files not")
    }

    /// One run's four files against its emulator record.
    func check(_ run: RunRecord, _ files: [String]) throws {
        let e = try XCTUnwrap(run.emulator)
        var captures: [String: PcapFile] = [:]
        for f in files {
            XCTAssertTrue(URL(fileURLWithPath: f).lastPathComponent.hasPrefix("small_page-pcap_lossy-"), f)
            captures[f] = try PcapFile(path: f)
        }
        let name = "\(run.transport) run \(run.index)"
        let out = captures.filter { $0.key.hasSuffix("-out.pcap") }.values.reduce(0) { $0 + $1.packets.count }
        XCTAssertEqual(Int64(out), e.packetsForwarded, "\(name): out-files hold every packet forwarded")
        var inMinusOut = 0
        for direction in ["up", "down"] {
            let into = try XCTUnwrap(captures.first { $0.key.hasSuffix("-\(direction)-in.pcap") }?.value)
            let outOf = try XCTUnwrap(captures.first { $0.key.hasSuffix("-\(direction)-out.pcap") }?.value)
            XCTAssertGreaterThan(outOf.packets.count, 10, "\(name) \(direction)")
            XCTAssertGreaterThanOrEqual(into.packets.count, outOf.packets.count, "\(name) \(direction)")
            inMinusOut += into.packets.count - outOf.packets.count
        }
        // The stop waited for the links to drain (the last FIN and ACK crossed them): exactly the
        // dropped packets entered and never left.
        XCTAssertEqual(e.linksDrained, true, name)
        let drops = Int((e.packetsDroppedLoss ?? 0) + (e.packetsDroppedQueue ?? 0))
        XCTAssertEqual(inMinusOut, drops, "\(name): \(inMinusOut) packets entered and did not leave")
        let packets = captures.values.flatMap(\.packets)
        // The run's own protocol carries the load, and no packet of the other transport's is a
        // straggler of the run before (ICMP may report datagrams that reached a closed socket).
        let own: UInt8 = run.transport == .h3 ? 17 : 6
        let share = Double(packets.filter { $0[9] == own }.count) / Double(max(packets.count, 1))
        XCTAssertGreaterThan(share, 0.9, "\(name): \(share) of the packets are protocol \(own)")
        XCTAssertEqual(packets.filter { $0[9] == 23 - own }.count, 0, "\(name): packets of the other transport")
        let syns = packets.filter { p in
            let ihl = Int(p[0] & 15) * 4
            return p[9] == 6 && p.count >= ihl + 14 && p[ihl + 13] & 0x12 == 0x02
        }
        XCTAssertEqual(syns.isEmpty, run.transport == .h3, "\(name): \(syns.count) TCP SYNs")
        let now = Date().timeIntervalSince1970
        for c in captures.values {
            XCTAssertEqual(c.times, c.times.sorted(), "\(c.path): records in time order")
            XCTAssertTrue(c.times.allSatisfy { abs($0 - now) < 600 }, "\(c.path): wall-clock times")
        }
    }
}

/// A classic pcap file read back strictly: LINKTYPE_RAW, IPv4 packets whose total length is the
/// captured length. Throws naming the file and what is wrong.
struct PcapFile {
    let path: String
    var packets: [[UInt8]] = []
    /// Seconds since the Unix epoch.
    var times: [Double] = []

    struct Malformed: Error, CustomStringConvertible { var description: String }

    init(path: String) throws {
        self.path = path
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        func fail(_ what: String) -> Malformed { Malformed(description: "\(path): \(what)") }
        guard bytes.count >= 24 else { throw fail("\(bytes.count) bytes: no global header") }
        let divisor: Double
        switch u32(0) {
        case 0xA1B2_3C4D: divisor = 1e9
        case 0xA1B2_C3D4: divisor = 1e6
        default: throw fail("magic \(String(u32(0), radix: 16))")
        }
        guard bytes[4] == 2, bytes[6] == 4 else { throw fail("version \(bytes[4]).\(bytes[6])") }
        guard u32(16) == 65_535 else { throw fail("snaplen \(u32(16))") }
        guard u32(20) == 101 else { throw fail("link type \(u32(20)), not LINKTYPE_RAW (101)") }
        var at = 24
        while at < bytes.count {
            guard at + 16 <= bytes.count else { throw fail("record header cut off at \(at)") }
            let captured = Int(u32(at + 8)), original = Int(u32(at + 12))
            guard captured == original, at + 16 + captured <= bytes.count else {
                throw fail("record at \(at): captured \(captured), original \(original)")
            }
            let packet = Array(bytes[(at + 16)..<(at + 16 + captured)])
            guard captured >= 20, packet[0] >> 4 == 4, Int(packet[2]) << 8 | Int(packet[3]) == captured else {
                throw fail("record at \(at): not an IPv4 packet of \(captured) bytes")
            }
            packets.append(packet)
            times.append(Double(u32(at)) + Double(u32(at + 4)) / divisor)
            at += 16 + captured
        }
    }
}
