import XCTest
import TestSupport
import BenchCore
import LinkModel
import LinkEmulator

/// Skips the test, with the reason, when this process cannot build namespaces and TUN devices;
/// under CI (`CI` set, where the machine runs as root) the missing privilege is a failure instead:
/// in CI nothing may pass without running.
func requireEmulationPrivileges() throws {
    let p = EmulationPrivileges.check()
    try require(p.isSufficient, "integration test needs namespaces and TUN devices: \(p.reason)")
}

/// Names of the network namespaces that exist now.
func namespaceNames() -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
    process.arguments = ["netns", "list"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try? process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
        $0.split(separator: " ").first.map(String.init)
    }
}

/// Output of `ip -n NS args…`.
func ip(_ namespace: String, _ args: [String]) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
    process.arguments = ["-n", namespace] + args
    let pipe = Pipe()
    process.standardOutput = pipe
    try? process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

func median(_ values: [Nanoseconds]) -> Nanoseconds {
    let s = values.sorted()
    return s.isEmpty ? 0 : s[s.count / 2]
}

func percentile(_ values: [Nanoseconds], _ q: Double) -> Nanoseconds {
    let s = values.sorted()
    guard !s.isEmpty else { return 0 }
    return s[min(s.count - 1, max(0, Int((q * Double(s.count)).rounded(.up)) - 1))]
}

struct Deliberate: Error {}
