import Foundation
import BenchCore
import BenchModel
import Reporters
import CommandLineKit

struct MergeCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "merge",
            abstract: "pool the raw runs of the shards of one plan and write the usual reports",
            discussion: """
                Reads each shard's DIR/runs.jsonl (or results.json), checks that every shard ran the same plan \
                (plan digest: scenarios, profiles, suite, transports, runs, seed, netbench version), pools the raw \
                runs (each keeps the host it ran on) and writes into the output directory:
                  results.json, summary.csv, runs.csv, summary.md, report.html
                Statistics are recomputed from the raw samples, never averaged across shards. Runs the plan \
                expects but no shard holds are listed on standard error and in results.json (missingRuns). \
                `netbench check` and `netbench report` work on the merged directory. \
                Shards of `netbench load --shard I/N` (directories with load.json) merge into DIR/load.json: \
                counts summed, latency histograms added exactly (HDR histograms of one layout; others are \
                refused), percentiles and rates recomputed.
                """,
            examples: [
                "netbench merge shard-1 shard-2 shard-3 shard-4 -o merged",
                "netbench merge results/shards/* -o results/merged && netbench check results/merged --baseline "
                    + "results/baseline",
            ],
            exitCodes: [
                ExitCodeDoc(.success, "merged (see standard error for missing runs)"), Netbench.usageExit,
                ExitCodeDoc(
                    .dataError,
                    "unreadable results, shards of different plans or netbench versions, or a run held by two shards"),
            ])
    }

    @Argument("DIR", help: "shard results directories (or their runs.jsonl / results.json)", completion: .directory)
    var inputs: [String]
    @Option("--out", "-o", value: "DIR", help: "where to write the merged results and reports", parse: .directory)
    var out: String?

    func validate() throws {
        guard !inputs.isEmpty else { throw BenchError.usage("merge needs at least one shard directory") }
        guard out != nil else { throw BenchError.usage("merge needs --out DIR (-o DIR)") }
    }

    func run() throws -> ExitCode {
        let out = self.out!
        if LoadMergeInput.holdsLoad(inputs[0]) { return try LoadMergeInput.merge(inputs, into: out) }
        let log = URL(fileURLWithPath: out).appendingPathComponent(ResultsLog.fileName).path
        if FileManager.default.fileExists(atPath: log) {
            throw BenchError.usage("\(out) holds a run's \(ResultsLog.fileName); merge into another directory")
        }
        let shards = try inputs.map { ($0, try ResultsInput.load($0, role: "shard").0) }
        let merged = try ShardMerge.merge(shards)
        for m in merged.missingRuns ?? [] { writeError("missing: \(m)") }
        if let n = merged.missingRuns?.count, n > 0 {
            writeError("netbench merge: \(n) run(s) of the plan are in no shard (a shard missing or interrupted?)")
        }
        try ResultsWriter.write(merged, to: out)
        let hosts = Set(merged.runs.compactMap { $0.host?.hostname }).sorted()
        print(
            "merged \(shards.count) shard(s), \(merged.runs.count) run(s) from \(hosts.count) host(s) "
                + "(\(hosts.joined(separator: ", "))) → \(out)/results.json"
        )
        return .success
    }
}

/// Pools the runs of shards of one plan.
enum ShardMerge {
    struct RunKey: Hashable {
        var scenario: String; var profile: String; var transport: TransportKind; var client: String; var index: Int
    }

