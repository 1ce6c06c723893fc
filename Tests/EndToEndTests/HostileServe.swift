import Foundation
import XCTest
#if canImport(Glibc)
    import Glibc
#endif
import TLS
import TestSupport

/// `netbench serve` (the built binary) as a child process for the hostile-client tests: its port,
/// CA, resident memory from /proc, a well-behaved page load beside the attack, and the summary
/// line it prints when stopped.
final class ServedNetbench {
    let process = Process()
    let dir: String
    let port: UInt16
    let caPEM: String
    private let out = Pipe()
    static let scenario = Fixture.path("small-page.json")

    init(transports: String = "h1,h2", extra: [String] = []) throws {
        dir = NSTemporaryDirectory() + "netbench-hostile-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        process.executableURL = URL(fileURLWithPath: try NetbenchBinary.path)
        process.arguments =
            ["serve", Self.scenario, "-t", transports, "-l", "127.0.0.1:0", "--ca-out", dir + "/ca.pem"] + extra
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var banner = ""
        let deadline = Date().addingTimeInterval(30)
        while !banner.contains("Ctrl-C stops") && Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            banner += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = banner.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
            let p = UInt16(banner[range].split(separator: ":")[1])
        else {
            process.interrupt(); process.waitUntilExit()
            XCTFail("netbench serve did not start: \(banner)")
            throw CocoaError(.fileReadUnknown)
        }
        port = p
        caPEM = try String(contentsOfFile: dir + "/ca.pem", encoding: .utf8)
    }

    var pid: Int32 { process.processIdentifier }

    /// VmRSS and VmHWM (peak) of the server, in KiB.
    func memoryKiB() -> (rss: Int, peak: Int) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return -1 }
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// Open descriptors of a process (the server).
    static func descriptorCount(pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// A well-behaved client: `netbench run --server` loads the whole page once over `transport`.
    /// Returns nil on success, else what went wrong.
    func loadPage(_ transport: String) -> String? {
        let p = Process()
        do { p.executableURL = URL(fileURLWithPath: try NetbenchBinary.path) } catch { return "\(error)" }
        let outDir = dir + "/load-\(UUID().uuidString)"
        p.arguments = [
            "run", Self.scenario, "--server", "127.0.0.1:\(port)", "--ca", dir + "/ca.pem", "-t", transport,
            "-n", "1", "--timeout", "60s", "-o", outDir, "-q",
        ]
        let err = Pipe()
        p.standardOutput = FileHandle.nullDevice
        p.standardError = err
        do { try p.run() } catch { return "\(error)" }
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let log = (try? String(contentsOfFile: outDir + "/runs.jsonl", encoding: .utf8)) ?? ""
        if p.terminationStatus == 0 && log.contains("\"status\":\"ok\"") { return nil }
        return "exit \(p.terminationStatus): \(String(decoding: e, as: UTF8.self).suffix(600)) \(log.suffix(400))"
    }

    /// Stops the server (SIGINT) and returns its closing summary line.
    func stop() -> String {
        guard process.isRunning else { return "" }
        process.interrupt()
        process.waitUntilExit()
        let rest = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        try? FileManager.default.removeItem(atPath: dir)
        return rest.split(separator: "\n").last(where: { $0.contains("closed by limits") }).map(String.init) ?? rest
    }

    /// A count from the summary line, e.g. `count("timed out", in: summary)`.
    static func count(_ label: String, in summary: String) -> Int {
        guard let r = summary.range(of: #"(\d+) "# + label, options: .regularExpression) else { return -1 }
        return Int(summary[r].split(separator: " ")[0]) ?? -1
    }
}

/// Runs `attack` on a thread until `seconds` have passed (it gets the deadline), loads the page
/// beside it, and reports the figures the closing note asks for.
struct HostileRun {
    var loadError: String?
    var baselineKiB: Int
    var peakKiB: Int
    var summary: String
    var attackNote: String

    static func run(
        _ name: String, server: ServedNetbench, transport: String = "h2", seconds: Double = 4,
        attack: @escaping @Sendable (Date) -> String
    ) -> HostileRun {
        // Warm-up: the first page load grows the heap to its working size.
        let warm = server.loadPage(transport)
        let baseline = server.memoryKiB().rss
        let deadline = Date().addingTimeInterval(seconds)
        let note = Mutex2("")
        let done = DispatchSemaphore(value: 0)
        Thread {
            note.set(attack(deadline)); done.signal()
        }.start()
        Thread.sleep(forTimeInterval: min(1, seconds / 3))  // the attack is under way
        let loadError = server.loadPage(transport)
        done.wait()
        let peak = server.memoryKiB().peak
        let summary = server.stop()
        let r = HostileRun(
            loadError: warm.map { "warm-up: " + $0 } ?? loadError, baselineKiB: baseline, peakKiB: peak,
            summary: summary, attackNote: note.get())
        print(
            "HOSTILE \(name): load \(r.loadError == nil ? "ok" : "FAILED") beside the attack; server RSS after warm-up "
                + "\(baseline / 1024) MiB, peak \(peak / 1024) MiB; attack: \(r.attackNote); \(summary)")
        return r
    }
}

final class Mutex2<T>: @unchecked Sendable {
    private var value: T
    private let lock = NSLock()
    init(_ v: T) { value = v }
    func get() -> T { lock.lock(); defer { lock.unlock() }; return value }
    func set(_ v: T) { lock.lock(); value = v; lock.unlock() }
    func modify(_ f: (inout T) -> Void) { lock.lock(); f(&value); lock.unlock() }
}

/// Raises this process's descriptor limit to its hard maximum; returns the soft limit now.
func raiseDescriptorLimit() -> Int {
    var r = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &r)
    r.rlim_cur = r.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &r)
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &r)
    return Int(min(r.rlim_cur, 1 << 30))
}

