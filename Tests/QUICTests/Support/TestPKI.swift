import Foundation
import QUIC

/// A throwaway CA and a server certificate for `localhost` / 127.0.0.1, made with the openssl
/// command line once per test process; its files are removed when the process exits.
struct TestPKI: Sendable {
    let directory: String
    let caPEM: String
    let serverCertPEM: String
    let serverKeyPEM: String

    var caFile: String { directory + "/ca.pem" }
    var certFile: String { directory + "/server.pem" }
    var keyFile: String { directory + "/server.key" }

    var credentials: QUICServerCredentials {
        QUICServerCredentials(certificateChainPEM: serverCertPEM, privateKeyPEM: serverKeyPEM)
    }

    static let shared: TestPKI = {
        do { return try make() } catch { fatalError("cannot create test certificates: \(error)") }
    }()

    /// A new CA and a server certificate for `name` (plus 127.0.0.1).
    static func make(name: String = "localhost") throws -> TestPKI {
        let dir = NSTemporaryDirectory() + "netbench-quic-pki-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        TestPKIDirectories.all.removeAtExit(dir)
        let ext = dir + "/san.ext"
        try "subjectAltName=DNS:\(name),IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
            .write(toFile: ext, atomically: true, encoding: .utf8)
        try run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                "-nodes", "-keyout", dir + "/ca.key", "-out", dir + "/ca.pem", "-days", "3",
                "-subj", "/CN=netbench test CA",
                "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        try run(
            "/usr/bin/openssl",
            [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                "-nodes", "-keyout", dir + "/server.key", "-out", dir + "/server.csr",
                "-subj", "/CN=\(name)",
            ])
        try run(
            "/usr/bin/openssl",
            [
                "x509", "-req", "-in", dir + "/server.csr", "-CA", dir + "/ca.pem",
                "-CAkey", dir + "/ca.key", "-CAcreateserial", "-out", dir + "/server.pem",
                "-days", "3", "-extfile", ext,
            ])
        return TestPKI(
            directory: dir,
            caPEM: try String(contentsOfFile: dir + "/ca.pem", encoding: .utf8),
            serverCertPEM: try String(contentsOfFile: dir + "/server.pem", encoding: .utf8),
            serverKeyPEM: try String(contentsOfFile: dir + "/server.key", encoding: .utf8))
    }

    static func run(_ tool: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw NSError(
                domain: "TestPKI", code: Int(p.terminationStatus),
                userInfo: [NSLocalizedDescriptionKey: "\(tool) \(arguments.joined(separator: " ")) failed"])
        }
    }
}

/// The PKI directories this test process made, removed when it exits (tests read the files by
/// path until then, so they cannot go sooner).
private final class TestPKIDirectories: @unchecked Sendable {
    static let all = TestPKIDirectories()
    private let lock = NSLock()
    private var paths: [String] = []

    func removeAtExit(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        if paths.isEmpty { atexit { TestPKIDirectories.all.removeAll() } }
        paths.append(path)
    }

    func removeAll() {
        lock.lock()
        let gone = paths
        paths = []
        lock.unlock()
        for p in gone { try? FileManager.default.removeItem(atPath: p) }
    }
}
