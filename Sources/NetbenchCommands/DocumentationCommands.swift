import Foundation
import BenchCore
import CommandLineKit

/// `netbench completion bash|zsh`: the shell completion script, generated from the declarations.
struct CompletionCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "completion",
            abstract: "print a bash or zsh completion script",
            discussion:
                "Completes commands, subcommands, options and their values (transports, profiles' files, directories) "
                    + "from the same declarations as --help.",
            examples: [
                "source <(netbench completion bash)",
                "netbench completion bash > /etc/bash_completion.d/netbench",
                "netbench completion zsh > \"${fpath[1]}/_netbench\"",
            ],
            exitCodes: [ExitCodeDoc(.success, "printed"), Netbench.usageExit])
    }

    @Argument("SHELL", help: "bash or zsh", completion: .choices(CompletionScript.Shell.allCases.map(\.rawValue)))
    var shellName: String

    func validate() throws {
        if CompletionScript.Shell(rawValue: shellName) == nil {
            throw BenchError.usage("SHELL '\(shellName)': expected bash or zsh")
        }
    }

    func run() throws -> ExitCode {
        print(
            CompletionScript.render(Netbench.self, shell: CompletionScript.Shell(rawValue: shellName)!), terminator: "")
        return .success
    }
}

/// `netbench man`: the man page, generated from every command's own help.
struct ManCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "man",
            abstract: "print the man page netbench(1), generated from the commands' help",
            examples: ["netbench man | man -l -", "netbench man -o /usr/local/share/man/man1/netbench.1"],
            exitCodes: [ExitCodeDoc(.success, "written"), Netbench.usageExit])
    }

    @Option("--output", "-o", value: "FILE", help: "write the page to FILE instead of stdout", parse: .file("1"))
    var output: String?

    func run() throws -> ExitCode {
        let page = Self.page()
        if let output {
            do { try page.write(toFile: output, atomically: true, encoding: .utf8) } catch {
                throw BenchError.run("\(output): cannot write the man page: \(error.localizedDescription)")
            }
        } else {
            print(page, terminator: "")
        }
        return .success
    }

    static func page() -> String {
        ManPage.render(
            Netbench.self, date: "",
            extraSections: [
                (
                    "Exit status",
                    """
                    0 success; 1 a check or threshold failed (regression); 2 a run failed (transport or emulator \
                    error); \
                    64 usage error; 65 bad input data (scenario, profile, HAR, results file); 77 missing privilege.
                    """
                ),
                (
                    "Environment",
                    """
                    NETBENCH_HOME: a directory holding Scenarios/ (or the library itself: pages, profiles, traces, \
                    suites).
                    SSLKEYLOGFILE: the default of --keylog.
                    NETBENCH_CHROMIUM: the Chromium binary for --client chromium.
                    NETBENCH_FIREFOX: the Firefox binary for --client firefox.
                    NETBENCH_UDP_GSO=0: QUIC sends and receives one datagram per call (no UDP GSO/GRO), for comparison.
                    JOB_COMPLETION_INDEX with NETBENCH_SHARD_COUNT, CI_NODE_INDEX/CI_NODE_TOTAL, \
                    SLURM_ARRAY_TASK_ID/_MIN/_COUNT: the shard of 'netbench run' when --shard is not given.
                    """
                ),
                (
                    "Files",
                    """
                    The scenario library is searched in $NETBENCH_HOME, then the Scenarios folder of the checkout the \
                    binary was built in, then ./Scenarios, then <dir of the binary>/../share/netbench (where \
                    scripts/install.sh puts it). 'netbench doctor' says which one was found.
                    """
                ),
            ])
    }
}
