import Foundation
import XCTest
import TestSupport
import BenchCore
import BenchModel
import SystemIO
@testable import Testbed
@testable import Browsers

/// What a Firefox run is set up with (its preferences per protocol, the certificates its profile
/// trusts) and what stops a run before it starts: no Firefox (exit 2 naming the package), a Firefox
/// too old for WebDriver BiDi (its version).
final class FirefoxSetupTests: XCTestCase {
    func prefs(_ t: TransportKind) -> [String: FirefoxPreferences.Value] {
        let p = FirefoxPreferences(
            transport: t, hosts: ["a.test", "B.test", "a.test"], serverAddress: "10.0.0.2", port: 4433)
        return Dictionary(p.values, uniquingKeysWith: { a, _ in a })
    }

    func testEachProtocolIsForcedByItsPreferences() {
        let h1 = prefs(.h1), h2 = prefs(.h2), h3 = prefs(.h3)
        XCTAssertEqual(h1["network.http.http2.enabled"], .bool(false))
        XCTAssertEqual(h1["network.http.http3.enable"], .bool(false))
        XCTAssertEqual(h2["network.http.http2.enabled"], .bool(true))
        XCTAssertEqual(h2["network.http.http3.enable"], .bool(false))
        XCTAssertEqual(h3["network.http.http3.enable"], .bool(true))
        XCTAssertEqual(h3["network.http.http3.alt-svc-mapping-for-testing"], .string("a.test;h3=:4433,b.test;h3=:4433"))
        XCTAssertNil(h2["network.http.http3.alt-svc-mapping-for-testing"])
        // No TCP connection raced against a slow QUIC handshake (it won over 4G and the run was not h3).
        XCTAssertEqual(h3["network.http.http3.backup_timer_delay"], .int(3_600_000))
        XCTAssertNil(h2["network.http.http3.backup_timer_delay"])
        for p in [h1, h2, h3] {
            XCTAssertEqual(p["network.dns.forceResolve"], .string("10.0.0.2"))
            XCTAssertEqual(p["network.trr.mode"], .int(5))
        }
        let js = FirefoxPreferences(transport: .h3, hosts: ["a.test"], serverAddress: "10.0.0.2", port: 1).userJS
        XCTAssertTrue(js.contains("user_pref(\"network.dns.forceResolve\", \"10.0.0.2\");\n"), js)
        XCTAssertTrue(js.contains("user_pref(\"network.http.http3.enable\", true);\n"), js)
        XCTAssertTrue(js.contains("user_pref(\"network.trr.mode\", 5);\n"), js)
    }

    /// A recorded page's ports all go to the server's; a synthetic page's URLs name the server's port.
    func testARecordedPageSendsEveryPortToTheServers() {
        var p = FirefoxPreferences(transport: .h2, hosts: ["a.test"], serverAddress: "10.0.0.2", port: 4433)
        XCTAssertNil(Dictionary(p.values, uniquingKeysWith: { a, _ in a })["network.socket.forcePort"])
        p.anyPort = true
        let values = Dictionary(p.values, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(values["network.socket.forcePort"], .string("1-65535=4433"))
    }

    func testFirefoxIsAClientOfItsOwnInLists() {
        XCTAssertEqual(RunClient.parseList("builtin,chromium,firefox"), [.builtin, .chromium, .firefox])
        XCTAssertEqual(RunClient.parseList("firefox"), [.firefox])
        XCTAssertNil(RunClient.parseList("firefox,firefox"))
        XCTAssertNil(RunClient.parseList("safari"))
    }

    func testVersionLines() {
        XCTAssertEqual(FirefoxBrowser.majorVersion("Mozilla Firefox 153.7.0esr"), 153)
        XCTAssertEqual(FirefoxBrowser.majorVersion("Mozilla Firefox 115.0"), 115)
        XCTAssertEqual(FirefoxBrowser.majorVersion("Mozilla Firefox 91"), 91)
        XCTAssertNil(FirefoxBrowser.majorVersion("not a browser"))
    }

    /// A stand-in "firefox" that prints `version` for --version.
    func fakeFirefox(_ version: String) throws -> String {
        let path = NSTemporaryDirectory() + "netbench-fake-firefox-\(UUID().uuidString)"
        try "#!/bin/sh\necho '\(version)'\n".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    func withFirefox<T>(_ path: String, _ body: () throws -> T) rethrows -> T {
        let old = ProcessInfo.processInfo.environment["NETBENCH_FIREFOX"]
        setenv("NETBENCH_FIREFOX", path, 1)
        defer { if let old { setenv("NETBENCH_FIREFOX", old, 1) } else { unsetenv("NETBENCH_FIREFOX") } }
        return try body()
    }

    func testMissingFirefoxStopsBeforeTheFirstRunNamingThePackage() throws {
        try withFirefox("/nonexistent/firefox") {
            XCTAssertThrowsError(try FirefoxLoadFactory().prepare(scenarios: [], notice: { _ in })) { error in
                let e = error as? BenchError
                XCTAssertEqual(e?.exitCode, .runFailed, "exit 2")
                XCTAssertTrue(e?.message.contains("firefox-esr") == true, "\(error)")
            }
        }
    }

    func testAFirefoxTooOldForBiDiIsNamedWithItsVersion() throws {
        let old = try fakeFirefox("Mozilla Firefox 102.15.0esr")
        defer { try? FileManager.default.removeItem(atPath: old) }
        try withFirefox(old) {
            XCTAssertThrowsError(try FirefoxLoadFactory().prepare(scenarios: [], notice: { _ in })) { error in
                let e = error as? BenchError
                XCTAssertEqual(e?.exitCode, .runFailed, "exit 2")
                XCTAssertTrue(e?.message.contains("Mozilla Firefox 102.15.0esr") == true, "\(error)")
                XCTAssertTrue(e?.message.contains("128 or later") == true, "\(error)")
            }
        }
        let current = try fakeFirefox("Mozilla Firefox 153.7.0esr")
        defer { try? FileManager.default.removeItem(atPath: current) }
        XCTAssertEqual(try FirefoxBrowser.checkVersion(current), "Mozilla Firefox 153.7.0esr")
    }

    /// Every certificate of a `--ca` bundle, in order, text around them left out.
    func testABundleSplitsIntoItsCertificates() throws {
        let a = try RunCredentials(hosts: ["a.test"]).caPEM, b = try RunCredentials(hosts: ["b.test"]).caPEM
        let bundle = "# two roots\n" + a + "between\n" + b
        let parts = FirefoxBrowser.certificates(inPEM: bundle)
        XCTAssertEqual(parts.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }, [a, b].map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        })
        XCTAssertEqual(FirefoxBrowser.certificates(inPEM: "no certificate"), [])
    }