    static func merge(_ shards: [(String, ResultsFile)]) throws -> ResultsFile {
        let (firstDir, first) = shards[0]
        for (dir, r) in shards {
            guard let digest = r.planDigest else {
                throw BenchError.data(
                    "\(dir): no planDigest (results of a netbench without plan digests); cannot check that it belongs "
                        + "to the plan"
                )
            }
            if r.netbenchVersion != first.netbenchVersion {
                throw BenchError.data(
                    "\(dir): netbenchVersion is \(r.netbenchVersion); \(firstDir) has \(first.netbenchVersion) (shards "
                        + "must run one netbench version)"
                )
            }
            if digest != first.planDigest {
                let d = PlanComparison.differences(
                    r.suite, version: r.netbenchVersion, against: first.suite, version: first.netbenchVersion)
                throw BenchError.data(
                    "\(dir): planDigest is \(digest); \(firstDir) has \(first.planDigest ?? "")"
                        + (d.isEmpty
                            ? " (the contents of a scenario, profile or suite file differ)"
                            : " (\(d.joined(separator: "; ")) in \(firstDir))"))
            }
        }
        var seen: [RunKey: String] = [:]
        var runs: [RunRecord] = []
        var shardRecords: [ShardRecord] = []
        for (dir, r) in shards {
            for var run in r.runs {
                run.host = run.host ?? r.host
                if run.warmup != true {
                    let key = RunKey(
                        scenario: run.scenario, profile: run.profile, transport: run.transport,
                        client: (run.client ?? .builtin).rawValue, index: run.index)
                    if let other = seen[key] {
                        throw BenchError.data(
                            "\(dir): run \(describe(key)) is also in \(other) (the same shard given twice?)")
                    }
                    seen[key] = dir
                }
                runs.append(run)
            }
            for var s in r.shards ?? [ShardRecord(shard: nil, host: r.host, startedAt: r.startedAt)] {
                s.directory = dir
                shardRecords.append(s)
            }
        }
        var merged = ResultsFile(
            netbenchVersion: first.netbenchVersion, startedAt: shards.map(\.1.startedAt).min() ?? first.startedAt,
            host: first.host, suite: first.suite, runs: sortedInPlanOrder(runs, first.suite))
        merged.planDigest = first.planDigest
        merged.shards = shardRecords
        merged.missingRuns = missing(first.suite, seen: Set(seen.keys))
        return merged
    }

    /// The counted runs the plan expects that no shard holds. With `--runs auto` (runs vary per
    /// cell), a cell with no run at all.
    static func missing(_ suite: SuiteInfo, seen: Set<RunKey>) -> [String] {
        let clients = (suite.client ?? "builtin").split(separator: ",").map(String.init)
        let adaptive = suite.adaptive != nil
        var out: [String] = []
        for p in suite.profiles {
            for s in suite.scenarios {
                for t in suite.transports {
                    for c in clients {
                        if adaptive {
                            if !seen.contains(where: {
                                $0.scenario == s && $0.profile == p.name && $0.transport == t && $0.client == c
                            }) {
                                out.append("\(s) · \(p.name) · \(t.rawValue) · \(c): no run")
                            }
                            continue
                        }
                        for i in 0..<suite.runs
                        where !seen.contains(RunKey(scenario: s, profile: p.name, transport: t, client: c, index: i)) {
                            out.append(
                                describe(RunKey(scenario: s, profile: p.name, transport: t, client: c, index: i)))
                        }
                    }
                }
            }
        }
        return out
    }

    static func describe(_ k: RunKey) -> String {
        "\(k.scenario) · \(k.profile) · \(k.transport.rawValue)\(k.client == "builtin" ? "" : " · " + k.client) · run "
            + "\(k.index + 1)"
    }

    /// The order one unsharded run would have made them in: profile, warm-ups then rounds, scenario, transport.
    static func sortedInPlanOrder(_ runs: [RunRecord], _ suite: SuiteInfo) -> [RunRecord] {
        let p = Dictionary(suite.profiles.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        let s = Dictionary(suite.scenarios.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        let t = Dictionary(suite.transports.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        func key(_ r: RunRecord) -> [Int] {
            [p[r.profile] ?? .max, r.warmup == true ? 0 : 1, r.index, s[r.scenario] ?? .max, t[r.transport] ?? .max]
        }
        return runs.enumerated().sorted { a, b in
            let ka = key(a.element), kb = key(b.element)
            return ka != kb ? ka.lexicographicallyPrecedes(kb) : a.offset < b.offset
        }.map(\.element)
    }
}
