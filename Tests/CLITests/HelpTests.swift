import XCTest
import BenchCore
@testable import CommandLineKit
@testable import NetbenchCommands

/// Help, man page and completion are generated from the declarations: nothing declared is missing.
final class HelpTests: XCTestCase {
    let commands = CommandLineTool.allCommands(Netbench.self)

    func testEveryDeclaredOptionAndArgumentAppearsInItsCommandsHelp() {
        for (path, command) in commands {
            let help = HelpFormatter.help(for: command, path: path)
            let d = CommandDeclarations(of: command)
            for o in d.options {
                XCTAssertTrue(help.contains(o.synopsis), "\(path) help lacks \(o.synopsis)")
                XCTAssertTrue(help.contains(o.long), "\(path) usage lacks \(o.long)")
            }
            for p in d.positionals { XCTAssertTrue(help.contains(p.synopsis), "\(path) help lacks \(p.synopsis)") }
        }
    }

    func testEveryCommandsHelpIsGeneratedWithUsageExamplesAndExitCodes() {
        for (path, command) in commands.dropFirst() {
            let c = command.configuration
            let help = HelpFormatter.help(for: command, path: path)
            XCTAssertTrue(help.hasPrefix("usage: " + path.joined(separator: " ")), help)
            XCTAssertTrue(help.contains(c.abstract), "\(path)")
            if c.subcommands.isEmpty {
                XCTAssertFalse(c.examples.isEmpty, "\(path) declares no example")
                XCTAssertFalse(c.exitCodes.isEmpty, "\(path) declares no exit code")
                XCTAssertTrue(
                    c.exitCodes.contains { $0.code == 64 } || path.last == "version", "\(path) documents no usage exit")
                for e in c.examples { XCTAssertTrue(help.contains(e), "\(path) help lacks example \(e)") }
                for e in c.exitCodes {
                    XCTAssertTrue(help.contains("  \(e.code) "), "\(path) help lacks exit code \(e.code)")
                }
                XCTAssertTrue(help.contains("-h, --help"))
            } else {
                for s in c.subcommands {
                    XCTAssertTrue(help.contains("  " + s.configuration.name + " "), "\(path) lists no \(s)")
                }
            }
            XCTAssertFalse(help.split(separator: "\n").contains { $0.count > 140 }, "\(path): a line runs away")
        }
    }

    func testNoCommandDeclaresAnOptionTwice() {
        for (path, command) in commands { XCTAssertEqual(CommandDeclarations(of: command).problems, [], "\(path)") }
    }

    /// One declaration: run and serve print the same section, word for word, each option once.
    func testRunAndServeShowTheSharedGroupsOnceWithOneText() throws {
        let run = HelpFormatter.help(for: RunCommand.self, path: ["netbench", "run"])
        let serve = HelpFormatter.help(for: ServeCommand.self, path: ["netbench", "serve"])
        for title in ["server and connection options", "diagnostics"] {
            func section(_ help: String) -> String? {
                help.components(separatedBy: "\n\(title):\n").dropFirst().first?.components(separatedBy: "\n\n").first
            }
            let inRun = try XCTUnwrap(section(run), "run --help has no \(title) section")
            XCTAssertEqual(inRun, section(serve), title)
        }
        for name in ["--tls-records R", "--late-binding SIZE", "--keylog FILE", "--qlog DIR", "--tcp-cc NAME"] {
            XCTAssertEqual(run.components(separatedBy: "  " + name + " ").count, 2, "run lists \(name) once")
            XCTAssertEqual(serve.components(separatedBy: "  " + name + " ").count, 2, "serve lists \(name) once")
        }
        XCTAssertFalse(run.contains("--emulator-realtime"))
        for name in ["--client-hello-pad BYTES", "--quic-client-cid N"] {
            XCTAssertEqual(run.components(separatedBy: "\n  " + name).count, 2, "run lists \(name) once")
            XCTAssertFalse(serve.contains(name), "serve has no client: \(name)")
        }
    }

    func testRunDocumentsItsShortAliases() {
        let help = HelpFormatter.help(for: RunCommand.self, path: ["netbench", "run"])
        for alias in ["-t, --transport LIST", "-p, --profile LIST", "-n, --runs N", "-o, --out DIR"] {
            XCTAssertTrue(help.contains(alias), "run --help lacks \(alias)")
        }
    }

    func testTopLevelHelpListsEveryCommandIndentedAndNothingElse() {
        let help = HelpFormatter.help(for: Netbench.self, path: ["netbench"])
        let listed = help.split(separator: "\n").filter { $0.hasPrefix("  ") }.compactMap {
            $0.split(separator: " ").first.map(String.init)
        }
        XCTAssertEqual(listed, Netbench.configuration.subcommands.map { $0.configuration.name })
    }

    func testMainAnswersHelpVersionAndUsageErrorsWithTheContractsExitCodes() {
        let box = Captured()
        let output = CommandOutput(out: { box.append(out: $0) }, err: { box.append(err: $0) })
        XCTAssertEqual(Netbench.main(["--version"], output: output), 0)
        XCTAssertEqual(box.take().out, "netbench \(netbenchVersion)\n")
        XCTAssertEqual(Netbench.main([], output: output), 64)
        XCTAssertTrue(box.take().out.contains("commands:"))
        XCTAssertEqual(Netbench.main(["scenario", "show", "--help"], output: output), 0)
        XCTAssertTrue(box.take().out.hasPrefix("usage: netbench scenario show"))
        XCTAssertEqual(Netbench.main(["run", "--frobnicate"], output: output), 64)
        let e = box.take().err
        XCTAssertTrue(e.contains("netbench run: unknown option '--frobnicate'") && e.contains("netbench run --help"), e)
        XCTAssertEqual(Netbench.main(["teleport"], output: output), 64)
        XCTAssertTrue(box.take().err.contains("unknown command 'teleport'"))
        XCTAssertEqual(Netbench.main(["scenario"], output: output), 64)
        XCTAssertTrue(box.take().err.contains("missing subcommand: generate, validate, show"))
        XCTAssertEqual(Netbench.main(["completion", "fish"], output: output), 64)
    }
}

/// Output of `Netbench.main` in a test.
final class Captured: @unchecked Sendable {
    private let lock = NSLock()
    private var out = "", err = ""
    func append(out s: String) { lock.lock(); out += s; lock.unlock() }
    func append(err s: String) { lock.lock(); err += s; lock.unlock() }
    func take() -> (out: String, err: String) {
        lock.lock(); defer { out = ""; err = ""; lock.unlock() }
        return (out, err)
    }
}