    /// The profile's NSS database trusts every certificate of the bundle, not only the first (which is
    /// all certutil takes from one file): two CAs of the same name, as two `serve --ca-out` files are.
    func testTheProfileTrustsEveryCertificateOfTheBundle() throws {
        guard let certutil = FirefoxBrowser.locateCertutil() else {
            try missingPrerequisite("certutil is not installed (libnss3-tools): " + FirefoxBrowser.installHint)
        }
        let dir = NSTemporaryDirectory() + "netbench-firefox-trust-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/profile", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = try RunCredentials(hosts: ["a.test"]).caPEM, b = try RunCredentials(hosts: ["b.test"]).caPEM
        try FirefoxBrowser.trust(caPEM: a + b, profile: dir + "/profile", directory: dir)
        let list = try ChildProcess.run(certutil, ["-L", "-d", "sql:" + dir + "/profile"])
        XCTAssertEqual(list.status, 0, list.stderr)
        let trusted = list.stdout.split(separator: "\n").filter { $0.hasSuffix("C,,  ") || $0.hasSuffix("C,,") }
        XCTAssertEqual(trusted.count, 2, list.stdout)
        for (name, pem) in [("netbench run CA", a), ("netbench run CA 2", b)] {
            let one = try ChildProcess.run(certutil, ["-L", "-d", "sql:" + dir + "/profile", "-n", name, "-a"])
            XCTAssertEqual(one.status, 0, name + ": " + one.stderr)
            // certutil -a ends its lines with CR LF: compared without any white space.
            func base64(_ text: String) -> String { text.filter { !$0.isWhitespace } }
            XCTAssertTrue(base64(one.stdout).contains(base64(pem)), "\(name): \(one.stdout)")
        }
    }

    /// `run --server` without --ca: Firefox keeps to its own roots (the system bundle netbench's probes
    /// read is not imported); with --ca, or the run's own CA, exactly those certificates.
    func testTrustedCertificatesPerCredentials() throws {
        let scenario = Scenario(
            name: "s", origins: [.init(id: "a", host: "a.test")],
            resources: [.init(id: "doc", origin: "a", path: "/", bytes: 10, type: .document)])
        let server = Endpoint(address: 0x7F00_0001, port: 4433)
        func run(_ c: RunCredentials) -> FirefoxPageRun {
            let context = PageLoadContext(
                scenario: scenario, transport: .h2, serverEndpoints: .init(tcp: server, udp: server),
                credentials: c, timeout: .seconds(1))
            return FirefoxPageRun(context: context, server: server, executable: "/nonexistent")
        }
        let ca = try RunCredentials(hosts: ["a.test"])
        XCTAssertEqual(run(ca).trustedPEM, ca.caPEM)
        XCTAssertEqual(run(RunCredentials(caPEM: "PEM")).trustedPEM, "PEM")
        var system = RunCredentials(caPEM: "the system bundle")
        system.systemRoots = true
        XCTAssertEqual(run(system).trustedPEM, "")
    }
}
