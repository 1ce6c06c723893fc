import Foundation
import XCTest

/// A test's prerequisite (a peer installed by `scripts/bootstrap.sh --test`, root, the built binary).
/// Outside CI a missing prerequisite skips the test with its reason; under `CI` (any value) nothing
/// may skip, so the same reason fails the test.
public struct MissingPrerequisite: Error, CustomStringConvertible {
    public let description: String
}

public func require(_ satisfied: Bool, _ reason: @autoclosure () -> String) throws {
    if satisfied { return }
    try missingPrerequisite(reason())
}

public func missingPrerequisite(_ reason: String) throws -> Never {
    if ProcessInfo.processInfo.environment["CI"] != nil {
        throw MissingPrerequisite(description: "required under CI, missing: \(reason)")
    }
    throw XCTSkip(reason)
}

/// Root, for network namespaces, TUN devices and mounts (the machine and CI run the suite as root).
public func requireRoot(_ reason: String = "needs root (network namespaces and TUN devices)") throws {
    try require(geteuid() == 0, reason)
}

/// A TCP congestion control this process may set. Runs set TCP_CONGESTION (cubic unless told
/// otherwise); without root, Linux allows only what net.ipv4.tcp_allowed_congestion_control lists.
public func requireCongestionControl(_ name: String = "cubic") throws {
    let allowed =
        (try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_allowed_congestion_control", encoding: .utf8))
        .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "unknown"
    try require(
        geteuid() == 0 || allowed.split(separator: " ").contains(Substring(name)),
        "TCP congestion control \(name) needs root here (net.ipv4.tcp_allowed_congestion_control: \(allowed))")
}
