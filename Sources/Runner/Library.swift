import Foundation
import BenchCore
import BenchModel

/// Where netbench finds its shipped scenarios, profiles, traces and suites, in this order:
/// `$NETBENCH_HOME/Scenarios` (or `$NETBENCH_HOME` itself when it holds `profiles/`), the
/// `Scenarios` folder of the checkout the executable was built in (walking up from the executable),
/// `./Scenarios`, and `<dir of the executable>/../share/netbench` (what `scripts/install.sh` installs).
public struct Library: Sendable {
    /// Which rule found the library; `netbench doctor` reports it.
    public enum Source: String, Sendable, CustomStringConvertible {
        case environment = "NETBENCH_HOME"
        case checkout = "the checkout the executable was built in"
        case currentDirectory = "the current directory"
        case installed = "installed next to the executable"
        case missing = "not found: set NETBENCH_HOME or run scripts/install.sh"
        case given = "given"
        public var description: String { rawValue }
    }

    public let root: String
    public let source: Source

    public init(root: String, source: Source = .given) {
        self.root = root
        self.source = source
    }

    public static func locate(
        executablePath: String = currentExecutable(),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) -> Library {
        func isLibrary(_ dir: String) -> Bool { FileManager.default.fileExists(atPath: dir + "/profiles") }
        if let home = environment["NETBENCH_HOME"], !home.isEmpty {
            if isLibrary(home + "/Scenarios") { return Library(root: home + "/Scenarios", source: .environment) }
            if isLibrary(home) { return Library(root: home, source: .environment) }
        }
        let binDir = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
        var dir = binDir
        for _ in 0..<8 {
            let candidate = dir.appendingPathComponent("Scenarios").path
            if isLibrary(candidate) { return Library(root: candidate, source: .checkout) }
            dir = dir.deletingLastPathComponent()
        }
        if isLibrary(currentDirectory + "/Scenarios") {
            return Library(root: currentDirectory + "/Scenarios", source: .currentDirectory)
        }
        let installed = binDir.deletingLastPathComponent().appendingPathComponent("share/netbench").standardizedFileURL
            .path
        if isLibrary(installed) { return Library(root: installed, source: .installed) }
        return Library(root: currentDirectory + "/Scenarios", source: .missing)
    }

    /// This executable's path: argv[0] may be a bare name found on PATH, so /proc/self/exe first.
    public static func currentExecutable() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first
            ?? ""
    }

    public var profilesDirectory: String { root + "/profiles" }
    public var suitesDirectory: String { root + "/suites" }
    public var pagesDirectory: String { root + "/pages" }

    /// A profile by name (a file in Scenarios/profiles, case-insensitive; `loopback` is built in) or by path.
    public func profile(_ nameOrPath: String) throws -> Profile {
        if nameOrPath.hasSuffix(".json") || nameOrPath.contains("/") { return try Self.loadProfile(nameOrPath) }
        if let file = profileFiles().first(where: {
            URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent.lowercased() == nameOrPath.lowercased()
        }) {
            return try Self.loadProfile(file)
        }
        if nameOrPath.lowercased() == "loopback" { return .loopback }
        let known = (try? allProfiles().map(\.name).joined(separator: ", ")) ?? ""
        let hint = source == .missing ? "; no scenario library found: set NETBENCH_HOME or run scripts/install.sh" : ""
        throw BenchError.usage(
            "unknown profile '\(nameOrPath)' (known: \(known.isEmpty ? "loopback" : known); or give a profile "
                + "file\(hint))"
        )
    }

    /// Loads and validates a profile file, its delay traces included (they are small; a bad one
    /// is a data error before anything starts).
    static func loadProfile(_ path: String) throws -> Profile {
        let p = try Profile.load(from: path)
        _ = try DelayTraceFile.traces(of: p)
        return p
    }

    public func profileFiles() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: profilesDirectory)) ?? []
        return files.filter { $0.hasSuffix(".json") }.sorted().map { profilesDirectory + "/" + $0 }
    }

    public func allProfiles() throws -> [Profile] {
        var out = try profileFiles().map { try Self.loadProfile($0) }
        if !out.contains(where: { $0.name.lowercased() == "loopback" }) { out.insert(.loopback, at: 0) }
        return out
    }

    /// A suite by name (Scenarios/suites/NAME.json) or path.
    public func suitePath(_ nameOrPath: String) -> String {
        if nameOrPath.hasSuffix(".json") || nameOrPath.contains("/") { return nameOrPath }
        return suitesDirectory + "/" + nameOrPath + ".json"
    }
}
