import BenchCore

/// The inputs netbench reads from files and from the network, each as one fuzz entry: bytes in,
/// an outcome out. `netbench-fuzz` runs an entry under libFuzzer (built with `-D FUZZING`) or
/// over files given on its command line, and the regression tests replay saved inputs through the
/// same entries, so a crash the fuzzer found and its test exercise exactly the same code.
///
/// An entry never decides that an input is "good": it checks the contract every input must meet.
/// File parsers either accept the bytes or throw a `BenchError` of exit class 65 whose every
/// line names the file; network parsers either accept or report a parse error, and their event
/// sequences stay well formed. Anything else is a `.violation`; a trap is a crash.
public enum FuzzTarget: String, CaseIterable, Sendable {
    case scenario, profile, suite, results, report
    case runsLog = "runs-log"
    case har, trace
    case http1Request = "http1-request"
    case http1Response = "http1-response"
    case quicServer = "quic-server"
    case h3Streams = "h3-streams"

    /// The name the inputs are reported under (errors must start with it).
    public var fileName: String {
        switch self {
        case .scenario: "fuzz-scenario.json"
        case .profile: "fuzz-profile.json"
        case .suite: "fuzz-suite.json"
        case .results, .report: "fuzz-results.json"
        case .runsLog: "fuzz-runs.jsonl"
        case .har: "fuzz.har"
        case .trace: "fuzz.trace"
        case .http1Request, .http1Response, .quicServer, .h3Streams: "(network)"
        }
    }

    /// What the entry feeds the bytes to, for `--list` and the script's report.
    public var summary: String {
        switch self {
        case .scenario: "Scenario JSON decode + validate, summary figures"
        case .profile: "Profile JSON decode + validate, summary line"
        case .suite: "Suite JSON decode + validate"
        case .results: "results.json decode (schema check first), re-encode"
        case .report: "results.json through every report format (statistics, CSV, Markdown, HTML, metrics)"
        case .runsLog: "runs.jsonl reader (header, runs, cut-off line), as results"
        case .har: "HAR import (decode, redirects, dependencies, scenario), re-validate"
        case .trace: "Mahimahi trace parse, then a trace-driven queue"
        case .http1Request: "HTTP/1.1 request parser (server side), fed in pieces"
        case .http1Response: "HTTP/1.1 response parser (client side), fed in pieces"
        case .quicServer: "HTTP/3 server: datagrams from several peers, writes and timers"
        case .h3Streams:
            "HTTP/3 server past decryption: stream bytes (control, QPACK, requests) after an in-memory handshake"
        }
    }
}

/// What one input did.
public enum FuzzOutcome: Equatable, Sendable {
    /// The input was accepted.
    case accepted
    /// The input was refused the way the contract says (a one-line data error, a parse error).
    case rejected(String)
    /// The contract was broken: the message says how. The harness turns this into a crash.
    case violation(String)

    public var isViolation: Bool { if case .violation = self { true } else { false } }
}

extension FuzzTarget {
    /// Runs the entry on `bytes`.
    public func run(_ bytes: [UInt8]) -> FuzzOutcome {
        switch self {
        case .scenario: ModelEntries.scenario(bytes, file: fileName)
        case .profile: ModelEntries.profile(bytes, file: fileName)
        case .suite: ModelEntries.suite(bytes, file: fileName)
        case .results: ModelEntries.results(bytes, file: fileName)
        case .report: ModelEntries.report(bytes, file: fileName)
        case .runsLog: ModelEntries.runsLog(bytes, file: fileName)
        case .har: ModelEntries.har(bytes, file: fileName)
        case .trace: CodecEntries.trace(bytes)
        case .http1Request: CodecEntries.http1Request(bytes)
        case .http1Response: CodecEntries.http1Response(bytes)
        case .quicServer: QUICServerEntry.run(bytes)
        case .h3Streams: HTTP3StreamEntry.run(bytes)
        }
    }

    /// Seed inputs the entry makes itself (real protocol bytes); empty for entries seeded from files.
    public var generatedSeeds: [(name: String, bytes: [UInt8])] {
        self == .h3Streams ? HTTP3StreamEntry.seeds() : []
    }

    /// The contract of a file parser's error: exit class 65, every line naming `file`, no line empty.
    static func checkDataError(_ error: any Error, file: String) -> FuzzOutcome {
        guard let e = error as? BenchError else {
            return .violation("threw \(type(of: error)) instead of a BenchError: \(error)")
        }
        guard e.exitCode == .dataError else {
            return .violation("exit class \(e.exitCode) instead of 65: \(e.message)")
        }
        let lines = e.message.split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines where !line.hasPrefix(file) {
            return .violation("an error line does not name the file: \(line)")
        }
        return .rejected(e.message)
    }
}
