import Foundation
import XCTest
import TestSupport
import BenchCore
@testable import Browsers

/// What a Firefox run is set up with (its preferences per protocol) and what stops a run before it
/// starts: no Firefox (exit 2 naming the package), a Firefox too old for WebDriver BiDi (its version).
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
}
