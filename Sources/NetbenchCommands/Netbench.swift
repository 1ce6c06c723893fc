import Foundation
import BenchCore
import CommandLineKit
import TLS

public let netbenchVersion = "0.1.0"

/// The root command: every subcommand, in the order `netbench --help` lists them.
public struct Netbench: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "netbench",
            abstract: "page-load benchmarks over TCP+TLS (h1, h2) and QUIC (h3) through an emulated network",
            subcommands: [
                RunCommand.self, ShellCommand.self, ServeCommand.self, LoadCommand.self, PerfCommand.self,
                FairnessCommand.self,
                ResponsivenessCommand.self,
                ProfilesCommand.self, CalibrateCommand.self, ReportCommand.self,
                CompareCommand.self, HistoryCommand.self, CheckCommand.self, StudyCommand.self, MergeCommand.self,
                ImportHARCommand.self, RecordCommand.self, ScenarioCommand.self, DoctorCommand.self,
                CompletionCommand.self, ManCommand.self, VersionCommand.self,
            ],
            version: netbenchVersion)
    }

    public init() {}

    /// Runs a command line (without the program name); returns the exit status.
    public static func main(_ arguments: [String], output: CommandOutput = .standard) -> Int32 {
        OpenSSLLibrary.keepUntilExit()
        return CommandLineTool.main(Netbench.self, arguments, output: output)
    }

    /// The exit codes every command shares (DESIGN.md's contract); commands list the ones they use.
    static let usageExit = ExitCodeDoc(.usage, "usage error (unknown option, bad or missing value)")
    static let dataExit = ExitCodeDoc(.dataError, "bad input data: the message names the file, key path and value")
}

/// Messages on standard error (progress, reports that must not mix with data on stdout).
func writeError(_ text: String) {
    StandardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
}