/// A TCP connection to the server, blocking, with a receive timeout.
final class RawConnection {
    let fd: Int32

    /// `blocking: false` starts a non-blocking connect and returns at once.
    init?(port: UInt16, blocking: Bool = true) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        if !blocking { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if r != 0 && (blocking || errno != EINPROGRESS) { close(fd); return nil }
    }

    deinit { close(fd) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL))
            }
            if n <= 0 { return false }
            done += n
        }
        return true
    }

    /// Up to 64 KiB, nil at end of stream, error or timeout.
    func receive(timeoutMs: Int32 = 5000) -> [UInt8]? {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, timeoutMs) == 1 else { return nil }
        var buf = [UInt8](repeating: 0, count: 65536)
        let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n > 0 ? Array(buf[0..<n]) : nil
    }

    /// Whether the server closed the connection (EOF or reset) within `seconds`, reading and
    /// dropping whatever else it sends meanwhile.
    func closedByPeer(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&p, 1, left) == 1 else { return false }
            var buf = [UInt8](repeating: 0, count: 65536)
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return true }
        }
        return false
    }
}

/// A TLS client over a `RawConnection`, for attackers that speak HTTP after a real handshake.
final class RawTLSClient {
    let connection: RawConnection
    let tls: TLSConnection
    private var plain: [UInt8] = []

    init?(port: UInt16, context: TLSClientContext, host: String = "www.shop.test") {
        guard let c = RawConnection(port: port), let t = try? TLSConnection(client: context, serverName: host) else {
            return nil
        }
        connection = c
        tls = t
        for _ in 0..<20 {
            guard let done = try? tls.handshake() else { return nil }
            flush()
            if done { return }
            guard let bytes = connection.receive() else { return nil }
            bytes.withUnsafeBytes { tls.receiveCiphertext($0) }
        }
        return nil
    }

    static func context(caPEM: String, alpn: [String]) throws -> TLSClientContext {
        try TLSClientContext(TLSClientConfiguration(trustedRootsPEM: caPEM, alpn: alpn, resumption: false))
    }

    private func flush() {
        while tls.hasPendingCiphertext { connection.send(tls.takeCiphertext(max: 65536)) }
    }

    /// Encrypts and sends; false once the server has gone.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n =
                (try? bytes.withUnsafeBytes { try tls.writePlaintext(UnsafeRawBufferPointer(rebasing: $0[done...])) })
                ?? -1
            if n < 0 { return false }
            done += n
            let pending = tls.takeCiphertext(max: 1 << 20)
            if !pending.isEmpty && !connection.send(pending) { return false }
        }
        return true
    }

    /// Decrypted bytes received within `timeoutMs` (empty at end of stream or timeout).
    func receive(timeoutMs: Int32 = 200) -> [UInt8] {
        guard let bytes = connection.receive(timeoutMs: timeoutMs) else { return [] }
        bytes.withUnsafeBytes { tls.receiveCiphertext($0) }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while case .bytes(let n)? = try? buf.withUnsafeMutableBytes({ try tls.readPlaintext(into: $0) }) {
            out += buf[0..<n]
        }
        return out
    }
}
