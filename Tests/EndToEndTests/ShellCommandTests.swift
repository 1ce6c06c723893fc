import Foundation
import XCTest
import TestSupport

/// `netbench shell`: real programs (ping, iperf3, curl) through a profile's emulated network, the
/// host's loopback services reached at $NETBENCH_HOST, exit statuses, and what a kill -9 leaves.
final class ShellCommandTests: XCTestCase {
    var dir = ""
    /// Processes the test started (servers on the host), killed by PID on teardown.
    var started: [Process] = []

    override func setUpWithError() throws {
        try requireRoot("needs root (network namespaces, TUN devices, nftables in the root namespace)")
        try require(FileManager.default.isExecutableFile(atPath: "/usr/sbin/nft"), "nft (scripts/bootstrap.sh)")
        dir = NSTemporaryDirectory() + "netbench-shell-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // 10 Mbit/s each way, 50 ms round trip: 25 ms each way.
        try #"{"schemaVersion": 1, "name": "shell10", "down": "10Mbit", "up": "10Mbit", "rtt": "50ms"}"#
            .write(toFile: profile, atomically: true, encoding: .utf8)
    }

    override func tearDown() {
        for p in started where p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: dir)
    }

    var profile: String { dir + "/shell10.json" }

    /// Runs `netbench ARGS`, killed by PID after `limit` seconds; status, stdout, stderr.
    func runShell(_ args: [String], limit: TimeInterval = 60) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try NetbenchBinary.path)
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let guardTimer = DispatchWorkItem { [pid = p.processIdentifier] in kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: guardTimer)
        let stderr = ShellPipeReader(err.fileHandleForReading)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guardTimer.cancel()
        return (p.terminationStatus, String(decoding: stdout, as: UTF8.self), stderr.text())
    }

    /// Starts a server on the host by its PID and waits until 127.0.0.1:`port` accepts.
    func startHostServer(_ tool: String, _ args: [String], port: UInt16, cwd: String? = nil) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        started.append(p)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if Self.accepts(port: port) { return }
            usleep(50_000)
        }
        XCTFail("\(tool) did not listen on 127.0.0.1:\(port)")
    }

    static func accepts(port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = port.bigEndian
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }

    /// A port nothing on 127.0.0.1 listens on now.
    static func freePort() -> UInt16 {
        while true {
            let port = UInt16.random(in: 20_000...40_000)
            if !accepts(port: port) { return port }
        }
    }

    func testPingToTheHostTakesTheProfilesRoundTrip() throws {
        try require(FileManager.default.isExecutableFile(atPath: "/usr/bin/ping"), "ping (iputils-ping)")
        let r = try runShell(["shell", profile, "--", "sh", "-c", "ping -c 20 -i 0.05 $NETBENCH_HOST"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.err.contains("NETBENCH_HOST=198.19."), r.err)
        let rtts = r.out.split(separator: "\n").compactMap { line -> Double? in
            guard let t = line.range(of: "time=") else { return nil }
            return Double(line[t.upperBound...].prefix { $0 != " " })
        }.sorted()
        XCTAssertEqual(rtts.count, 20, r.out)
        let median = rtts[rtts.count / 2]
        // 50 ms configured; 84-byte packets add 0.13 ms of serialization at 10 Mbit/s, the timer a little.
        XCTAssertGreaterThanOrEqual(median, 50.0, r.out)
        XCTAssertLessThanOrEqual(median, 52.0, r.out)
        XCTAssertTrue(r.err.contains("up   (client → server) 20 packets"), r.err)
        XCTAssertTrue(r.err.contains("release lateness"), r.err)
    }

    func testIperf3FromTheHostGetsTheProfilesRate() throws {
        try require(FileManager.default.isExecutableFile(atPath: "/usr/bin/iperf3"), "iperf3")
        let port = Self.freePort()
        try startHostServer("/usr/bin/iperf3", ["-s", "-B", "127.0.0.1", "-p", "\(port)"], port: port)
        let r = try runShell([
            "shell", profile, "--log", dir, "--", "sh", "-c", "iperf3 -c $NETBENCH_HOST -p \(port) -R -t 3 -J",
        ])
        XCTAssertEqual(r.status, 0, r.err)
        let json = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any]
        let end = json?["end"] as? [String: Any]
        let received = (end?["sum_received"] as? [String: Any])?["bits_per_second"] as? Double ?? 0
        XCTAssertGreaterThanOrEqual(received, 0.80 * 10e6, r.out)
        XCTAssertLessThanOrEqual(received, 1.00 * 10e6, r.out)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("shell-") }
        let logs = files.filter { $0.hasSuffix(".json") }
        XCTAssertEqual(logs.count, 1, "\(files)")
        let log = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/" + logs[0])))
        let down = ((log as? [String: Any])?["paths"] as? [[String: Any]])?.first?["down"] as? [String: Any]
        let forwarded = (down?["forwarded"] as? [String: Any])?["bytes"] as? Int ?? 0
        let packets = (down?["forwarded"] as? [String: Any])?["packets"] as? Int ?? 0
        XCTAssertGreaterThan(Double(forwarded), received * 3 / 8, "the log counts what iperf3 received")
        // The page: the link over time, drawn from the same record.
        let page = try XCTUnwrap(files.first { $0.hasSuffix(".html") }, "\(files)")
        let html = try String(contentsOfFile: dir + "/" + page, encoding: .utf8)
        XCTAssertTrue(html.contains("<svg") && html.contains("The link over time"), "the page draws the link")
        // The Mahimahi link log of the downlink: one arrival line per packet offered; one departure
        // line per packet that left the queue, which includes those forwarded (the shell's stop does not
        // wait for packets still propagating).
        let offered = (down?["received"] as? [String: Any])?["packets"] as? Int ?? 0
        let linkLog = try XCTUnwrap(files.first { $0.hasSuffix("-down.log") }, "\(files)")
        let lines = try String(contentsOfFile: dir + "/" + linkLog, encoding: .utf8).split(separator: "\n")
        let kinds = lines.map { $0.split(separator: " ").dropFirst().first ?? "" }
        XCTAssertEqual(kinds.filter { $0 == "+" }.count, offered)
        let departures = kinds.filter { $0 == "-" }.count
        XCTAssertGreaterThanOrEqual(departures, packets)
        XCTAssertLessThanOrEqual(departures, offered)
        XCTAssertTrue(r.err.contains("queueing delay wifi down p50"), r.err)
    }

    func testCurlDownloadsExactBytesFromTheHost() throws {
        try require(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl")
        try require(FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "python3")
        let www = dir + "/www"
        try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
        let body = Data((0..<300_000).map { _ in UInt8.random(in: 0...255) })
        try body.write(to: URL(fileURLWithPath: www + "/file.bin"))
        let port = Self.freePort()
        try startHostServer(
            "/usr/bin/python3", ["-m", "http.server", "\(port)", "--bind", "127.0.0.1", "--directory", www],
            port: port)
        let r = try runShell([
            "shell", profile, "--", "sh", "-c",
            "curl -sS -o \(dir)/got.bin http://$NETBENCH_HOST:\(port)/file.bin",
        ])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/got.bin")), body)
    }

    func testExitStatuses() throws {
        let missing = try runShell(["shell", profile, "--", "no-such-program-\(UInt32.random(in: 0...99_999))"])
        XCTAssertEqual(missing.status, 127, missing.err)
        XCTAssertTrue(missing.err.contains("no-such-program-"), missing.err)

        let bad = dir + "/bad.json"
        try #"{"schemaVersion": 1, "name": "bad", "down": "fast", "rtt": "50ms"}"#
            .write(toFile: bad, atomically: true, encoding: .utf8)
        let parse = try runShell(["shell", bad, "--", "true"])
        XCTAssertEqual(parse.status, 65, parse.err)
        XCTAssertTrue(parse.err.contains("bad.json") && parse.err.contains("down") && parse.err.contains("fast"))

        let three = try runShell(["shell", profile, "--", "sh", "-c", "exit 3"])
        XCTAssertEqual(three.status, 3, three.err)
        XCTAssertTrue(three.err.contains("exited with 3"), three.err)

        let timed = try runShell(["shell", profile, "--duration", "1s", "--", "sleep", "30"])
        XCTAssertEqual(timed.status, 124, timed.err)

    }

    func testServerShellIsTheOtherEnd() throws {
        try require(FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "python3")
        let server = "python3 -c 'import socket;s=socket.socket();s.setsockopt(1,2,1);s.bind((\"\",7777));"
            + "s.listen();c,_=s.accept();c.sendall(b\"served\");c.close()'"
        let client = "python3 -c 'import socket,os,time\nfor i in range(50):\n try:\n"
            + "  s=socket.create_connection((os.environ[\"NETBENCH_SERVER\"],7777));break\n"
            + " except OSError: time.sleep(0.1)\nprint(s.recv(100).decode())'"
        let r = try runShell(["shell", profile, "--server-shell", server, "--", "sh", "-c", client])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.out.contains("served"), r.out + r.err)
    }

    func testTimedProfileEventsLoopFromCommandsStart() throws {
        // wifi-to-lte: switch to cell at 400 ms; with --loop a cycle is 800 ms (400 + 400).
        let r = try runShell([
            "shell", "wifi-to-lte", "--loop", "--duration", "1700ms", "--log", dir, "--", "sleep", "5",
        ])
        XCTAssertEqual(r.status, 124, r.err)
        let logs = try FileManager.default.contentsOfDirectory(atPath: dir).filter {
            $0.hasPrefix("shell-") && $0.hasSuffix(".json")
        }
        let log = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/" + logs[0])))
        let events = ((log as? [String: Any])?["pathEvents"] as? [[String: Any]]) ?? []
        let switches = events.filter { $0["path"] as? String == "cell" && $0["action"] as? String == "activate" }
            .compactMap { $0["appliedAtMs"] as? Double }
        XCTAssertEqual(switches.count, 2, "at 400 and 1200 ms: \(events)")
        XCTAssertEqual(switches.first ?? 0, 400, accuracy: 50)
        XCTAssertEqual(switches.last ?? 0, 1200, accuracy: 50)
        XCTAssertEqual(((log as? [String: Any])?["paths"] as? [[String: Any]])?.count, 2)

        let once = try runShell(["shell", "wifi-to-lte", "--duration", "1s", "--", "sleep", "5"])
        XCTAssertEqual(once.status, 124, once.err)
        XCTAssertTrue(once.err.contains("path events: wifi down at 4"), once.err)
        XCTAssertFalse(once.err.contains("wifi up"), "without --loop the events play once: \(once.err)")

        let nothing = try runShell(["shell", profile, "--loop", "--", "true"])
        XCTAssertEqual(nothing.status, 64, nothing.err)
    }

    func testInterruptGoesToCommandAndLeavesNothing() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try NetbenchBinary.path)
        p.arguments = ["shell", profile, "--", "sleep", "30"]
        p.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        started.append(p)
        let stderr = ShellPipeReader(err.fileHandleForReading)
        let deadline = Date().addingTimeInterval(30)
        while !Self.children(of: p.processIdentifier).contains(where: { Self.name(of: $0) == "sleep" })
            && Date() < deadline
        { usleep(20_000) }
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        let text = stderr.text()
        XCTAssertEqual(p.terminationStatus, 130, text)
        XCTAssertTrue(text.contains("ended by signal 2"), text)
        let netns = (try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? []
        XCTAssertEqual(netns.filter { $0.hasPrefix("nb-\(p.processIdentifier)-") }, [])
        XCTAssertEqual(nftTables().filter { $0.hasPrefix("nb_\(p.processIdentifier)_") }, [])
    }

    func testTheNextCommandRemovesWhatAKilledShellLeft() throws {
        let victim = Process()
        victim.executableURL = URL(fileURLWithPath: try NetbenchBinary.path)
        victim.arguments = ["shell", profile, "--", "sleep", "60"]
        victim.standardOutput = FileHandle.nullDevice
        victim.standardError = FileHandle.nullDevice
        victim.standardInput = FileHandle.nullDevice
        try victim.run()
        started.append(victim)
        let pid = victim.processIdentifier
        func leftovers() -> [String] {
            let netns = ((try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? [])
                .filter { $0.hasPrefix("nb-\(pid)-") }
            return netns + nftTables().filter { $0.hasPrefix("nb_\(pid)_") }
        }
        let deadline = Date().addingTimeInterval(30)
        var command: Int32?
        while (leftovers().count < 3 || command == nil) && Date() < deadline {
            usleep(50_000)
            command = Self.children(of: pid).first { Self.name(of: $0) == "sleep" }
        }
        XCTAssertEqual(leftovers().count, 3, "two namespaces and the host's NAT table")
        let device = leftovers().first { $0.hasPrefix("nb_") }.map { "nbh" + $0.split(separator: "_").last! }
        XCTAssertTrue(device.map { sysfsNet($0) } ?? false, "the root namespace's end of the veth pair")
        let sleeper = try XCTUnwrap(command, "COMMAND started")
        kill(pid, SIGKILL)
        victim.waitUntilExit()
        XCTAssertEqual(leftovers().count, 3, "kill -9 leaves them behind")
        let gone = Date().addingTimeInterval(5)
        while kill(sleeper, 0) == 0 && Date() < gone { usleep(20_000) }
        XCTAssertNotEqual(kill(sleeper, 0), 0, "COMMAND died with netbench (its death signal)")

        let next = try runShell(["shell", profile, "--", "true"])
        XCTAssertEqual(next.status, 0, next.err)
        XCTAssertEqual(leftovers(), [], "the next command removed them")
        XCTAssertTrue(next.err.contains("left"), next.err)
        if let device {
            let removed = Date().addingTimeInterval(5)
            while sysfsNet(device) && Date() < removed { usleep(20_000) }
            XCTAssertFalse(sysfsNet(device), "\(device) went with the server namespace")
        }
    }

    /// Whether the root namespace has network device `name`.
    func sysfsNet(_ name: String) -> Bool { FileManager.default.fileExists(atPath: "/sys/class/net/\(name)") }

    /// A process's command name (/proc/PID/comm).
    static func name(of pid: Int32) -> String {
        ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The children of `pid`'s main thread (/proc/PID/task/PID/children).
    static func children(of pid: Int32) -> [Int32] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// The root namespace's nftables tables (`nft list tables ip`).
    func nftTables() -> [String] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/nft")
        p.arguments = ["list", "tables", "ip"]
        let out = Pipe()
        p.standardOutput = out
        guard (try? p.run()) != nil else { return [] }
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return text.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
    }
}

/// Reads a pipe to its end on a thread of its own (so stdout and stderr cannot block each other).
final class ShellPipeReader: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)
    init(_ handle: FileHandle) {
        Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }.start()
    }
    func text() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
