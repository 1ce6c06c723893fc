import Foundation
import XCTest
#if canImport(Glibc)
    import Glibc
#endif
import TestSupport

/// Helpers of the `run --server` tests: servers started by PID, a scenario with two origins, and
/// two namespaces.
extension XCTestCase {
    /// A server in the foreground (stdout and stderr to `log`, `environment` over the test's own),
    /// stopped by PID in the caller's defer.
    func startServer(_ path: String, _ args: [String], log: String, environment: [String: String] = [:]) throws
        -> Process
    {
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        return p
    }

    /// `netbench serve SCENARIO -t h2 -l 127.0.0.1:0 --ca-out DIR/ca.pem` (log DIR/serve.log), started and
    /// listening; its port read from its banner. Stop it with `stop` in the caller's defer.
    func startServe(_ scenario: String, dir: String) throws -> (process: Process, port: String) {
        let log = dir + "/serve.log"
        let serve = try startServer(
            try NetbenchBinary.path, ["serve", scenario, "-t", "h2", "-l", "127.0.0.1:0", "--ca-out", dir + "/ca.pem"],
            log: log)
        guard waitFor("Ctrl-C stops", in: log) else {
            stop(serve)
            XCTFail((try? String(contentsOfFile: log, encoding: .utf8)) ?? "no serve log")
            throw CocoaError(.fileReadUnknown)
        }
        let banner = try String(contentsOfFile: log, encoding: .utf8)
        guard let range = banner.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression) else {
            stop(serve)
            XCTFail("no port in the banner: \(banner)")
            throw CocoaError(.fileReadUnknown)
        }
        return (serve, String(banner[range].split(separator: ":")[1]))
    }

    func stop(_ p: Process) {
        if p.isRunning { kill(p.processIdentifier, SIGTERM) }
        p.waitUntilExit()
    }

    /// Debian's caddy (HTTP/3 from quic-go) running `caddyfile`, once it listens on `port` over TCP and
    /// UDP; its output in DIR/caddy.out and what it autosaves under DIR/home (HOME, XDG_CONFIG_HOME,
    /// XDG_DATA_HOME), as all else in `dir`. The caller stops it (`stop`).
    func startCaddy(
        _ caddyfile: String, dir: String, port: Int, file: StaticString = #filePath, line: UInt = #line
    ) throws -> Process {
        guard let caddy = executable(["/usr/bin/caddy", "/usr/sbin/caddy", "/usr/local/bin/caddy"]) else {
            try missingPrerequisite("caddy is not installed (Debian caddy; scripts/bootstrap.sh --test installs it)")
        }
        let home = dir + "/home"
        let p = try startServer(
            caddy, ["run", "--config", caddyfile, "--adapter", "caddyfile"], log: dir + "/caddy.out",
            environment: ["HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data"])
        let log = { (try? String(contentsOfFile: dir + "/caddy.out", encoding: .utf8)) ?? "" }
        for udp in [false, true] {
            XCTAssertTrue(
                waitForListener(port: port, udp: udp), "caddy did not bind \(port)/\(udp ? "udp" : "tcp"): \(log())",
                file: file, line: line)
        }
        return p
    }

    /// Waits up to 10 s for `text` in the file at `path`.
    func waitFor(_ text: String, in path: String) -> Bool {
        for _ in 0..<200 {
            if let s = try? String(contentsOfFile: path, encoding: .utf8), s.contains(text) { return true }
            usleep(50_000)
        }
        return false
    }

    /// Waits up to 10 s until a socket listens on `port` (TCP) or is bound to it (UDP), read from
    /// /proc/net/{tcp,udp} and their IPv6 twins (a server bound to `[::]`, as caddy is, shows only
    /// there), inside `namespace` when given.
    func waitForListener(port: Int, udp: Bool, namespace: String? = nil) -> Bool {
        let tables = udp ? ["/proc/net/udp", "/proc/net/udp6"] : ["/proc/net/tcp", "/proc/net/tcp6"]
        let needle = String(format: ":%04X ", port)
        for _ in 0..<200 {
            let text = tables.map { table in
                if let namespace {
                    return (try? execute("/usr/sbin/ip", ["netns", "exec", namespace, "cat", table]).stdout) ?? ""
                }
                return (try? String(contentsOfFile: table, encoding: .utf8)) ?? ""
            }.joined(separator: "\n")
            // local_address is the second column; TCP listeners are in state 0A.
            if text.split(separator: "\n").contains(where: { line in
                let cols = line.split(separator: " ")
                return cols.count > 3 && cols[1].hasSuffix(needle.dropLast()) && (udp || cols[3] == "0A")
            }) {
                return true
            }
            usleep(50_000)
        }
        return false
    }

    /// `netbench ARGS` (inside `namespace` when given, through `ip netns exec`), with extra environment.
    func netbenchRun(_ args: [String], namespace: String? = nil, environment: [String: String] = [:]) throws
        -> ToolOutcome
    {
        let p = Process()
        if let namespace {
            p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            p.arguments = ["netns", "exec", namespace, try NetbenchBinary.path] + args
        } else {
            p.executableURL = URL(fileURLWithPath: try NetbenchBinary.path)
            p.arguments = args
        }
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let errData = DataBox()
        let group = DispatchGroup()
        group.enter();
        DispatchQueue.global().async {
            errData.data = err.fileHandleForReading.readDataToEndOfFile(); group.leave()
        }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return ToolOutcome(
            status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
            stderr: String(decoding: errData.data, as: UTF8.self))
    }

    /// The runs of DIR/results.json.
    func resultRuns(_ dir: String) throws -> [[String: Any]] {
        let json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/results.json")))
            as? [String: Any]
        return try XCTUnwrap(json?["runs"] as? [[String: Any]], "no runs in \(dir)/results.json")
    }

    /// Body bytes of a run's requests.
    func bodyBytes(_ run: [String: Any]) -> Int {
        ((run["requests"] as? [[String: Any]]) ?? []).compactMap { ($0["bytes"] as? NSNumber)?.intValue }.reduce(0, +)
    }

    /// A scenario with two origins (written to DIR/NAME.json); `imageBytes` varies the second resource.
    func writeTwoOriginScenario(_ dir: String, name: String = "s", imageBytes: Int = 150_000) throws -> String {
        let path = dir + "/\(name).json"
        try """
        {"schemaVersion":1,"name":"remote","origins":[{"id":"a","host":"a.example"},{"id":"b","host":"b.example"}],
         "resources":[{"id":"doc","origin":"a","path":"/","bytes":30000,"type":"document"},
                      {"id":"img","origin":"b","path":"/i.png","bytes":\(imageBytes),"type":"image","parent":"doc"}]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

/// Two network namespaces joined by a veth pair: the server side at `serverAddress`, the client at
/// `clientAddress` (198.19.0.0/16, inside the benchmarking range 198.18.0.0/15). Names are unique
/// per process and call; `remove()` deletes both namespaces (and with them the veth pair).
final class TwoNamespaces {
    let server: String
    let client: String
    let serverAddress: String
    let clientAddress: String

    init() throws {
        let tag = "\(getpid() % 100_000)-\(Int.random(in: 0..<1000))"
        server = "nb-\(tag)-srv"
        client = "nb-\(tag)-cli"
        let octet = Int.random(in: 1..<250)
        serverAddress = "198.19.\(octet).1"
        clientAddress = "198.19.\(octet).2"
        let vs = "nbs\(tag.replacingOccurrences(of: "-", with: ""))".prefix(15),
            vc = "nbc\(tag.replacingOccurrences(of: "-", with: ""))".prefix(15)
        do {
            try Self.ip(["netns", "add", server])
            try Self.ip(["netns", "add", client])
            try Self.ip([
                "link", "add", String(vs), "netns", server, "type", "veth", "peer", "name", String(vc), "netns", client,
            ])
            for (ns, dev, addr) in [(server, String(vs), serverAddress), (client, String(vc), clientAddress)] {
                try Self.ip(["-n", ns, "addr", "add", addr + "/24", "dev", dev])
                try Self.ip(["-n", ns, "link", "set", dev, "up"])
                try Self.ip(["-n", ns, "link", "set", "lo", "up"])
            }
        } catch {
            remove()
            throw error
        }
    }

    func remove() {
        for ns in [server, client] { try? Self.ip(["netns", "del", ns]) }
    }

    static func ip(_ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        p.arguments = args
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        if p.terminationStatus != 0 {
            throw NSError(
                domain: "ip", code: Int(p.terminationStatus),
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "ip \(args.joined(separator: " ")): \(String(decoding: e, as: UTF8.self))"
                ])
        }
    }
}
