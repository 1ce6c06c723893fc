import Foundation
import XCTest
import BenchCore
import Runner
import TestSupport
@testable import CommandLineKit
@testable import NetbenchCommands

/// `run --visual-metrics` needs a browser client: with the built-in client alone it is a usage
/// error (exit 64) before any run; `run --help` states how each browser's frames are captured.
final class VisualMetricsOptionTests: XCTestCase {
    let page = packageRoot + "/Scenarios/pages/small-page.json"

    func testVisualMetricsWithoutABrowserIsAUsageError() throws {
        let dir = NSTemporaryDirectory() + "netbench-visual-cli-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let command = try ArgumentParser.parse(
            RunCommand.self, [page, "-n", "1", "-p", "loopback", "--visual-metrics", "-o", dir, "-q"])
        XCTAssertThrowsError(try command.run()) {
            let e = $0 as? BenchError
            XCTAssertEqual(e?.exitCode.rawValue, 64, "\($0)")
            XCTAssertTrue(e?.message.contains("--visual-metrics needs --client chromium or firefox") == true, "\($0)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/results.json"), "no run was made")
    }

    func testHelpStatesTheCaptureOfEachBrowser() {
        let help = HelpFormatter.help(for: RunCommand.self, path: ["netbench", "run"])
        XCTAssertTrue(help.contains("--visual-metrics"), help)
        XCTAssertTrue(help.contains("screenshot every 100 ms"), help)
        XCTAssertTrue(help.contains("PNG screencast"), help)
    }
}
