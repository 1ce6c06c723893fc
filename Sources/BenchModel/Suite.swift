import Foundation
import BenchCore

/// A suite (schema v1): the matrix scenarios × profiles × transports × runs that `netbench run`
/// executes, interleaved (A B C A B C …) so drift hits every transport alike.
public struct Suite: Codable, Hashable, Sendable {
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int
    public var name: String
    public var description: String?
    /// Scenario files, relative to the suite file; a directory stands for the scenarios in it
    /// (a corpus: the pages its `corpus.json` lists).
    public var scenarios: [String]
    /// Profile names (from Scenarios/profiles) or profile files relative to the suite file.
    public var profiles: [String]
    public var transports: [TransportKind]
    @SuiteRunCount public var runs: Int
    public var warmupRuns: Int?
    public var baselineTransport: TransportKind?
    /// k6-style thresholds checked by `netbench check`, e.g. `"pltMs.p95 < 3000"`.
    public var thresholds: [String]?
    public var seed: UInt64?
    /// "builtin" (default), "chromium", "firefox", or several, e.g. "builtin,chromium,firefox" (interleaved,
    /// side by side).
    public var client: String?
    /// Keep TLS sessions and QUIC tickets between runs (repeat views, QUIC 0-RTT).
    public var repeatView: Bool?
    /// The replay server's TLS record sizing: "dynamic" (default), "16k" or a size (see `TLSRecordPolicy`).
    public var tlsRecords: String?
    /// Browser clients' CPU slowed down this many times (≥ 1; `run --cpu-slowdown`).
    public var cpuSlowdown: Double?
    /// With `"runs": "auto"`: the relative half-width of the median PLT's 95% CI each cell runs to
    /// (default 0.02), the most runs a cell makes (default 30), and how long the whole plan may
    /// take before no new round starts (`"10m"`, `"600s"`; default none).
    public var precision: Double?
    public var maxRuns: Int?
    public var budget: DurationValue?
    /// Published claims the suite tests (`netbench study`); see `StudyClaim`.
    public var claims: [StudyClaim]?

    public init(
        name: String, description: String? = nil, scenarios: [String], profiles: [String],
        transports: [TransportKind], runs: Int, warmupRuns: Int? = nil, baselineTransport: TransportKind? = nil,
        thresholds: [String]? = nil, seed: UInt64? = nil, client: String? = nil
    ) {
        self.schemaVersion = Suite.currentSchemaVersion
        self.name = name; self.description = description; self.scenarios = scenarios; self.profiles = profiles
        self.transports = transports; self.runs = runs; self.warmupRuns = warmupRuns
        self.baselineTransport = baselineTransport; self.thresholds = thresholds; self.seed = seed; self.client = client
    }

    public func validate(file: String) throws {
        var problems = ValidationProblems(file: file, schemaVersion: schemaVersion, reads: Suite.currentSchemaVersion)
        func bad(_ keyPath: String, _ what: String) { problems.add(keyPath, what) }
        if name.isEmpty { bad("name", "must not be empty") }
        if scenarios.isEmpty { bad("scenarios", "must list at least one scenario file") }
        if profiles.isEmpty { bad("profiles", "must list at least one profile") }
        if transports.isEmpty { bad("transports", "must list at least one of h1, h2, h3") }
        if runs < 1 || runs > 100_000 { bad("runs", "\(runs) must be between 1 and 100000") }
        if let w = warmupRuns, w < 0 || w > 1000 { bad("warmupRuns", "\(w) must be between 0 and 1000") }
        if let b = baselineTransport, !transports.contains(b) {
            bad(
                "baselineTransport",
                "'\(b.rawValue)' is not one of the suite's transports "
                    + "(\(transports.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        if let c = client,
            !c.split(separator: ",").allSatisfy({
                ["builtin", "chromium", "firefox"].contains($0.trimmingCharacters(in: .whitespaces))
            })
        {
            bad("client", "'\(c)' is not a list of 'builtin', 'chromium' and 'firefox' (e.g. 'builtin,chromium')")
        }
        if let p = precision, !(p > 0 && p < 1) {
            bad("precision", "\(p) must be a fraction between 0 and 1 (0.02 is ±2%)")
        }
        if let m = maxRuns, m < 5 || m > 100_000 { bad("maxRuns", "\(m) must be between 5 and 100000") }
        if let b = budget, b.nanoseconds <= .zero { bad("budget", "\(b) must be positive") }
        if (precision != nil || maxRuns != nil || budget != nil) && !$runs.isAuto {
            bad("runs", "precision, maxRuns and budget need \"runs\": \"auto\"")
        }
        if let f = cpuSlowdown, !(f >= 1 && f <= 100) { bad("cpuSlowdown", "\(f) must be between 1 and 100") }
        if let t = tlsRecords, TLSRecordPolicy(t) == nil {
            bad("tlsRecords", "'\(t)' is not 'dynamic', '16k' or a record size from 512 B to 16 KiB (e.g. '4KiB')")
        }
        for (i, c) in (claims ?? []).enumerated() {
            let clients = client.flatMap { RunClient.parseList($0) } ?? [.builtin]
            for (key, what) in c.problems(transports: transports, profiles: profiles, clients: clients) {
                bad("claims[\(i)].\(key)", what)
            }
        }
        try problems.throwIfAny()
    }

    /// Loads and validates a suite; scenario paths become absolute (relative to the suite file).
    public static func load(from path: String) throws -> Suite {
        var (s, dir) = try Suite.loadValidated(from: path)
        s.scenarios = try s.scenarios.enumerated().flatMap { i, entry in
            let absolute = entry.hasPrefix("/") ? entry : dir.appendingPathComponent(entry).standardizedFileURL.path
            return try Suite.expandDirectory(absolute, entry: entry, suite: path, key: "scenarios[\(i)]")
        }
        s.profiles = s.profiles.map { p in
            p.hasSuffix(".json") && !p.hasPrefix("/") ? dir.appendingPathComponent(p).standardizedFileURL.path : p
        }
        return s
    }
}

extension Suite: ValidatedFile {
    /// A `scenarios` entry that is a directory (a corpus from `netbench scenario generate --corpus`,
    /// or any folder of scenario files) stands for the scenario files in it (see
    /// `CorpusManifest.scenarioFiles`); a file stands for itself. An entry ending in `/` that is not a
    /// directory is a data error naming the suite, the key and the value.
    static func expandDirectory(_ path: String, entry: String, suite: String, key: String) throws -> [String] {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if exists && isDirectory.boolValue {
            return try CorpusManifest.scenarioFiles(inDirectory: path, suite: suite, key: key, value: entry)
        }
        if entry.hasSuffix("/") {
            throw BenchError.data(
                "\(suite): \(key): '\(entry)' is not a directory (\(exists ? "a file" : "does not exist"))")
        }
        return [path]
    }
}
