import BenchCore

struct VersionCommand: Command {
    static let name = "version"
    static let summary = "print the version"
    static let help = "usage: netbench version\n\nPrints netbench's version."
    static func run(_ args: inout Arguments) throws -> ExitCode {
        _ = try args.positionals()
        print("netbench \(netbenchVersion)")
        return .success
    }
}
