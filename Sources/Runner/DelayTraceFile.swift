import Foundation
import BenchCore
import BenchModel
import LinkModel

/// Reading a profile's delay traces (`downDelayTrace`, `upDelayTrace`): one place, used when a
/// profile is loaded (so a bad trace fails before anything starts) and when it becomes a link.
public enum DelayTraceFile {
    /// The trace at `path`; a data error (exit 65) naming the profile, the key, the file, the line
    /// and the value when it cannot be read or does not parse.
    public static func load(_ path: String, key: String, profile: String) throws -> DelayTrace {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw BenchError.data("profile '\(profile)': \(key): cannot read delay trace file \(path)")
        }
        do { return try DelayTrace.parse(text: text) } catch {
            throw BenchError.data("profile '\(profile)': \(key): \(path): delay \(error)")
        }
    }

    /// Both directions' traces, nil where the profile has none.
    public static func traces(of p: Profile) throws -> (down: DelayTrace?, up: DelayTrace?) {
        (
            try p.downDelayTrace.map { try load($0, key: "downDelayTrace", profile: p.name) },
            try p.upDelayTrace.map { try load($0, key: "upDelayTrace", profile: p.name) }
        )
    }
}
