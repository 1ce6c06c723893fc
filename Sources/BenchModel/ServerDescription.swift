import Foundation
import BenchCore

/// What `netbench serve` says about itself at `GET /.well-known/netbench` on every origin, so that
/// `run --server` can refuse a server of another scenario before the first run.
///
/// The body is JSON (for people and tools: `curl https://HOST:PORT/.well-known/netbench`); the same
/// facts travel in response headers, since netbench's own client counts body bytes without keeping
/// them. A scenario must not use this path (`Scenario.validate` refuses it).
public struct ServerDescription: Codable, Sendable, Equatable {
    public static let path = "/.well-known/netbench"
    public static let currentSchemaVersion = 1
    /// Response headers: the netbench version, and per scenario `<sha256 hex> <percent-encoded name>`.
    public static let versionHeader = "netbench-version"
    public static let scenarioHeader = "netbench-scenario"

    public struct ServedScenario: Codable, Sendable, Equatable {
        public var name: String
        /// `ScenarioDigest`: SHA-256 (hex) of the scenario file's bytes.
        public var sha256: String
        public init(name: String, sha256: String) { self.name = name; self.sha256 = sha256 }
    }

    public var schemaVersion: Int
    public var netbenchVersion: String
    public var scenarios: [ServedScenario]

    public init(netbenchVersion: String, scenarios: [ServedScenario]) {
        schemaVersion = Self.currentSchemaVersion; self.netbenchVersion = netbenchVersion; self.scenarios = scenarios
    }

    /// Whether a request path asks for the description (a query is ignored).
    public static func isDescriptionPath(_ requestPath: String) -> Bool {
        // Asked of every request the replay server answers: reject on the prefix before any copy.
        guard requestPath.utf8.count >= path.utf8.count, requestPath.utf8.starts(with: path.utf8) else { return false }
        let rest = requestPath.utf8.dropFirst(path.utf8.count)
        return rest.isEmpty || rest.elementsEqual("/".utf8) || rest.first == UInt8(ascii: "?")
            || (rest.starts(with: "/?".utf8))
    }

    public func jsonBody() -> [UInt8] {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? enc.encode(self)) ?? Data()) + [UInt8(ascii: "\n")]
    }

    public var headers: [(String, String)] {
        [(Self.versionHeader, netbenchVersion)]
            + scenarios.map { (Self.scenarioHeader, "\($0.sha256) \(Self.percentEncoded($0.name))") }
    }

    /// The description carried by a response's headers; nil when they carry none (not netbench serve).
    public init?(headers: [(String, String)]) {
        guard let version = headers.first(where: { $0.0.lowercased() == Self.versionHeader })?.1 else { return nil }
        var served: [ServedScenario] = []
        for (name, value) in headers where name.lowercased() == Self.scenarioHeader {
            // h1 may fold repeated fields into one, comma-separated.
            for item in value.split(separator: ",") {
                let parts = item.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
                guard let digest = parts.first else { continue }
                served.append(
                    ServedScenario(
                        name: parts.count > 1 ? Self.percentDecoded(String(parts[1])) : "",
                        sha256: String(digest).lowercased()))
            }
        }
        self.init(netbenchVersion: version, scenarios: served)
    }

    /// Header-safe: bytes outside printable ASCII, `%`, `,` and space become `%XX`.
    static func percentEncoded(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            if b > 0x20 && b < 0x7f && b != UInt8(ascii: "%") && b != UInt8(ascii: ",") {
                out.unicodeScalars.append(UnicodeScalar(b))
            } else {
                out += String(format: "%%%02X", b)
            }
        }
        return out
    }

    static func percentDecoded(_ s: String) -> String {
        var bytes: [UInt8] = []
        var it = Array(s.utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "%"), it.count >= 2,
                let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(v); it = it.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
