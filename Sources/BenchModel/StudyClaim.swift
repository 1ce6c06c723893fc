import Foundation
import BenchCore

/// A published claim a suite tests, such as "QUIC loads pages 15% faster than HTTP/2": the
/// candidate's speedup over the baseline (median load time of the baseline / of the candidate,
/// geometric mean over the suite's pages and the claim's profiles) must exceed `minSpeedup`.
/// `netbench study RESULTS --suite SUITE.json` computes it with a bootstrap interval and a verdict.
///
/// ```json
/// "claims": [ {"name": "weak networks", "baseline": "h2", "candidate": "h3", "minSpeedup": 1.20,
///              "profiles": ["3G-loss2", "3G-loss5"], "source": "Tencent QUIC rollout, 2016"} ]
/// ```
public struct StudyClaim: Codable, Hashable, Sendable {
    public var name: String
    /// Where the claim was published (cited in the study's output).
    public var source: String?
    public var baseline: TransportKind
    public var candidate: TransportKind
    /// The claimed speedup, e.g. 1.15 for "15% faster".
    public var minSpeedup: Double
    /// Profile names the claim is about (default: all the suite's profiles).
    public var profiles: [String]?
    /// Scenario names the claim is about (default: all the suite's scenarios).
    public var scenarios: [String]?
    /// The metric compared (default `pltMs`); lower is better.
    public var metric: String?
    /// The client whose runs count (default: the suite's first client, else `builtin`).
    public var client: RunClient?

    public init(
        name: String, source: String? = nil, baseline: TransportKind, candidate: TransportKind, minSpeedup: Double,
        profiles: [String]? = nil, scenarios: [String]? = nil, metric: String? = nil, client: RunClient? = nil
    ) {
        self.name = name; self.source = source; self.baseline = baseline; self.candidate = candidate
        self.minSpeedup = minSpeedup; self.profiles = profiles; self.scenarios = scenarios; self.metric = metric
        self.client = client
    }

    public var metricName: String { metric ?? "pltMs" }

    /// Problems as (key path below `claims[i]`, what is wrong), against the suite's transports and profiles.
    func problems(transports: [TransportKind], profiles suiteProfiles: [String], clients: [RunClient]) -> [(
        String, String
    )] {
        var out: [(String, String)] = []
        if name.isEmpty { out.append(("name", "must not be empty")) }
        for (key, t) in [("baseline", baseline), ("candidate", candidate)] where !transports.contains(t) {
            out.append(
                (
                    key,
                    "'\(t.rawValue)' is not one of the suite's transports "
                        + "(\(transports.map(\.rawValue).joined(separator: ", ")))"
                ))
        }
        if baseline == candidate { out.append(("candidate", "'\(candidate.rawValue)' is also the baseline")) }
        if !(minSpeedup > 0 && minSpeedup < 100) {
            out.append(("minSpeedup", "\(minSpeedup) must be a ratio above 0 (1.15 is 15% faster)"))
        }
        let known = Set(
            suiteProfiles.map {
                $0.hasSuffix(".json") ? URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent : $0
            })
        for (i, p) in (profiles ?? []).enumerated() where !known.contains(p) {
            out.append(
                (
                    "profiles[\(i)]",
                    "'\(p)' is not one of the suite's profiles (\(known.sorted().joined(separator: ", ")))"
                ))
        }
        if let p = profiles, p.isEmpty {
            out.append(("profiles", "must list at least one profile (or be left out: all)"))
        }
        if let c = client, !clients.contains(c) {
            out.append(
                (
                    "client",
                    "'\(c.rawValue)' is not one of the suite's clients "
                        + "(\(clients.map(\.rawValue).joined(separator: ", ")))"
                ))
        }
        if let m = metric, !RunMetrics.names.contains(m) {
            out.append(("metric", "'\(m)' is not one of \(RunMetrics.names.joined(separator: ", "))"))
        }
        return out
    }
}
