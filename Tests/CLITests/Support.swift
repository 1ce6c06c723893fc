import Foundation
import XCTest

/// Runs programs for the tests that go through a shell or the built binary.
enum Program {
    struct Outcome { var status: Int32; var stdout: String; var stderr: String }

    static func run(_ executable: String, _ args: [String], cwd: String? = nil, environment: [String: String]? = nil)
        throws -> Outcome
    {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        if let environment { p.environment = environment }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Read both pipes while the process runs so that a full pipe cannot block it.
        let box = OutputBox()
        let group = DispatchGroup()
        group.enter();
        DispatchQueue.global().async {
            box.setOut(out.fileHandleForReading.readDataToEndOfFile()); group.leave()
        }
        group.enter();
        DispatchQueue.global().async {
            box.setErr(err.fileHandleForReading.readDataToEndOfFile()); group.leave()
        }
        group.wait()
        p.waitUntilExit()
        return Outcome(status: p.terminationStatus, stdout: box.out, stderr: box.err)
    }

    static func tempDirectory(_ test: XCTestCase) -> String {
        let d = NSTemporaryDirectory() + "netbench-cli-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(atPath: d) }
        return d
    }

    /// This process's environment without NETBENCH_HOME (and without CI's hints about the checkout).
    static var environmentWithoutHome: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["NETBENCH_HOME"] = nil
        return env
    }
}

final class OutputBox: @unchecked Sendable {
    private let lock = NSLock()
    private var o = Data(), e = Data()
    func setOut(_ d: Data) { lock.lock(); o = d; lock.unlock() }
    func setErr(_ d: Data) { lock.lock(); e = d; lock.unlock() }
    var out: String { lock.lock(); defer { lock.unlock() }; return String(decoding: o, as: UTF8.self) }
    var err: String { lock.lock(); defer { lock.unlock() }; return String(decoding: e, as: UTF8.self) }
}
