import XCTest
import BenchCore
@testable import CommandLineKit

/// CommandLineKit on its own: every kind of declaration, through a command made up for the test.
final class FrameworkTests: XCTestCase {
    struct Fetch: ParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                name: "fetch", abstract: "fetch things", examples: ["tool fetch --to x a"],
                exitCodes: [ExitCodeDoc(.success, "fetched"), ExitCodeDoc(.usage, "usage")])
        }
        @Argument("URL", count: 1..., help: "what to fetch") var urls: [String]
        @Option("--to", value: "DIR", help: "where to", parse: .directory) var to: String
        @Option("--header", "-H", value: "LINE", help: "a request header", repeating: .nonEmpty) var headers: [String]
        @Option("--retries", value: "N", default: 3, help: "attempts after the first", parse: .int(0...10)) var retries:
            Int
        @Option("--rate", value: "R", help: "a limit", parse: .bitrate) var rate: Double?
        @Flag("--verbose", "-v", help: "say more") var verbose: Bool
    }

    struct Tool: ParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(name: "tool", abstract: "a tool", subcommands: [Fetch.self], version: "9")
        }
    }

    func testEveryKindOfDeclarationBinds() throws {
        let f = try ArgumentParser.parse(
            Fetch.self, ["a", "--to=/d", "-H", "A: 1", "--header", "B: 2", "b", "-v", "--rate", "2Mbit"])
        XCTAssertEqual(f.urls, ["a", "b"])
        XCTAssertEqual(f.to, "/d")
        XCTAssertEqual(f.headers, ["A: 1", "B: 2"])
        XCTAssertEqual(f.retries, 3)
        XCTAssertEqual(f.rate, 2e6)
        XCTAssertTrue(f.verbose)
        let g = try ArgumentParser.parse(Fetch.self, ["a", "--to", "/d", "--retries", "0"])
        XCTAssertEqual(g.headers, [])
        XCTAssertEqual(g.retries, 0)
        XCTAssertNil(g.rate)
        XCTAssertFalse(g.verbose)
    }

    func testErrorsNameWhatIsWrong() {
        func message(_ args: [String]) -> String {
            do { _ = try ArgumentParser.parse(Fetch.self, args); return "parsed" } catch { return "\(error)" }
        }
        XCTAssertEqual(message(["a"]), "--to DIR is required")
        XCTAssertEqual(message(["--to", "d"]), "missing URL: what to fetch")
        XCTAssertEqual(
            message(["a", "--to", "d", "--retries", "11"]), "--retries '11': expected a whole number from 0 to 10")
        XCTAssertEqual(message(["a", "--to", "d", "-H", ""]), "-H '': expected a non-empty value")
        XCTAssertEqual(message(["a", "--to", "d", "-v=1"]), "-v takes no value")
        XCTAssertEqual(message(["a", "--to"]), "--to needs a value (DIR)")
    }

    func testHelpUsageAndDispatchComeFromTheDeclarations() {
        let help = HelpFormatter.help(for: Fetch.self, path: ["tool", "fetch"])
        XCTAssertTrue(
            help.hasPrefix("usage: tool fetch URL... --to DIR [--header LINE] [--retries N] [--rate R] [--verbose]\n"),
            help)
        XCTAssertTrue(help.contains("  -H, --header LINE       a request header (repeatable)"), help)
        XCTAssertTrue(help.contains("  --retries N             attempts after the first (default: 3)"), help)
        XCTAssertTrue(help.contains("  -v, --verbose           say more"), help)
        XCTAssertTrue(help.contains("examples:\n  tool fetch --to x a\n"), help)
        XCTAssertTrue(help.contains("exit codes:\n  0     fetched\n  64    usage\n"), help)
        let box = Captured()
        let out = CommandOutput(out: { box.append(out: $0) }, err: { box.append(err: $0) })
        XCTAssertEqual(CommandLineTool.main(Tool.self, ["--version"], output: out), 0)
        XCTAssertEqual(box.take().out, "tool 9\n")
        XCTAssertEqual(CommandLineTool.main(Tool.self, ["fetch", "a"], output: out), 64)
        XCTAssertEqual(box.take().err, "tool fetch: --to DIR is required\n(see 'tool fetch --help')\n")
    }
}
