import Foundation

/// `netbench-fuzz TARGET FILE...` without libFuzzer: runs an entry over saved inputs (files, or
/// every file of a directory) and prints one line per input. Exit 0 when no input broke the
/// contract, 1 when one did, 64 for a usage error.
public enum FuzzReplayer {
    public static func main(_ args: [String]) -> Int32 {
        if args.first == "--list" {
            for t in FuzzTarget.allCases { print("\(t.rawValue)\t\(t.summary)") }
            return 0
        }
        guard args.count >= 2, let target = FuzzTarget(rawValue: args[0]) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("usage: netbench-fuzz \(names) FILE_OR_DIR...  (or --list)\n".utf8))
            return 64
        }
        var violations = 0
        for file in inputs(args.dropFirst()) {
            guard let data = FileManager.default.contents(atPath: file) else {
                FileHandle.standardError.write(Data("netbench-fuzz: \(file): cannot be read\n".utf8))
                return 64
            }
            switch target.run([UInt8](data)) {
            case .accepted: print("\(file): accepted")
            case .rejected(let why): print("\(file): rejected: \(why.split(separator: "\n").first ?? "")")
            case .violation(let why):
                violations += 1
                print("\(file): VIOLATION: \(why)")
            }
        }
        return violations == 0 ? 0 : 1
    }

    private static func inputs(_ paths: ArraySlice<String>) -> [String] {
        paths.flatMap { path -> [String] in
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue else { return [path] }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return names.sorted().map { path + "/" + $0 }
        }
    }
}

extension FuzzTarget {
    /// The entry `NETBENCH_FUZZ_TARGET` names (how libFuzzer's driver is told); an unknown or
    /// missing name stops the process with exit 64 before the first input.
    public static func fromEnvironment() -> FuzzTarget {
        let name = ProcessInfo.processInfo.environment["NETBENCH_FUZZ_TARGET"] ?? ""
        guard let t = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("netbench-fuzz: NETBENCH_FUZZ_TARGET '\(name)' is not one of \(names)\n".utf8))
            exit(64)
        }
        return t
    }
}
