import BenchCore
import BenchModel
import Runner
import Testbed

/// What `run --server` checks of every response against the scenario: the status and the exact
/// body byte count. A mismatch fails the run naming the resource.
public enum RemoteResponseCheck {
    public struct Mismatch: Error, CustomStringConvertible, Equatable {
        public var resourceID: String
        public var url: String
        public var what: String
        public var description: String { "resource '\(resourceID)' (\(url)): \(what)" }
    }

    /// nil when the response matches the scenario's resource.
    public static func check(_ resource: Scenario.Resource, in scenario: Scenario, status: Int, bodyBytes: Int64)
        -> Mismatch?
    {
        let host = scenario.origins.first { $0.id == resource.origin }?.host ?? resource.origin
        let url = "https://\(host)\(resource.path)"
        if status != 200 { return Mismatch(resourceID: resource.id, url: url, what: "status \(status), expected 200") }
        if bodyBytes != resource.bytes {
            return Mismatch(
                resourceID: resource.id, url: url, what: "\(bodyBytes) body bytes, expected exactly \(resource.bytes)")
        }
        return nil
    }
}

/// The scenario content digest `netbench serve` publishes and `run --server` compares:
/// SHA-256 (hex) of the scenario file's bytes.
public enum ScenarioDigest {
    public static func of(fileBytes: [UInt8]) -> String {
        SHA256.hex(fileBytes)
    }

    /// A server serving another scenario (exit 65 at the caller): names the file, the server, and
    /// the scenario and digest expected and served.
    public struct Mismatch: Error, CustomStringConvertible, Equatable {
        public var scenarioFile: String
        public var server: String
        public var expectedName: String
        public var expected: String
        /// The served scenarios as "'name' (sha256 hex)", comma-separated.
        public var served: String
        public var description: String {
            "\(scenarioFile): the server \(server) does not serve this scenario: expected '\(expectedName)' (sha256 "
                + "\(expected)), it serves \(served.isEmpty ? "none" : served)"
        }
    }
}
