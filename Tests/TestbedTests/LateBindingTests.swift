import Foundation
import XCTest
import BenchCore
import BenchModel
import Runner
import NetbenchCommands
import TestSupport

/// The built-in client asks for resources with Chromium's priorities (ReplayTests.RequestPriorityTests),
/// and the replay server's HTTP/2 decides late what to send (`--late-binding`), so a render-blocking
/// stylesheet that a script asks for while a 1.5 MB image streams overtakes the image. Without late
/// binding the server writes as nginx does, only what the kernel accepts (H2ServerSendQueueTests): the
/// stylesheet waits behind the image bytes the kernel took, never behind a queue of the server's own
/// (before that change it waited ~580 ms here, behind 256 KiB of ciphertext held in user space).
final class LateBindingTests: XCTestCase {
    private let page = Fixture.path("late-binding-page.json")
    private let link = Fixture.path("late-binding-link.json")

    /// Milliseconds from the stylesheet's request to its last byte, per run.
    private func stylesheetWaits(_ lateBinding: LateBinding) throws -> [Double] {
        let out = NSTemporaryDirectory() + "netbench-latebinding-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var request = RunRequest(
            suiteName: "late-binding", scenarios: [(page, try Scenario.load(from: page))],
            profiles: [try Profile.load(from: link)], transports: [.h2], runs: 2, outputDirectory: out)
        request.library = Library(root: packageRoot + "/Scenarios")
        request.server.lateBinding = lateBinding
        request.pageLoads.timeout = .seconds(60)
        let results = try BenchmarkRunner(request: request, netbenchVersion: "test").executeQuietly()
        return try results.runs.map { run in
            XCTAssertEqual(run.status, .ok, run.error ?? "")
            XCTAssertEqual(run.server?.lateBinding, lateBinding.description, "recorded with the run")
            let css = try XCTUnwrap(run.requests.first { $0.id == "css" })
            let image = try XCTUnwrap(run.requests.first { $0.id == "img" })
            let sent = try XCTUnwrap(css.requestSent), done = try XCTUnwrap(css.lastByte)
            XCTAssertLessThan(
                sent, try XCTUnwrap(image.lastByte) - 1000, "the stylesheet is asked for while the image streams")
            return done - sent
        }
    }

    func testAStylesheetAskedForMidImageOvertakesItOnlyWithLateBinding() throws {
        try requireRoot("emulated runs need root (network namespaces and TUN devices)")
        let late = try stylesheetWaits(.standard), queued = try stylesheetWaits(.off)
        // 40 ms round trip: with late binding the stylesheet waits for the bottleneck queue and the
        // 16 KiB the kernel may hold (about 170 ms here); without, behind the image bytes the kernel
        // took (about 130 ms here: its send buffer has not grown large on this link by then).
        XCTAssertLessThan(late.max()!, 400, "late binding: \(late)")
        XCTAssertLessThan(queued.max()!, 400, "no queue of the server's own without late binding: \(queued)")
    }
}
