import Foundation
import BenchCore
import BenchModel
import Testbed
import Runner

/// The emulator while a page loads through it: `netbench calibrate`'s third phase, beside the idle
/// probes and the saturating TCP transfer. A page load is what the emulator meets in a benchmark:
/// the replay server and the client (TLS, HTTP/2 framing, QUIC) compete with its packet loop for
/// the same two cores, so its lateness here is the one the default suite's figures carry.
public struct PageLoadLateness: Sendable {
    public var scenario: String
    public var transport: TransportKind
    /// The emulator record of each load that finished (release lateness, the timer floor measured
    /// before the block, the loop's CPU share and run-queue wait, steal).
    public var emulator: [EmulatorRecord]
    public var pltMs: [Double]
    /// Loads that failed, with their error.
    public var failures: [String]
}

public enum CalibrationPageLoad {
    /// Loads `scenario` `loads` times over each transport through the profile's emulated network,
    /// built as a benchmark run builds it (with the same `emulator` settings), with the
    /// built-in client and the replay server, interleaved; the results go to a temporary directory
    /// that is removed again.
    public static func measure(
        profile: Profile, scenarioPath: String, scenario: Scenario, transports: [TransportKind],
        loads: Int, emulator: EmulatorSettings, library: Library
    ) throws -> [PageLoadLateness] {
        let out = NSTemporaryDirectory() + "netbench-calibrate-page-\(getpid())-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var request = RunRequest(
            suiteName: "calibrate-page", scenarios: [(scenarioPath, scenario)], profiles: [profile],
            transports: transports, runs: loads, outputDirectory: out)
        request.library = library
        request.emulator = emulator
        let runner = BenchmarkRunner(
            request: request, netbenchVersion: "calibrate",
            executors: try TestbedFactory(request: request))
        let results = try runner.execute(observer: Silent()) { _ in }
        return transports.map { t in
            let runs = results.runs.filter { $0.transport == t && $0.warmup != true }
            let finished = runs.filter { $0.status == .ok || $0.emulator?.flagged == true }
            return PageLoadLateness(
                scenario: scenario.name, transport: t,
                emulator: finished.compactMap(\.emulator),
                pltMs: finished.compactMap(\.metrics.pltMs),
                failures: runs.filter { $0.status != .ok && $0.emulator?.flagged != true }.map { $0.error ?? "failed" })
        }
    }
}

/// Calibration prints its own lines; the runner's progress is not shown.
private final class Silent: RunObserver {
    func blockStarting(profile: Profile, runs: Int) {}
    func runStarting(position: Int, total: Int, label: String) {}
    func runFinished(position: Int, total: Int, record: RunRecord) {}
    func notice(_ text: String) {}
}
