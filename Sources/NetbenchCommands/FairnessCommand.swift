import Foundation
import BenchCore
import BenchModel
import Runner
import Testbed
import Browsers
import Workloads
import RemoteExecution
import SystemIO
import CommandLineKit

/// `netbench fairness`: the fairness suite (pairs of bulk transfers sharing a link).
struct FairnessCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "fairness",
            abstract: "pairs of bulk transfers on one link: shares, fairness",
            discussion: """
                For each profile (--profile) and each pair of flows (--pairs), starts two bulk downloads at once \
                through the profile's emulated bottleneck, each with its own server whose congestion control is the \
                flow's (TCP: set on the listener and read back from the accepted socket; QUIC: ngtcp2's), runs them \
                for --duration, and records each flow's bytes per 100 ms. A flow's share is its part of both flows' \
                bytes over the window both ran in; Jain's fairness index is (Σx)²/(n·Σx²) of the two. The table \
                gives each flow's mean share with a Student-t 95% interval over --runs runs (clipped to 0-100%; \
                runs interleaved: every pair on every profile once per round), the mean Jain index and both \
                flows' goodput together. Defaults: the interop link (10 Mbit/s, 30 ms, 25-packet \
                queue) and fair50 (50 Mbit/s, 40 ms, one-BDP queue); h3 (cubic, bbr) against TCP (cubic, bbr), then \
                each against its own kind. Needs root (network namespaces and TUN devices).
                """,
            examples: [
                "netbench fairness",
                "netbench fairness --profile interop --pairs h3:cubic/tcp:cubic --duration 10s --runs 3",
                "netbench fairness --output fairness.json",
            ],
            exitCodes: [
                ExitCodeDoc(.success, "every run completed"),
                ExitCodeDoc(
                    .runFailed, "a run failed (its flows did not both carry data) or the network could not be built"),
                Netbench.usageExit, Netbench.dataExit,
                ExitCodeDoc(.noPermission, "no privilege for network namespaces and TUN devices"),
            ])
    }

    @Option(
        "--profile", "-p", value: "LIST", default: ["interop", "fair50"], defaultText: "interop,fair50",
        help: "links, by profile name or file", parse: .list(of: .nonEmpty)) var profileNames: [String]
    @Option(
        "--pairs", value: "LIST",
        help:
            "flow pairs A/B, a flow being h3:CC or tcp:CC (e.g. h3:cubic/tcp:bbr); default: h3 (cubic, bbr) × tcp "
                + "(cubic, bbr), then each against itself",
        parse: .list(of: .nonEmpty)) var pairTexts: [String]?
    @Option(
        "--duration", value: "D", default: 30_000_000_000, defaultText: "30s", help: "how long both flows run",
        parse: .duration(atLeast: 1_000_000_000)) var duration: Nanoseconds
    @Option("--runs", "-n", value: "N", default: 3, help: "runs per pair and profile", parse: .int(1...1000)) var runs:
        Int
    @Option(
        "--output", "-o", value: "FILE.json",
        help: "write every run's flow records (bins, shares, Jain's index) as JSON", parse: .file("json")) var output:
        String?
    @Option("--seed", value: "N", default: 1, help: "seed of the emulator's loss processes", parse: .uint64) var seed:
        UInt64

    func validate() throws { _ = try pairs() }

    func pairs() throws -> [FairnessMatrix.Pair] {
        guard let pairTexts else { return FairnessMatrix.defaultPairs }
        return try pairTexts.map { t in
            guard let p = FairnessMatrix.parsePair(t) else {
                throw BenchError.usage(
                    "--pairs '\(t)': expected A/B with A and B like h3:cubic or tcp:bbr (QUIC: "
                        + "\(CrossFlowSpec.quicCongestionControls.joined(separator: ", ")))"
                )
            }
            return p
        }
    }

    /// What `--output` holds: one entry per run.
    struct RunEntry: Codable {
        var profile: String
        var pair: String
        var run: Int
        var crossTraffic: CrossTrafficRecord?
        var emulatorFlags: [String]?
        var error: String?
    }

    func run() throws -> ExitCode {
        let pairs = try pairs()
        let library = Library.locate()
        let profiles = try profileNames.map { try library.profile($0) }
        try PrivilegeGate.requireEmulation()
        var records: [String: [CrossTrafficRecord]] = [:]
        var entries: [RunEntry] = []
        var failed = false
        for round in 0..<runs {
            for p in profiles {
                for pair in pairs {
                    let label = "\(pair.0) vs \(pair.1)"
                    writeError(
                        "round \(round + 1)/\(runs): \(p.name): \(label) for "
                            + "\(Units.format(Double(duration) / 1e9, 0)) s…"
                    )
                    var entry = RunEntry(profile: p.name, pair: label, run: round)
                    do {
                        let outcome = try CompetingFlowsRun(
                            profile: p, flows: FairnessMatrix.flows(pair, duration: duration), library: library,
                            seed: seed &+ UInt64(round)
                        ).execute()
                        entry.crossTraffic = outcome.record
                        entry.emulatorFlags = outcome.emulatorFlags.isEmpty ? nil : outcome.emulatorFlags
                        if let e = outcome.record.flows.compactMap(\.error).first { entry.error = e }
                        if outcome.record.jainIndex == nil {
                            failed = true; entry.error = entry.error ?? "the flows did not both carry data"
                        } else {
                            records[p.name + "\u{0}" + label, default: []].append(outcome.record)
                        }
                    } catch {
                        failed = true
                        entry.error = "\(error)"
                        writeError("  failed: \(error)")
                    }
                    entries.append(entry)
                    if let output { try AtomicFile.write(try JSONFile.encode(entries), to: output) }
                }
            }
        }
        let rows = profiles.flatMap { p in
            pairs.map { pair in
                FairnessMatrix.row(
                    profile: p.name, pair: pair, records: records[p.name + "\u{0}\(pair.0) vs \(pair.1)"] ?? [])
            }
        }
        print(FairnessMatrix.render(rows))
        return failed ? .runFailed : .success
    }
}
