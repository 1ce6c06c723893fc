import Foundation
import XCTest
#if canImport(Glibc)
    import Glibc
#endif
import TLS
import TestSupport

/// `netbench load` run as the built binary: against its in-process server (open and closed model),
/// its `.hlog` read back by the `hdrhistogram` PyPI package, and against servers that misbehave.
final class LoadCommandTests: XCTestCase {
    func tempDir() throws -> String {
        let dir = NSTemporaryDirectory() + "netbench-load-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        return dir
    }

    func loads(_ dir: String) throws -> [[String: Any]] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/load.json")))
        return try XCTUnwrap((json as? [String: Any])?["loads"] as? [[String: Any]])
    }

    func testOpenModelInProcessWritesResultsAndAnHlogThatHdrhReads() throws {
        let dir = try tempDir()
        let r = try netbenchRun(["load", "--rate", "200/s", "--duration", "2s", "-c", "2", "-m", "4", "-o", dir])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("h2: open, 200 req/s, 2 connections × 4 streams"), r.stdout)
        XCTAssertTrue(r.stdout.contains("req/s") && r.stdout.contains("p99.99"), r.stdout)
        let load = try XCTUnwrap(try loads(dir).first)
        XCTAssertEqual(load["scheduled"] as? Int, 400)
        XCTAssertEqual(load["ok"] as? Int, 400)
        XCTAssertEqual((load["errors"] as? [String: Int])?.isEmpty, true)
        XCTAssertEqual(load["bytes"] as? Int, 400 * 1000)
        let latency = try XCTUnwrap(load["latencyMs"] as? [String: Any])
        XCTAssertEqual(latency["count"] as? Int, 400)

        // The interval log, read by HdrHistogram's Python implementation: the same count and percentiles.
        let python = packageRoot + "/.build-venv/bin/python"
        let hasHdrh =
            FileManager.default.isExecutableFile(atPath: python)
            && ((try? execute(python, ["-c", "import hdrh"]).status) == 0)
        try require(hasHdrh, "the hdrhistogram PyPI package in .build-venv (scripts/bootstrap.sh --test)")
        let script = """
            import sys
            from hdrh.log import HistogramLogReader
            from hdrh.histogram import HdrHistogram
            ref = HdrHistogram(1, 3600000000, 3)
            reader = HistogramLogReader(sys.argv[1], ref)
            total = None
            n = 0
            while True:
                h = reader.get_next_interval_histogram()
                if h is None: break
                n += 1
                if total is None: total = h
                else: total.add(h)
            print(n, total.get_total_count(), total.get_value_at_percentile(50), total.get_value_at_percentile(99),
                  total.get_max_value())
            """
        let py = try execute(python, ["-c", script, dir + "/latency-h2.hlog"])
        XCTAssertEqual(py.status, 0, py.stderr)
        let fields = py.stdout.split(separator: " ").map { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        XCTAssertEqual(fields.count, 5, py.stdout)
        XCTAssertGreaterThanOrEqual(fields[0] ?? 0, 2, "intervals: \(py.stdout)")
        XCTAssertEqual(fields[1], 400)
        XCTAssertEqual(fields[2].map { $0 / 1000 }, latency["p50"] as? Double)
        XCTAssertEqual(fields[3].map { $0 / 1000 }, latency["p99"] as? Double)
        XCTAssertEqual(fields[4].map { $0 / 1000 }, latency["max"] as? Double)
    }

    func testClosedModelOverH1AndH3() throws {
        let dir = try tempDir()
        let r = try netbenchRun(
            ["load", "-t", "h1,h3", "--duration", "1s", "-c", "2", "-m", "2", "--size", "5KB", "-o", dir])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let all = try loads(dir)
        XCTAssertEqual(all.map { $0["transport"] as? String }, ["h1", "h3"])
        for l in all {
            let ok = try XCTUnwrap(l["ok"] as? Int)
            XCTAssertGreaterThan(ok, 0)
            XCTAssertEqual(l["model"] as? String, "closed")
            XCTAssertEqual(l["bytes"] as? Int, ok * 5000, "\(l)")
        }
        XCTAssertEqual(all[0]["streams"] as? Int, 1, "HTTP/1.1 carries one request at a time")
    }

    func testBadArgumentsAreUsageErrorsNamingTheOption() throws {
        for (args, needle) in [
            (["--rate", "0/s"], "--rate '0/s'"), (["--rate", "-5"], "--rate"), (["--rate", "fast"], "--rate 'fast'"),
            (["--rate", "500..100/s", "--step", "1s"], "below its start"), (["--rate", "100..500/s"], "--step"),
            (["-c", "0"], "-c '0'"), (["http://x/"], "https://"), (["--shard", "5/4"], "--shard '5/4'"),
            (["https:///obj"], "'https:///obj': not a URL"), (["https://a b/obj"], "not a URL"),
            (["https://x.test:99999/obj"], "'https://x.test:99999/obj'"), (["--rate", "50%"], "needs -p PROFILE"),
            (["--rate", "0%"], "--rate '0%'"), (["--rate", "90..50%", "--step", "1s"], "below its start"),
            (["-p", "Cable", "--server", "127.0.0.1:1", "Scenarios/pages/bulk-100MB-download.json"], "--server"),
        ] {
            let r = try netbenchRun(["load"] + args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(needle), "\(args): \(r.stderr)")
        }
    }

    /// A two-origin page of small resources, with one byte more per resource when `skewed`.
    func writeScenario(_ path: String, skewed: Bool) throws {
        let extra = skewed ? 1 : 0
        let text = """
            {"schemaVersion": 1, "name": "load-two-origins",
             "origins": [{"id": "a", "host": "a.load.test"}, {"id": "b", "host": "b.load.test"}],
             "resources": [
               {"id": "doc", "origin": "a", "path": "/", "bytes": \(1000 + extra), "type": "document"},
               {"id": "img", "origin": "b", "path": "/i.webp", "bytes": \(3000 + extra), "type": "image",
                "parent": "doc"}
             ]}
            """
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// The scenario's resources against a two-origin scenario in process: both names, exact bytes.
    func testScenarioResourcesOverTwoServerNames() throws {
        let dir = try tempDir()
        try writeScenario(dir + "/page.json", skewed: false)
        let r = try netbenchRun(
            ["load", dir + "/page.json", "--rate", "100/s", "--duration", "1s", "-c", "2", "-o", dir])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let load = try XCTUnwrap(try loads(dir).first)
        XCTAssertEqual(load["ok"] as? Int, 100, r.stdout)
        XCTAssertEqual(load["bytes"] as? Int, 50 * 1000 + 50 * 3000)
        let usage = try netbenchRun(["load", dir + "/page.json", "-c", "1", "--duration", "1s"])
        XCTAssertEqual(usage.status, 64, usage.stderr)
        XCTAssertTrue(usage.stderr.contains("--connections 1"), usage.stderr)
    }

    /// A server that serves other sizes than the scenario says (`netbench serve` of a scenario with
    /// the same paths): every response is a `length` error, counted; nothing succeeds, exit 2.
    func testWrongBytesAreCountedAsLengthErrors() throws {
        let dir = try tempDir()
        try writeScenario(dir + "/served.json", skewed: false)
        try writeScenario(dir + "/expected.json", skewed: true)
        let (serve, port) = try startServe(dir + "/served.json", dir: dir)
        defer { stop(serve) }
        let r = try netbenchRun([
            "load", dir + "/expected.json", "--server", "127.0.0.1:\(port)", "--ca", dir + "/ca.pem",
            "--rate", "100/s", "--duration", "1s", "-c", "2",
        ])
        XCTAssertEqual(r.status, 2, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("errors length 100"), r.stdout)
        XCTAssertTrue(r.stdout.contains("body bytes, expected exactly"), r.stdout)
    }

    /// A weighted URL list (`@FILE`): the requests go in proportion to the weights. Against `netbench serve`,
    /// a list of its `/` at weight 3 and a path it does not serve at weight 1: of 400 requests sent in order,
    /// exactly 300 succeed and 100 are status errors (404). Lines that do not parse are data errors (65)
    /// naming the file, the line and the value.
    func testWeightedURLListSendsInProportion() throws {
        let dir = try tempDir()
        try writeScenario(dir + "/served.json", skewed: false)
        let (serve, port) = try startServe(dir + "/served.json", dir: dir)
        defer { stop(serve) }
        let list = "# served at 3, missing at 1\n\nhttps://localhost:\(port)/ 3\n  https://localhost:\(port)/missing\n"
        try list.write(toFile: dir + "/urls.txt", atomically: true, encoding: .utf8)
        let r = try netbenchRun([
            "load", "@" + dir + "/urls.txt", "--ca", dir + "/ca.pem", "--rate", "400/s", "--duration", "1s",
            "-c", "2", "-o", dir,
        ])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let load = try XCTUnwrap(try loads(dir).first)
        XCTAssertEqual(load["ok"] as? Int, 300, r.stdout)
        XCTAssertEqual((load["errors"] as? [String: Int])?["status"], 100, r.stdout)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/load.json")))
        let results = try XCTUnwrap(json as? [String: Any])
        XCTAssertEqual(
            results["targets"] as? [String], ["https://localhost/", "https://localhost/missing"], "\(results)")
        XCTAssertEqual(results["targetWeights"] as? [Int], [3, 1])

        let bad: [(String, String)] = [
            ("https://localhost:1/ 0\n", "urls.txt line 1: weight '0' is not a whole number from 1 to 10000"),
            ("# ok\nhttps://localhost:1/ x\n", "line 2: weight 'x'"),
            ("http://localhost:1/\n", "line 1: 'http://localhost:1/': only https:// URLs"),
            ("https://localhost:1/ 2 3\n", "line 1: 'https://localhost:1/ 2 3': expected a URL and at most a weight"),
            ("# nothing\n\n", "no URL in the list"),
            ("https://localhost:1/a 6000\nhttps://localhost:1/b 6000\n", "the weights add up to 12000"),
        ]
        for (text, needle) in bad {
            try text.write(toFile: dir + "/urls.txt", atomically: true, encoding: .utf8)
            let e = try netbenchRun(["load", "@" + dir + "/urls.txt", "--duration", "1s"])
            XCTAssertEqual(e.status, 65, "\(text): \(e.stderr)")
            XCTAssertTrue(e.stderr.contains(needle), "\(text): \(e.stderr)")
        }
        let missing = try netbenchRun(["load", "@" + dir + "/none.txt", "--duration", "1s"])
        XCTAssertEqual(missing.status, 65, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("none.txt: not a readable UTF-8 text file"), missing.stderr)
    }

    /// A server that accepts and closes every connection: `connect` errors, no hang, exit 2.
    func testServerThatClosesEveryConnection() throws {
        let dir = try tempDir()
        let ca = try CertificateAuthority(commonName: "load test CA")
        try ca.certificatePEM.write(toFile: dir + "/ca.pem", atomically: true, encoding: .utf8)
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        listener.arguments = [
            "-c",
            """
            import socket
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
            print(s.getsockname()[1], flush=True)
            while True:
                c, _ = s.accept(); c.close()
            """,
        ]
        let out = Pipe()
        listener.standardOutput = out
        try listener.run()
        defer { kill(listener.processIdentifier, SIGTERM); listener.waitUntilExit() }
        let port = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let start = Date()
        let r = try netbenchRun([
            "load", "https://localhost:\(port)/obj", "--ca", dir + "/ca.pem",
            "--rate", "50/s", "--duration", "1s", "--grace", "1s",
        ])
        XCTAssertEqual(r.status, 2, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("errors connect"), r.stdout)
        XCTAssertLessThan(Date().timeIntervalSince(start), 20)
    }

    /// Two shards of a load, each half the rate, merged by `netbench merge` into one distribution.
    func testShardsMergeIntoOneLoad() throws {
        let dir = try tempDir()
        for i in 1...2 {
            let r = try netbenchRun(
                ["load", "--rate", "100/s", "--duration", "1s", "--shard", "\(i)/2", "-c", "2", "-o", dir + "/s\(i)"])
            XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
            XCTAssertEqual(try loads(dir + "/s\(i)").first?["scheduled"] as? Int, 50)
        }
        let m = try netbenchRun(["merge", dir + "/s1", dir + "/s2", "-o", dir + "/merged"])
        XCTAssertEqual(m.status, 0, m.stdout + m.stderr)
        let merged = try XCTUnwrap(try loads(dir + "/merged").first)
        XCTAssertEqual(merged["ok"] as? Int, 100)
        XCTAssertEqual((merged["latencyMs"] as? [String: Any])?["count"] as? Int, 100)
        XCTAssertTrue(m.stdout.contains("achieved 100 req/s"), m.stdout)
    }

    /// A ramp: steps of --step from A to B req/s, each with its own figures.
    func testRampSteps() throws {
        let dir = try tempDir()
        let r = try netbenchRun(
            ["load", "--rate", "100..300/s", "--step", "500ms", "--duration", "1s", "-c", "2", "-o", dir])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("open, 100..300 req/s"), r.stdout)
        XCTAssertTrue(r.stdout.contains("  step 100 req/s: achieved 100 req/s"), r.stdout)
        let load = try XCTUnwrap(try loads(dir).first)
        let steps = try XCTUnwrap(load["steps"] as? [[String: Any]])
        XCTAssertEqual(steps.map { $0["rate"] as? Double }, [100, 300])
        XCTAssertEqual(steps.map { $0["scheduled"] as? Int }, [50, 150])
        XCTAssertEqual(load["scheduled"] as? Int, 200)
    }

    /// A rate no generator holds: the summary says BEHIND with the achieved rate, the due requests
    /// that never left are counted (not queued without bound), and the load ends.
    func testARateBeyondTheGeneratorIsReportedBehind() throws {
        let dir = try tempDir()
        let r = try netbenchRun(
            ["load", "--rate", "50000000/s", "--duration", "1s", "--grace", "1s", "-c", "1", "-m", "2", "-o", dir])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("BEHIND: asked 50000000 req/s, achieved "), r.stdout)
        let load = try XCTUnwrap(try loads(dir).first)
        XCTAssertEqual(load["behind"] as? Bool, true)
        XCTAssertEqual(load["scheduled"] as? Int, 50_000_000)
        let ok = try XCTUnwrap(load["ok"] as? Int), unsent = try XCTUnwrap(load["unsent"] as? Int)
        let errors = (load["errors"] as? [String: Int]) ?? [:]
        XCTAssertNil(errors["closed"], "requests cut off at the end count once, as timeouts: \(errors)")
        XCTAssertEqual(ok + unsent + errors.values.reduce(0, +), 50_000_000)
    }

    /// A TCP server that answers every connection with bytes that are not TLS: counted as `connect`
    /// errors (the handshake fails), no crash, no hang, exit 2.
    func testServerThatSendsGarbageInsteadOfTLS() throws {
        let dir = try tempDir()
        let ca = try CertificateAuthority(commonName: "load test CA")
        try ca.certificatePEM.write(toFile: dir + "/ca.pem", atomically: true, encoding: .utf8)
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        listener.arguments = [
            "-c",
            """
            import socket
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
            print(s.getsockname()[1], flush=True)
            while True:
                c, _ = s.accept()
                try: c.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 5\\r\\n\\r\\nhello" * 10)
                except OSError: pass
                c.close()
            """,
        ]
        let out = Pipe()
        listener.standardOutput = out
        try listener.run()
        defer { kill(listener.processIdentifier, SIGTERM); listener.waitUntilExit() }
        let port = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let start = Date()
        let r = try netbenchRun([
            "load", "https://localhost:\(port)/obj", "--ca", dir + "/ca.pem", "-t", "h1,h2",
            "--rate", "50/s", "--duration", "1s", "--grace", "1s",
        ])
        XCTAssertEqual(r.status, 2, r.stdout + r.stderr)
        XCTAssertEqual(r.stdout.components(separatedBy: "errors connect").count - 1, 2, r.stdout)
        XCTAssertLessThan(Date().timeIntervalSince(start), 30)
    }

    /// A UDP server that answers every datagram with bytes that are not QUIC: the h3 requests in
    /// flight end as `timeout` errors after --grace, the rest are counted as never sent; no crash, no
    /// hang, exit 2.
    func testUDPServerThatAnswersGarbageInsteadOfQUIC() throws {
        let dir = try tempDir()
        let ca = try CertificateAuthority(commonName: "load test CA")
        try ca.certificatePEM.write(toFile: dir + "/ca.pem", atomically: true, encoding: .utf8)
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        listener.arguments = [
            "-u", "-c",
            """
            import socket
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0))
            print(s.getsockname()[1], flush=True)
            while True:
                data, addr = s.recvfrom(65536)
                s.sendto(b"\\x40" + b"junk" * 300, addr)
            """,
        ]
        let out = Pipe()
        listener.standardOutput = out
        try listener.run()
        defer { kill(listener.processIdentifier, SIGTERM); listener.waitUntilExit() }
        let port = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let start = Date()
        let r = try netbenchRun([
            "load", "https://localhost:\(port)/obj", "--ca", dir + "/ca.pem", "-t", "h3",
            "--rate", "50/s", "--duration", "1s", "--grace", "1s", "-c", "2",
        ])
        XCTAssertEqual(r.status, 2, r.stdout + r.stderr)
        // 2 connections × 10 streams in flight, never answered; the other 30 due requests never left.
        XCTAssertTrue(r.stdout.contains("errors timeout 20"), r.stdout)
        XCTAssertTrue(r.stdout.contains("30 due requests never sent"), r.stdout)
        XCTAssertLessThan(Date().timeIntervalSince(start), 20)
    }

    /// `check` on load results: thresholds that hold pass (exit 0), one that cannot hold fails (exit 1)
    /// and names the step; JUnit written; a baseline is refused.
    func testCheckThresholdsOnLoadResults() throws {
        let dir = try tempDir()
        let r = try netbenchRun(
            ["load", "--rate", "100..200/s", "--step", "500ms", "--duration", "1s", "-c", "2", "-o", dir + "/out"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        try #"{"thresholds": ["errors == 0", {"expr": "achievedRate >= 0.9 * asked", "rate": 200},"#
            .appending(#" {"expr": "latencyMs.p99 < 5000", "transport": "h2", "rate": 100}]}"#)
            .write(toFile: dir + "/pass.json", atomically: true, encoding: .utf8)
        let pass = try netbenchRun([
            "check", dir + "/out", "--thresholds", dir + "/pass.json", "--junit", dir + "/j.xml",
        ])
        XCTAssertEqual(pass.status, 0, pass.stdout + pass.stderr)
        XCTAssertTrue(pass.stdout.contains("PASS  achievedRate >= 0.9 * asked [h2 · 200 req/s]"), pass.stdout)
        XCTAssertTrue(pass.stdout.contains("check passed: 3 checks"), pass.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/j.xml"))
        try #"{"thresholds": [{"expr": "latencyMs.p50 < 0.001", "rate": 200}, "achievedRate >= 1000"]}"#
            .write(toFile: dir + "/fail.json", atomically: true, encoding: .utf8)
        let fail = try netbenchRun(["check", dir + "/out", "--thresholds", dir + "/fail.json"])
        XCTAssertEqual(fail.status, 1, fail.stdout + fail.stderr)
        XCTAssertTrue(fail.stdout.contains("FAIL  latencyMs.p50 < 0.001 [h2 · 200 req/s]"), fail.stdout)
        XCTAssertTrue(fail.stdout.contains("2 thresholds broken"), fail.stdout)
        let baseline = try netbenchRun(["check", dir + "/out", "--baseline", dir + "/out"])
        XCTAssertEqual(baseline.status, 64, baseline.stderr)
        XCTAssertTrue(baseline.stderr.contains("thresholds only"), baseline.stderr)
        try #"{"thresholds": ["pltMs.p95 < 3000"]}"#.write(
            toFile: dir + "/page.json", atomically: true, encoding: .utf8)
        let wrong = try netbenchRun(["check", dir + "/out", "--thresholds", dir + "/page.json"])
        XCTAssertEqual(wrong.status, 65, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("thresholds[0]") && wrong.stderr.contains("pltMs.p95"), wrong.stderr)
    }

    /// `report` of load results: load-report.html with both charts and a row per step.
    func testReportOfLoadResults() throws {
        let dir = try tempDir()
        let r = try netbenchRun(
            [
                "load", "--rate", "100..200/s", "--step", "500ms", "--duration", "1s", "-c", "2", "-t", "h1,h2",
                "-o", dir,
            ])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let rep = try netbenchRun(["report", dir])
        XCTAssertEqual(rep.status, 0, rep.stdout + rep.stderr)
        let html = try String(contentsOfFile: dir + "/load-report.html", encoding: .utf8)
        XCTAssertTrue(html.contains("latency percentiles against achieved rate"), html)
        XCTAssertTrue(html.contains("latency at each percentile"), html)
        XCTAssertEqual(html.components(separatedBy: "<tr>").count - 1, 1 + 2 * 2, "a header and 2 steps × 2 loads")
    }

    /// Shards' interval logs merged: one .hlog whose intervals add up to the merged load.json's
    /// histogram, read back by the hdrhistogram PyPI package.
    func testMergedShardsWriteOneIntervalLogThatHdrhReads() throws {
        let dir = try tempDir()
        for i in 1...2 {
            let r = try netbenchRun(
                ["load", "--rate", "100/s", "--duration", "2s", "--shard", "\(i)/2", "-c", "2", "-o", dir + "/s\(i)"])
            XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        }
        let m = try netbenchRun(["merge", dir + "/s1", dir + "/s2", "-o", dir + "/merged"])
        XCTAssertEqual(m.status, 0, m.stdout + m.stderr)
        XCTAssertTrue(m.stdout.contains("/merged/latency-h2.hlog"), m.stdout)
        let merged = try XCTUnwrap(try loads(dir + "/merged").first)
        XCTAssertEqual(merged["hlog"] as? String, "latency-h2.hlog")
        let latency = try XCTUnwrap(merged["latencyMs"] as? [String: Any])
        let python = packageRoot + "/.build-venv/bin/python"
        let hasHdrh =
            FileManager.default.isExecutableFile(atPath: python)
            && ((try? execute(python, ["-c", "import hdrh"]).status) == 0)
        try require(hasHdrh, "the hdrhistogram PyPI package in .build-venv (scripts/bootstrap.sh --test)")
        let script = """
            import sys
            from hdrh.log import HistogramLogReader
            from hdrh.histogram import HdrHistogram
            reader = HistogramLogReader(sys.argv[1], HdrHistogram(1, 3600000000, 3))
            total = HdrHistogram(1, 3600000000, 3)
            n = 0
            while True:
                h = reader.get_next_interval_histogram()
                if h is None: break
                n += 1
                total.add(h)
            print(n, total.get_total_count(), total.get_value_at_percentile(50), total.get_value_at_percentile(99),
                  total.get_max_value())
            """
        let py = try execute(python, ["-c", script, dir + "/merged/latency-h2.hlog"])
        XCTAssertEqual(py.status, 0, py.stderr)
        let fields = py.stdout.split(separator: " ").map { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        XCTAssertEqual(fields.count, 5, py.stdout)
        XCTAssertGreaterThanOrEqual(fields[0] ?? 0, 2, "intervals: \(py.stdout)")
        XCTAssertEqual(fields[1], 200)
        XCTAssertEqual(fields[2].map { $0 / 1000 }, latency["p50"] as? Double)
        XCTAssertEqual(fields[3].map { $0 / 1000 }, latency["p99"] as? Double)
        XCTAssertEqual(fields[4].map { $0 / 1000 }, latency["max"] as? Double)
    }

    /// h3 load through an emulated 100 Mbit/s, 20 ms link at half its capacity for 10 KB responses
    /// (625 req/s): the asked rate is achieved, nothing fails, no latency beats the link's ideal
    /// (20 ms + 10,000 bytes at 100 Mbit/s = 20.8 ms), and the emulator forwarded at least the bodies.
    func testH3LoadThroughAnEmulatedProfile() throws {
        try requireRoot()
        let dir = try tempDir()
        try """
        {"schemaVersion": 1, "name": "load-100M-20ms", "down": "100Mbit", "up": "100Mbit", "rtt": "20ms",
         "queue": "bdp"}
        """.write(toFile: dir + "/link.json", atomically: true, encoding: .utf8)
        let r = try netbenchRun([
            "load", "-t", "h3", "-p", dir + "/link.json", "--size", "10KB", "--rate", "50%", "--duration", "3s",
            "-c", "4", "-m", "8", "-o", dir + "/out",
        ])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("h3: open, 625 req/s"), r.stdout)
        XCTAssertTrue(r.stdout.contains("capacity 1250 req/s of 10 KB responses (asked 50%)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("ideal 20.8 ms"), r.stdout)
        let load = try XCTUnwrap(try loads(dir + "/out").first)
        let link = try XCTUnwrap(load["link"] as? [String: Any])
        XCTAssertEqual(link["idealMs"] as? Double ?? 0, 20.8, accuracy: 1e-9)
        XCTAssertEqual(link["capacityRate"] as? Double, 1250)
        XCTAssertEqual(load["scheduled"] as? Int, 1875)
        XCTAssertEqual((load["errors"] as? [String: Int])?.isEmpty, true, "\(load)")
        let achieved = try XCTUnwrap(load["achievedRate"] as? Double)
        XCTAssertEqual(achieved, 625, accuracy: 625 * 0.02, "the asked rate, within 2%")
        let latency = try XCTUnwrap(load["latencyMs"] as? [String: Any])
        let p50 = try XCTUnwrap(latency["p50"] as? Double)
        XCTAssertGreaterThanOrEqual(p50, 20.8, "no request is faster than the link allows")
        let wire = try XCTUnwrap(link["wireBytesPerResponse"] as? Double)
        XCTAssertGreaterThanOrEqual(wire, 10_000)
        XCTAssertLessThan(wire, 12_000)
    }
}
