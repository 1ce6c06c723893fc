import Foundation
import BenchCore

/// Where a tool's output goes; tests capture it, the executable writes to the standard streams.
public struct CommandOutput: Sendable {
    public var out: @Sendable (String) -> Void
    public var err: @Sendable (String) -> Void

    public init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void) {
        self.out = out
        self.err = err
    }

    /// A stream whose reader went away takes nothing more and the command goes on (`StandardError`).
    public static let standard = CommandOutput(
        out: { StandardOutput.write(Data($0.utf8)) },
        err: { StandardError.write(Data($0.utf8)) })
}

/// Finds the command a command line names (walking subcommands), answers `--help`, `help CMD` and
/// `--version`, parses, validates and runs it, and turns errors into exit codes.
public enum CommandLineTool {
    /// The command a command line selects, the names on its path, and its own arguments.
    public struct Resolution {
        public var command: any ParsableCommand.Type
        public var path: [String]
        public var arguments: [String]
        public var wantsHelp: Bool
    }

    public static func resolve(_ root: any ParsableCommand.Type, _ arguments: [String]) throws -> Resolution {
        var current = root
        var path = [root.configuration.name]
        var rest = arguments
        if rest.first == "help" {  // `netbench help scenario generate`
            rest.removeFirst()
            var r = try resolve(root, rest)
            r.wantsHelp = true
            return r
        }
        while !current.configuration.subcommands.isEmpty, let first = rest.first, !first.hasPrefix("-") {
            guard let sub = current.configuration.subcommands.first(where: { $0.configuration.name == first }) else {
                let names = current.configuration.subcommands.map { $0.configuration.name }
                if path.count == 1 { throw BenchError.usage("unknown command '\(first)'") }
                throw BenchError.usage("unknown subcommand '\(first)': \(names.joined(separator: ", "))")
            }
            current = sub
            path.append(first)
            rest.removeFirst()
        }
        let options = rest.prefix { $0 != "--" }
        return Resolution(
            command: current, path: path, arguments: rest,
            wantsHelp: options.contains("--help") || options.contains("-h"))
    }

    /// Runs a command line and returns the process exit status.
    public static func main(_ root: any ParsableCommand.Type, _ arguments: [String], output: CommandOutput = .standard)
        -> Int32
    {
        let rootName = root.configuration.name
        if arguments.isEmpty {
            output.out(HelpFormatter.help(for: root, path: [rootName]))
            return ExitCode.usage.rawValue
        }
        if arguments == ["--version"], let v = root.configuration.version {
            output.out("\(rootName) \(v)\n")
            return ExitCode.success.rawValue
        }
        var path = [rootName]
        do {
            let r = try resolve(root, arguments)
            path = r.path
            if r.wantsHelp {
                output.out(HelpFormatter.help(for: r.command, path: r.path))
                return ExitCode.success.rawValue
            }
            let command = try ArgumentParser.parse(any: r.command, r.arguments)
            return try command.run().rawValue
        } catch let e as BenchError {
            let who = path.joined(separator: " ")
            output.err("\(who): \(e.message)\n")
            if e.exitCode == .usage { output.err("(see '\(who) --help')\n") }
            return e.exitCode.rawValue
        } catch {
            output.err("\(path.joined(separator: " ")): \(error)\n")
            return ExitCode.runFailed.rawValue
        }
    }

    /// Every command under `root` with its path, depth first, root included.
    public static func allCommands(_ root: any ParsableCommand.Type) -> [(
        path: [String], command: any ParsableCommand.Type
    )] {
        func walk(_ c: any ParsableCommand.Type, _ path: [String]) -> [(
            path: [String], command: any ParsableCommand.Type
        )] {
            [(path, c)] + c.configuration.subcommands.flatMap { walk($0, path + [$0.configuration.name]) }
        }
        return walk(root, [root.configuration.name])
    }
}
