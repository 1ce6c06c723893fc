import Foundation
import BenchCore
import BenchModel

/// Where netbench finds its shipped scenarios, profiles and suites: `$NETBENCH_HOME/Scenarios`, else
/// the `Scenarios` folder of the checkout the executable was built in (walking up from the
/// executable), else `./Scenarios`.
public struct Library: Sendable {
    public let root: String

    public init(root: String) { self.root = root }

    public static func locate(executablePath: String = CommandLine.arguments.first ?? "") -> Library {
        let fm = FileManager.default
        if let home = ProcessInfo.processInfo.environment["NETBENCH_HOME"], fm.fileExists(atPath: home + "/Scenarios") {
            return Library(root: home + "/Scenarios")
        }
        var dir = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<8 {
            let candidate = dir.appendingPathComponent("Scenarios")
            if fm.fileExists(atPath: candidate.appendingPathComponent("profiles").path) { return Library(root: candidate.path) }
            dir = dir.deletingLastPathComponent()
        }
        return Library(root: fm.currentDirectoryPath + "/Scenarios")
    }

    public var profilesDirectory: String { root + "/profiles" }
    public var suitesDirectory: String { root + "/suites" }
    public var pagesDirectory: String { root + "/pages" }

    /// A profile by name (a file in Scenarios/profiles, case-insensitive; `loopback` is built in) or by path.
    public func profile(_ nameOrPath: String) throws -> Profile {
        if nameOrPath.hasSuffix(".json") || nameOrPath.contains("/") { return try Profile.load(from: nameOrPath) }
        if let file = profileFiles().first(where: { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent.lowercased() == nameOrPath.lowercased() }) {
            return try Profile.load(from: file)
        }
        if nameOrPath.lowercased() == "loopback" { return .loopback }
        let known = (try? allProfiles().map(\.name).joined(separator: ", ")) ?? ""
        throw BenchError.usage("unknown profile '\(nameOrPath)' (known: \(known.isEmpty ? "loopback" : known); or give a profile file)")
    }

    public func profileFiles() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: profilesDirectory)) ?? []
        return files.filter { $0.hasSuffix(".json") }.sorted().map { profilesDirectory + "/" + $0 }
    }

    public func allProfiles() throws -> [Profile] {
        var out = try profileFiles().map { try Profile.load(from: $0) }
        if !out.contains(where: { $0.name.lowercased() == "loopback" }) { out.insert(.loopback, at: 0) }
        return out
    }

    /// A suite by name (Scenarios/suites/NAME.json) or path.
    public func suitePath(_ nameOrPath: String) -> String {
        if nameOrPath.hasSuffix(".json") || nameOrPath.contains("/") { return nameOrPath }
        return suitesDirectory + "/" + nameOrPath + ".json"
    }
}
