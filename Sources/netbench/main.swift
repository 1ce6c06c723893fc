#if canImport(Glibc)
import Glibc
#endif
import BenchCore
import Foundation

/// Every subcommand, in the order `netbench --help` lists them.
nonisolated(unsafe) let commands: [any Command.Type] = [
    RunCommand.self,
    ServeCommand.self,
    ProfilesCommand.self,
    CalibrateCommand.self,
    ReportCommand.self,
    CompareCommand.self,
    CheckCommand.self,
    ImportHARCommand.self,
    ScenarioCommand.self,
    DoctorCommand.self,
    VersionCommand.self,
]

let netbenchVersion = "0.1.0"

func usageText() -> String {
    var s = "netbench \(netbenchVersion): page-load benchmarks over TCP+TLS (h1, h2) and QUIC (h3) through an emulated network\n\n"
    s += "usage: netbench <command> [options]\n\ncommands:\n"
    for c in commands { s += "  " + c.name.padding(toLength: 18, withPad: " ", startingAt: 0) + c.summary + "\n" }
    s += "\n'netbench <command> --help' describes a command.\n"
    return s
}

func writeError(_ text: String) {
    var line = text
    if !line.hasSuffix("\n") { line += "\n" }
    FileHandle.standardError.write(line.data(using: .utf8)!)
}

func main() -> Int32 {
    // A peer that goes away (a reset connection, a browser netbench stopped) must not kill netbench.
    signal(SIGPIPE, SIG_IGN)
    var argv = Array(CommandLine.arguments.dropFirst())
    guard let first = argv.first else {
        print(usageText(), terminator: "")
        return ExitCode.usage.rawValue
    }
    if first == "--help" || first == "-h" || first == "help" {
        print(usageText(), terminator: "")
        return 0
    }
    if first == "--version" { print("netbench \(netbenchVersion)"); return 0 }
    argv.removeFirst()
    guard let command = commands.first(where: { $0.name == first }) else {
        writeError("netbench: unknown command '\(first)' (see 'netbench --help')")
        return ExitCode.usage.rawValue
    }
    var args = Arguments(argv, command: command.name)
    if args.wantsHelp {
        print(command.help, terminator: command.help.hasSuffix("\n") ? "" : "\n")
        return 0
    }
    do {
        return try command.run(&args).rawValue
    } catch let e as BenchError {
        writeError("netbench \(command.name): \(e.message)")
        if e.exitCode == .usage { writeError("(see 'netbench \(command.name) --help')") }
        return e.exitCode.rawValue
    } catch {
        writeError("netbench \(command.name): \(error)")
        return ExitCode.runFailed.rawValue
    }
}

exit(main())
