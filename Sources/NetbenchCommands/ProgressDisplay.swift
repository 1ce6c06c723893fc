import Foundation
import BenchCore
import BenchModel
import Runner
import Testbed
import Browsers
import Workloads
import RemoteExecution
import SystemIO

/// Progress on standard error: one line per run with its outcome, so long runs show where they are
/// and a log of the run remains.
final class ProgressDisplay: RunObserver {
    private var blockStart = Date()
    /// The runner's latest estimate for the remaining runs (each cell's own run time, or its ideal).
    private var etaSeconds: Double?
    /// `--quiet` / `--json`: nothing on standard error but errors.
    private let silent: Bool

    init(silent: Bool = false) { self.silent = silent }

    func line(_ text: String) {
        if silent { return }
        StandardError.write((text + "\n").data(using: .utf8)!)
    }

    func blockStarting(profile: Profile, runs: Int) {
        blockStart = Date()
        line("profile \(profile.name): \(profile.summary) — \(runs) run(s)")
    }

    func runStarting(position: Int, total: Int, label: String) {}

    func runFinished(position: Int, total: Int, record: RunRecord) {
        var outcome: String
        if record.status == .ok {
            outcome =
                "PLT " + fmt(record.metrics.pltMs ?? record.metrics.idealPltMs) + " ms, TTFB "
                + fmt(record.metrics.ttfbMs) + " ms"
            if let g = record.metrics.goodputMbps { outcome += ", \(Units.format(g, 2)) Mbit/s" }
            if record.emulator?.flagged == true { outcome += " (emulator fell behind: flagged)" }
        } else {
            outcome = "FAILED: " + (record.error ?? "unknown error")
        }
        let client = record.client.map { $0 == .builtin ? "" : "\($0.rawValue) · " } ?? ""
        let label =
            "\(record.scenario) · \(record.profile) · \(client)\(record.transport.rawValue) · "
            + (record.warmup == true ? "warm-up" : "run \(record.index + 1)")
        pending = "\(label): \(outcome)"
    }

    private var pending: String?

    /// Comes right after `runFinished`: the line is printed with the ETA of the runs left.
    func progress(_ p: RunProgress) {
        guard let text = pending else { return }
        pending = nil
        let bound = p.isUpperBound ? "≤ " : ""
        let eta = p.etaSeconds.map { "eta \(bound)\(Self.duration($0))" } ?? "eta unknown"
        line("[\(p.position)/\(bound)\(p.total)] " + text + "  (\(eta))")
    }

    static func duration(_ s: Double) -> String {
        let t = Int(s.rounded())
        if t < 120 { return "\(t) s" }
        if t < 7200 { return "\(t / 60) min \(t % 60) s" }
        return "\(t / 3600) h \(t % 3600 / 60) min"
    }

    func notice(_ text: String) { line(text) }

    private func fmt(_ v: Double?) -> String { v.map { Units.format($0, 1) } ?? "-" }
}

/// SIGINT/SIGTERM: the first asks the run to stop after cleanup; the second exits at once.
final class InterruptHandler: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private var count = 0

    init(message: String = "finishing the current run and cleaning up", _ onInterrupt: @escaping @Sendable () -> Void) {
        for sig in [SIGINT, SIGTERM] {
            ProcessControl.setIgnored(sig, true)
            let src = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            src.setEventHandler { [weak self] in
                guard let self else { return }
                self.count += 1
                if self.count > 1 { _exit(130) }
                StandardError.write(
                    "\nnetbench: interrupted; \(message) (Ctrl-C again to quit at once)\n".data(using: .utf8)!)
                onInterrupt()
            }
            src.resume()
            sources.append(src)
        }
    }

    func remove() {
        for s in sources { s.cancel() }
        sources.removeAll()
        ProcessControl.setIgnored(SIGINT, false)
        ProcessControl.setIgnored(SIGTERM, false)
    }
}
