import Foundation
import XCTest
import TestSupport
import BenchCore
import BenchModel
import Runner
@testable import Testbed

/// Through the emulator, an h2 and an h3 load of a small page over a lossy, rate-limited link
/// with `--pcap`, `--link-log` and `--keylog`: every run's records, pcap files and link logs
/// agree packet for packet, hold that run's packets only, and tshark decrypts HTTP/2 and HTTP/3.
final class LinkRecordTests: XCTestCase {
    static let profileJSON =
        #"{"schemaVersion": 1, "name": "linklog lossy", "down": "8Mbit", "up": "2Mbit", "rtt": "30ms", "#
        + #""loss": "1%", "queue": "bdp"}"#

    override func setUpWithError() throws {
        try requireRoot("needs root (network namespaces and TUN devices)")
    }

    func testRecordsPcapsAndLinkLogsAgreeAndTsharkDecrypts() throws {
        let dir = NSTemporaryDirectory() + "netbench-linkrecord-\(UUID().uuidString)"
        for sub in ["/pcap", "/log"] {
            try FileManager.default.createDirectory(atPath: dir + sub, withIntermediateDirectories: true)
        }
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.profileJSON.write(toFile: dir + "/lossy.json", atomically: true, encoding: .utf8)
        let library = Library(root: packageRoot + "/Scenarios")
        let page = packageRoot + "/Scenarios/pages/small-page.json"
        var request = RunRequest(
            suiteName: "linklog-test", scenarios: [(page, try Scenario.load(from: page))],
            profiles: [try library.profile(dir + "/lossy.json")], transports: [.h2, .h3], runs: 2, warmupRuns: 1,
            outputDirectory: dir + "/out")
        request.library = library
        request.pageLoads.timeout = .seconds(60)
        request.diagnostics.pcapDirectory = dir + "/pcap"
        request.diagnostics.linkLogDirectory = dir + "/log"
        request.diagnostics.keyLogFile = dir + "/keys.log"
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        XCTAssertEqual(results.runs.count, 6, "a warm-up and two runs per transport")
        for run in results.runs {
            XCTAssertEqual(run.status, .ok, "\(run.transport): \(run.error ?? "")")
            try checkLinks(run)
        }
        try checkDecryption(results, keyLog: dir + "/keys.log", scratch: dir)
    }

    /// One run: per direction, the pcap files and the link log against the record's counters.
    func checkLinks(_ run: RunRecord) throws {
        let name = "\(run.transport) run \(run.index)"
        let e = try XCTUnwrap(run.emulator, name)
        XCTAssertEqual(e.linksDrained, true, "\(name): the links emptied before the stop")
        let links = try XCTUnwrap(e.links, "\(name): no link records")
        XCTAssertEqual(links.map(\.direction), [.up, .down], name)
        XCTAssertNotNil(run.metrics.downlinkQueueDelay, name)
        for l in links {
            let what = "\(name) \(l.direction)"
            let into = try PcapFile(path: try XCTUnwrap(l.pcapIn, what))
            let outOf = try PcapFile(path: try XCTUnwrap(l.pcapOut, what))
            // Exactly: every packet offered is in the in-file, every packet released in the out-file,
            // and (the links drained) every packet offered was either released or dropped.
            XCTAssertEqual(Int64(into.packets.count), l.received, "\(what): in-file against received")
            XCTAssertEqual(Int64(outOf.packets.count), l.forwarded, "\(what): out-file against forwarded")
            XCTAssertEqual(l.received, l.forwarded + l.dropped, "\(what): nothing left in flight")
            XCTAssertEqual(l.departed, l.forwarded, "\(what): every packet that left the queue was released")
            // This run's own packets only: no TCP in an h3 run, no UDP in an h2 run.
            let foreign: UInt8 = run.transport == .h3 ? 6 : 17
            XCTAssertEqual(into.packets.filter { $0[9] == foreign }.count, 0, "\(what): protocol \(foreign) packets")
            XCTAssertTrue(
                l.sojournP50Ms <= l.sojournP90Ms && l.sojournP90Ms <= l.sojournP99Ms
                    && l.sojournP99Ms <= l.sojournMaxMs, "\(what): \(l)")
            // A full packet's serialization alone: 1,500 B at 8 or 2 Mbit/s is 1.5 or 6 ms.
            XCTAssertGreaterThanOrEqual(l.sojournMaxMs, l.direction == .down ? 1.4 : 0.1, what)
            let series = try XCTUnwrap(l.series, what)
            XCTAssertEqual(series.offeredBytes.reduce(0, +), Int64(into.packets.reduce(0) { $0 + $1.count }), what)
            XCTAssertEqual(series.departedBytes.reduce(0, +), Int64(outOf.packets.reduce(0) { $0 + $1.count }), what)
            XCTAssertEqual(series.drops.reduce(0, +), l.dropped, what)
            XCTAssertNotNil(series.capacityBytes, "\(what): a rate-limited link has a capacity")
            let log = try MahimahiLogReader(path: try XCTUnwrap(l.linkLog, what))
            XCTAssertEqual(Int64(log.arrivals.count), l.received, "\(what): '+' lines")
            XCTAssertEqual(Int64(log.departures.count), l.departed, "\(what): '-' lines")
            XCTAssertEqual(Int64(log.drops), l.dropped, "\(what): 'd' lines")
            XCTAssertEqual(log.arrivals, into.packets.map { Int64($0.count) }, "\(what): sizes in arrival order")
            XCTAssertTrue(log.departures.allSatisfy { $0.delay >= 0 }, what)
            XCTAssertEqual(log.times, log.times.sorted(), "\(what): lines in time order")
            XCTAssertGreaterThan(log.opportunities, 0, "\(what): '#' lines of a constant rate")
        }
    }

    /// tshark (Debian's 4.0) decrypts the first h2 and h3 runs' captures with the run's key log:
    /// HTTP/2 and HTTP/3 frames appear. Both directions are needed (the ClientHello goes up, the
    /// responses down): mergecap joins the packets as they left the emulator.
    func checkDecryption(_ results: ResultsFile, keyLog: String, scratch: String) throws {
        let tools = ["tshark", "mergecap"].map { name in
            ["/usr/bin/", "/usr/local/bin/"].map { $0 + name }.first {
                FileManager.default.isExecutableFile(atPath: $0)
            }
        }
        guard let tshark = tools[0], let mergecap = tools[1] else {
            try missingPrerequisite("tshark and mergecap are not installed (scripts/bootstrap.sh --test)")
        }
        for (transport, filter) in [(TransportKind.h2, "http2"), (.h3, "http3")] {
            let run = try XCTUnwrap(results.runs.first { $0.transport == transport && $0.warmup != true })
            let files = try XCTUnwrap(run.emulator?.links).compactMap(\.pcapOut)
            let merged = scratch + "/\(transport)-merged.pcap"
            let merge = try Self.execute(mergecap, ["-w", merged] + files)
            XCTAssertEqual(merge.status, 0, merge.stderr)
            let decode = try Self.execute(
                tshark, ["-n", "-r", merged, "-o", "tls.keylog_file:" + keyLog, "-Y", filter, "-T", "fields",
                         "-e", "frame.number"])
            XCTAssertEqual(decode.status, 0, decode.stderr)
            let frames = decode.stdout.split(separator: "\n")
            XCTAssertGreaterThan(frames.count, 0, "\(transport): tshark -Y \(filter): no frame in \(merged)")
        }
    }

    static func execute(_ tool: String, _ arguments: [String]) throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = { (d: Data) in String(decoding: d, as: UTF8.self) }
        return (process.terminationStatus, text(stdout), text(stderr))
    }
}
