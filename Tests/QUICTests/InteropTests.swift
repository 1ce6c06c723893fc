import BenchCore
import Foundation
import QUIC
import XCTest
import TestSupport

/// HTTP3Client against independent HTTP/3 servers over real loopback UDP.
final class InteropTests: XCTestCase {
    /// aioquic's demo scripts, from the venv the bootstrap installs (`NETBENCH_AIOQUIC_VENV`,
    /// default `<package root>/.build-venv`) with the sdist's `examples/` copied to
    /// `aioquic-examples/` inside it (or `NETBENCH_AIOQUIC_EXAMPLES`). The scripts also import
    /// wsproto, and the demo app starlette and jinja2.
    private func aioquicServer() throws -> (python: String, examples: String) {
        let env = ProcessInfo.processInfo.environment
        let venv = env["NETBENCH_AIOQUIC_VENV"] ?? packageRoot + "/.build-venv"
        let python = venv + "/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            try missingPrerequisite(
                "aioquic interop: no Python venv at \(venv) (set NETBENCH_AIOQUIC_VENV or run the bootstrap)")
        }
        var candidates = [env["NETBENCH_AIOQUIC_EXAMPLES"], venv + "/aioquic-examples", venv + "/examples"].compactMap {
            $0
        }
        if let sources = try? FileManager.default.contentsOfDirectory(atPath: venv + "/src") {
            candidates += sources.filter { $0.hasPrefix("aioquic") }.sorted().reversed().map {
                venv + "/src/\($0)/examples"
            }
        }
        guard
            let examples = candidates.first(where: { FileManager.default.fileExists(atPath: $0 + "/http3_server.py") })
        else {
            try missingPrerequisite(
                "aioquic interop: examples/http3_server.py not found under \(venv) (looked in \(candidates))")
        }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: python)
        check.arguments = ["-c", "import aioquic, starlette, jinja2, wsproto"]
        check.standardError = FileHandle.nullDevice
        try check.run()
        check.waitUntilExit()
        guard check.terminationStatus == 0 else {
            try missingPrerequisite("aioquic interop: the venv at \(venv) lacks aioquic, starlette, jinja2 or wsproto")
        }
        return (python, examples)
    }

    private func newClient(
        port: UInt16, socket: LoopbackSocket, resumption: QUICResumptionState? = nil,
        config: QUICConfiguration = QUICConfiguration()
    ) throws -> LoopbackDriver {
        let client = try HTTP3Client(
            config: config.with { $0.initialRTT = .milliseconds(10) },
            trustedRootsPEM: TestPKI.shared.caPEM, serverName: "localhost",
            local: socket.local, remote: Endpoint(address: 0x7F00_0001, port: port),
            resumption: resumption, now: Instant.now())
        return LoopbackDriver(client: client, socket: socket)
    }

    private func download(
        _ driver: LoopbackDriver, authority: String, paths: [String: Int],
        timeout: Nanoseconds = .seconds(60), file: StaticString = #filePath, line: UInt = #line
    ) throws {
        var expected: [Int64: Int] = [:]
        for (path, size) in paths {
            expected[try driver.probe.client.submitRequest(authority: authority, path: path)] = size
        }
        let probe = driver.probe
        let ok = driver.run(timeout: timeout) { expected.keys.allSatisfy { probe.finished.contains($0) } }
        XCTAssertTrue(
            ok,
            "finished \(probe.finished.count) of \(expected.count); closed: \(String(describing: probe.closedWith))",
            file: file, line: line)
        for (stream, size) in expected {
            XCTAssertEqual(probe.status[stream], 200, "stream \(stream)", file: file, line: line)
            XCTAssertEqual(probe.bytes[stream] ?? 0, size, "stream \(stream)", file: file, line: line)
        }
    }

    func testDownloadFromAioquicServer() throws {
        let (python, examples) = try aioquicServer()
        let pki = TestPKI.shared
        let port = try LoopbackSocket.freePort()
        let server = try PeerProcess(
            executable: python,
            arguments: [
                "http3_server.py", "--certificate", pki.certFile,
                "--private-key", pki.keyFile, "--host", "127.0.0.1",
                "--port", String(port),
            ],
            directory: examples, log: pki.directory + "/aioquic-\(port).log")
        defer { server.stop() }
        XCTAssertTrue(server.waitForUDP(port: port), "aioquic server did not start: \(server.output)")
        let driver = try newClient(port: port, socket: try LoopbackSocket())
        // The demo app answers /N with N bytes (at most 50 MB).
        try download(
            driver, authority: "localhost:\(port)",
            paths: ["/1": 1, "/1000": 1000, "/100000": 100_000, "/1000000": 1_000_000, "/5000000": 5_000_000])
        XCTAssertTrue(driver.probe.handshakeDone)
        XCTAssertTrue(
            driver.run(timeout: .seconds(5)) { driver.probe.client.resumptionState != nil },
            "aioquic sent no session ticket")
        let state = try XCTUnwrap(driver.probe.client.resumptionState)
        driver.probe.client.close(now: Instant.now()) { p, remote, local in driver.sockets[local]?.send(p, to: remote) }

        // Resume with 0-RTT against aioquic's ticket store.
        let second = try newClient(port: port, socket: try LoopbackSocket(), resumption: state)
        try download(second, authority: "localhost:\(port)", paths: ["/2000": 2000])
        XCTAssertTrue(second.probe.client.earlyDataAttempted)
        XCTAssertTrue(second.probe.client.earlyDataAccepted, "aioquic should accept 0-RTT")
    }

    func testDownloadFromAioquicServerThatSendsRetry() throws {
        let (python, examples) = try aioquicServer()
        let pki = TestPKI.shared
        let port = try LoopbackSocket.freePort()
        let server = try PeerProcess(
            executable: python,
            arguments: [
                "http3_server.py", "--certificate", pki.certFile,
                "--private-key", pki.keyFile, "--host", "127.0.0.1",
                "--port", String(port), "--retry",
            ],
            directory: examples, log: pki.directory + "/aioquic-retry-\(port).log")
        defer { server.stop() }
        XCTAssertTrue(server.waitForUDP(port: port), "aioquic server did not start: \(server.output)")
        let driver = try newClient(port: port, socket: try LoopbackSocket())
        try download(driver, authority: "localhost:\(port)", paths: ["/300000": 300_000])
    }

    func testDownloadFromNgtcp2ServerWithZeroRTTAndMigration() throws {
        let gtlsserver = ["/usr/sbin/gtlsserver", "/usr/bin/gtlsserver"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let gtlsserver else {
            try missingPrerequisite("ngtcp2 interop: gtlsserver (Debian ngtcp2-server) is not installed")
        }
        let pki = TestPKI.shared
        let port = try LoopbackSocket.freePort()
        let htdocs = pki.directory + "/htdocs"
        try FileManager.default.createDirectory(atPath: htdocs, withIntermediateDirectories: true)
        let server = try PeerProcess(
            executable: gtlsserver,
            arguments: ["-q", "-d", htdocs, "127.0.0.1", String(port), pki.keyFile, pki.certFile],
            log: pki.directory + "/gtlsserver-\(port).log")
        defer { server.stop() }
        XCTAssertTrue(server.waitForUDP(port: port), "gtlsserver did not start: \(server.output)")

        // gtlsserver generates a body of N bytes for /N.
        let first = try newClient(port: port, socket: try LoopbackSocket())
        try download(first, authority: "localhost:\(port)", paths: ["/10": 10, "/2000000": 2_000_000, "/0": 0])
        XCTAssertTrue(
            first.run(timeout: .seconds(5)) { first.probe.client.resumptionState != nil },
            "gtlsserver sent no session ticket")

        // Migrate to a new local port in the middle of a download.
        let big = try first.probe.client.submitRequest(authority: "localhost:\(port)", path: "/20000000")
        XCTAssertTrue(first.run(timeout: .seconds(30)) { (first.probe.bytes[big] ?? 0) > 2_000_000 })
        let newSocket = try LoopbackSocket()
        first.add(newSocket)
        try first.probe.client.migrate(to: newSocket.local, now: Instant.now())
        XCTAssertTrue(first.run(timeout: .seconds(60)) { first.probe.finished.contains(big) })
        XCTAssertEqual(first.probe.bytes[big], 20_000_000)
        XCTAssertEqual(first.probe.client.currentPath?.local, newSocket.local)
        XCTAssertGreaterThanOrEqual(first.probe.client.statistics.pathValidations, 1)
        let state = try XCTUnwrap(first.probe.client.resumptionState)
        first.probe.client.close(now: Instant.now()) { p, remote, local in first.sockets[local]?.send(p, to: remote) }

        // Resume with 0-RTT: the request goes out before the handshake completes.
        let second = try newClient(port: port, socket: try LoopbackSocket(), resumption: state)
        try download(second, authority: "localhost:\(port)", paths: ["/3000": 3000])
        XCTAssertTrue(second.probe.client.earlyDataAttempted)
        XCTAssertTrue(second.probe.client.earlyDataAccepted, "gtlsserver should accept 0-RTT")
    }

    private func fileSize(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
    }

    func testAioquicClientDownloadsFromHTTP3Server() throws {
        let (python, examples) = try aioquicServer()
        let pki = TestPKI.shared
        let socket = try LoopbackSocket()
        let driver = LoopbackServerDriver(
            server: try HTTP3Server(
                config: QUICConfiguration(), credentials: [pki.credentials],
                now: Instant.now()), socket: socket)
        let out = pki.directory + "/aioquic-out-\(socket.local.port)"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let sizes = [1, 4096, 1_000_000, 3_000_000]
        let urls = sizes.map { "https://localhost:\(socket.local.port)/bytes/\($0)" }
        let client = try PeerProcess(
            executable: python,
            arguments: ["http3_client.py", "--ca-certs", pki.caFile, "--output-dir", out] + urls,
            directory: examples, log: out + ".log")
        defer { client.stop() }
        driver.run(timeout: .seconds(60)) { client.process.isRunning }
        XCTAssertFalse(client.process.isRunning, "aioquic client did not finish: \(client.output)")
        XCTAssertEqual(client.process.terminationStatus, 0, client.output)
        for size in sizes {
            XCTAssertEqual(fileSize(out + "/\(size)"), size, "/bytes/\(size): \(client.output.suffix(2000))")
        }
        XCTAssertTrue(driver.events.contains { if case .handshakeCompleted = $0 { return true } else { return false } })
    }

    func testNgtcp2ClientDownloadsFromHTTP3Server() throws {
        let gtlsclient = ["/usr/bin/gtlsclient", "/usr/sbin/gtlsclient"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let gtlsclient else {
            try missingPrerequisite("ngtcp2 interop: gtlsclient (Debian ngtcp2-client) is not installed")
        }
        let pki = TestPKI.shared
        let socket = try LoopbackSocket()
        let driver = LoopbackServerDriver(
            server: try HTTP3Server(
                config: QUICConfiguration(), credentials: [pki.credentials],
                now: Instant.now()), socket: socket)
        let out = pki.directory + "/gtlsclient-out-\(socket.local.port)"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let sizes = [7, 65_536, 2_000_000]
        let urls = sizes.map { "https://localhost:\(socket.local.port)/bytes/\($0)" }
        // gtlsclient trusts the system store only, so it does not verify our test CA; its job
        // here is to speak HTTP/3 to the server. The second run resumes with 0-RTT.
        let session = out + "/session.pem", params = out + "/tp.txt"
        for run in 0..<2 {
            let dir = out + "/run\(run)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let client = try PeerProcess(
                executable: gtlsclient,
                arguments: [
                    "-q", "--exit-on-all-streams-close", "--download", dir,
                    "--session-file", session, "--tp-file", params,
                    "127.0.0.1", String(socket.local.port),
                ] + urls,
                log: dir + ".log")
            defer { client.stop() }
            driver.run(timeout: .seconds(60)) { client.process.isRunning }
            XCTAssertFalse(client.process.isRunning, "gtlsclient did not finish: \(client.output)")
            for size in sizes {
                XCTAssertEqual(fileSize(dir + "/\(size)"), size, "/bytes/\(size): \(client.output.suffix(2000))")
            }
        }
        // On the resumed connection the server had the requests before its handshake completed.
        let connections = driver.events.compactMap { e -> HTTP3ConnectionHandle? in
            if case .connectionOpened(let c, _) = e { return c } else { return nil }
        }
        XCTAssertEqual(connections.count, 2)
        if let resumed = connections.last {
            let firstRequest = driver.events.firstIndex {
                if case .request(let c, _, _, _, _, _, _) = $0 { return c == resumed } else { return false }
            }
            let handshake = driver.events.firstIndex {
                if case .handshakeCompleted(let c) = $0 { return c == resumed } else { return false }
            }
            XCTAssertNotNil(firstRequest)
            XCTAssertNotNil(handshake)
            if let r = firstRequest, let h = handshake { XCTAssertLessThan(r, h, "requests should arrive as 0-RTT") }
        }
    }
}
