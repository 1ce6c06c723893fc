import Foundation

/// `netbench-fuzz TARGET FILE...` without libFuzzer: runs an entry over saved inputs (files, or
/// every file of a directory) and prints one line per input; `--seeds TARGET DIR` writes the seeds
/// an entry makes itself. Exit 0 when no input broke the
/// contract, 1 when one did, 64 for a usage error.
public enum FuzzReplayer {
    public static func main(_ args: [String]) -> Int32 {
        if args.first == "--list" {
            for t in FuzzTarget.allCases { print("\(t.rawValue)\t\(t.summary)") }
            return 0
        }
        if args.first == "--seeds" {
            guard args.count == 3, let target = FuzzTarget(rawValue: args[1]) else {
                FileHandle.standardError.write(Data("usage: netbench-fuzz --seeds TARGET DIR\n".utf8))
                return 64
            }
            return writeSeeds(target, to: args[2])
        }
        guard args.count >= 2, let target = FuzzTarget(rawValue: args[0]) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(
                Data("usage: netbench-fuzz \(names) FILE_OR_DIR...  (or --list, or --seeds TARGET DIR)\n".utf8))
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

    /// Writes the seeds `target` makes itself into `dir` (created); 0, or 1 when a file cannot be written.
    public static func writeSeeds(_ target: FuzzTarget, to dir: String) -> Int32 {
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, bytes) in target.generatedSeeds {
            guard FileManager.default.createFile(atPath: dir + "/" + name, contents: Data(bytes)) else {
                FileHandle.standardError.write(Data("netbench-fuzz: \(dir)/\(name): cannot be written\n".utf8))
                return 1
            }
        }
        return 0
    }

    private static func inputs(_ paths: ArraySlice<String>) -> [String] {
        paths.flatMap { path -> [String] in
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue else {
                return [path]
            }
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
            FileHandle.standardError.write(
                Data("netbench-fuzz: NETBENCH_FUZZ_TARGET '\(name)' is not one of \(names)\n".utf8))
            exit(64)
        }
        return t
    }
}
