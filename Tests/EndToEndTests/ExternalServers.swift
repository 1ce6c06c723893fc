import Foundation
import XCTest
import TestSupport

/// What a program started by a test printed, and how it ended.
struct ToolOutcome { var status: Int32; var stdout: String; var stderr: String }

/// Helpers for the tests that start real servers (Pushgateway, InfluxDB) and tools (curl, netbench).
extension XCTestCase {
    func execute(_ path: String, _ args: [String], timeout: TimeInterval = 300) throws -> ToolOutcome {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        p.currentDirectoryURL = URL(fileURLWithPath: packageRoot)
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let outData = DataBox(), errData = DataBox()
        let group = DispatchGroup()
        group.enter();
        DispatchQueue.global().async {
            outData.data = out.fileHandleForReading.readDataToEndOfFile(); group.leave()
        }
        group.enter();
        DispatchQueue.global().async {
            errData.data = err.fileHandleForReading.readDataToEndOfFile(); group.leave()
        }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        if p.isRunning { p.terminate(); p.waitUntilExit(); XCTFail("\(path) \(args) timed out") }
        group.wait()
        p.waitUntilExit()
        return ToolOutcome(
            status: p.terminationStatus, stdout: String(decoding: outData.data, as: UTF8.self),
            stderr: String(decoding: errData.data, as: UTF8.self))
    }

    /// A loopback TCP port nobody listens on now (bound to port 0, read back, closed).
    func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0
            }
        }
        XCTAssertTrue(bound)
        return UInt16(bigEndian: addr.sin_port)
    }


    func netbench(_ args: [String]) throws -> ToolOutcome {
        return try execute(NetbenchBinary.path, args)
    }

    /// curl -sS with a 10 s limit and `args`.
    func curl(_ args: [String]) throws -> ToolOutcome {
        guard let curl = executable(["/usr/bin/curl", "/bin/curl"]) else {
            try missingPrerequisite("curl is not installed (scripts/bootstrap.sh --test)")
        }
        return try execute(curl, ["-sS", "--max-time", "10"] + args, timeout: 20)
    }

    /// The first of `paths` that is an executable file.
    func executable(_ paths: [String]) -> String? { paths.first { FileManager.default.isExecutableFile(atPath: $0) } }
}
