import Foundation
import BenchCore

/// The identity of a plan, so that shards, resumes and merges can be checked against each other:
/// SHA-256 over the contents (not the paths) of the scenarios, the profiles and the suite, and over
/// the transports, clients, runs, warm-ups, seed and netbench version. Each field is framed by its
/// name and length, so no two different plans hash the same bytes.
public struct PlanDigest: Sendable {
    public var scenarioContents: [[UInt8]]
    public var profiles: [Profile]
    /// The suite file's bytes, when the plan came from a suite.
    public var suiteContents: [UInt8]?
    public var transports: [TransportKind]
    public var clients: [String]
    /// "10", or "auto(precision,max)" for adaptive runs.
    public var runs: String
    public var warmupRuns: Int
    public var seed: UInt64
    public var netbenchVersion: String

    public init(
        scenarioContents: [[UInt8]], profiles: [Profile], suiteContents: [UInt8]?, transports: [TransportKind],
        clients: [String], runs: String, warmupRuns: Int, seed: UInt64, netbenchVersion: String
    ) {
        self.scenarioContents = scenarioContents; self.profiles = profiles; self.suiteContents = suiteContents
        self.transports = transports; self.clients = clients; self.runs = runs; self.warmupRuns = warmupRuns
        self.seed = seed; self.netbenchVersion = netbenchVersion
    }

    /// `sha256:<64 hex digits>`.
    public func hex() throws -> String {
        var h = SHA256()
        func field(_ name: String, _ bytes: [UInt8]) {
            h.update("\(name):\(bytes.count):")
            h.update(bytes)
        }
        for s in scenarioContents { field("scenario", s) }
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys]
        for p in profiles { field("profile", [UInt8](try enc.encode(p))) }
        if let s = suiteContents { field("suite", s) }
        field("transports", Array(transports.map(\.rawValue).joined(separator: ",").utf8))
        field("clients", Array(clients.joined(separator: ",").utf8))
        field("runs", Array(runs.utf8))
        field("warmup", Array(String(warmupRuns).utf8))
        field("seed", Array(String(seed).utf8))
        field("version", Array(netbenchVersion.utf8))
        return "sha256:" + SHA256.hex(h.finalize())
    }
}
