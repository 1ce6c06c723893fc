import Foundation
import XCTest
import TestSupport
import BenchCore
import BenchModel
import SystemIO
@testable import Browsers

/// A Chromium that netbench kills (a run that times out, Ctrl-C) leaves nothing in the temporary
/// directory: neither its profile nor the directory of its singleton socket, which Chromium itself
/// removes only when it exits normally.
final class ChromiumTempFilesTests: XCTestCase {
    override func setUpWithError() throws {
        if ChromiumBrowser.locate() == nil {
            try missingPrerequisite("Chromium is not installed: " + ChromiumBrowser.installHint)
        }
    }

    func testAKilledBrowserLeavesNoSocketDirectoryAndNoProfile() throws {
        let flags = ChromiumFlags(
            transport: .h2, hosts: ["example.test"], serverAddress: "127.0.0.1", port: 9, publicKeyPins: [])
        let browser = try ChromiumBrowser(
            executable: ChromiumBrowser.locate()!, arguments: flags.arguments, namespace: nil)
        let link = browser.directory + "/profile/SingletonSocket"
        var target: String?
        let deadline = Date().addingTimeInterval(30)
        while target == nil, Date() < deadline {
            target = try? FileManager.default.destinationOfSymbolicLink(atPath: link)
            if target == nil { usleep(50_000) }
        }
        let socket = try XCTUnwrap(target, "Chromium made no singleton socket within 30 s")
        let socketDirectory = (socket as NSString).deletingLastPathComponent
        XCTAssertTrue(
            (socketDirectory as NSString).lastPathComponent.hasPrefix("org.chromium.Chromium."), socketDirectory)
        XCTAssertTrue(FileManager.default.fileExists(atPath: socketDirectory))

        // Killed, not closed: Chromium gets no chance to clean up after itself.
        ProcessControl.signal(pid: browser.pid, SIGKILL)
        browser.stop(grace: .seconds(5))

        XCTAssertFalse(FileManager.default.fileExists(atPath: socketDirectory), "left behind: \(socketDirectory)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: browser.directory), "left behind: \(browser.directory)")
    }

    func testOnlyAChromiumSocketDirectoryIsRemoved() throws {
        let profile = NSTemporaryDirectory() + "netbench-test-\(UUID().uuidString)"
        let bystander = NSTemporaryDirectory() + "netbench-test-bystander-\(UUID().uuidString)"
        defer {
            try? FileManager.default.removeItem(atPath: profile)
            try? FileManager.default.removeItem(atPath: bystander)
        }
        try FileManager.default.createDirectory(atPath: profile + "/profile", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: bystander, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: profile + "/profile/SingletonSocket", withDestinationPath: bystander + "/SingletonSocket")
        ChromiumBrowser.removeSocketDirectory(ofProfile: profile)
        XCTAssertTrue(FileManager.default.fileExists(atPath: bystander), "a directory not named as Chromium's")
    }
}
