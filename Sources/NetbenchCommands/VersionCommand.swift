import BenchCore
import CommandLineKit

struct VersionCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "version", abstract: "print the version",
            discussion: "Prints netbench's version (also: netbench --version).",
            examples: ["netbench version"], exitCodes: [ExitCodeDoc(.success, "printed")])
    }

    func run() throws -> ExitCode {
        print("netbench \(netbenchVersion)")
        return .success
    }
}
