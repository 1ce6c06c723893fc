import XCTest
import BenchCore
@testable import CommandLineKit

/// `@OptionGroup`: options declared once, included whole by several commands, with one help text.
final class OptionGroupTests: XCTestCase {
    struct Limits: ParsableArguments {
        static var title: String? { "limit options" }
        @Option("--rate", value: "R", help: "a rate limit", parse: .bitrate) var rate: Double?
        @Option("--burst", value: "SIZE", default: 1000, help: "bytes sent at once", parse: .size) var burst: Int64
        @Flag("--strict", help: "refuse to exceed") var strict: Bool

        func validate() throws {
            if strict, rate == nil { throw BenchError.usage("--strict needs --rate") }
        }
    }

    /// Options without a title are listed with the command's own.
    struct Verbosity: ParsableArguments {
        @Flag("--verbose", "-v", help: "say more") var verbose: Bool
    }

    struct Upload: ParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                name: "upload", abstract: "send files", examples: ["tool upload f"],
                exitCodes: [ExitCodeDoc(.usage, "usage")])
        }
        @Argument("FILE", help: "what to send") var file: String
        @OptionGroup var limits: Limits
        @Option("--to", value: "HOST", help: "where to", parse: .nonEmpty) var to: String?
        @OptionGroup var verbosity: Verbosity
    }

    struct Copy: ParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                name: "copy", abstract: "copy a tree", examples: ["tool copy"],
                exitCodes: [ExitCodeDoc(.usage, "usage")])
        }
        @OptionGroup var limits: Limits
    }

    /// Declares `--rate` itself as well as through the group: the parser could bind only one.
    struct Clash: ParsableCommand {
        static var configuration: CommandConfiguration { CommandConfiguration(name: "clash", abstract: "broken") }
        @Option("--rate", value: "R", help: "the command's own rate", parse: .bitrate) var rate: Double?
        @OptionGroup var limits: Limits
        @Flag("--help", help: "shadowed by help") var help: Bool
    }

    struct Tool: ParsableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(name: "tool", abstract: "a tool", subcommands: [Upload.self, Copy.self, Clash.self])
        }
    }

    func message(_ args: [String]) -> String {
        do { _ = try ArgumentParser.parse(Upload.self, args); return "parsed" } catch { return "\(error)" }
    }

    func testParsingFillsTheGroupsValueAmongTheCommandsOwnOptions() throws {
        let u = try ArgumentParser.parse(
            Upload.self,
            ["--rate=2Mbit", "f", "--to", "h", "-v", "--burst", "4KiB", "--strict"])
        XCTAssertEqual(u.file, "f")
        XCTAssertEqual(u.to, "h")
        XCTAssertEqual(u.limits.rate, 2e6)
        XCTAssertEqual(u.limits.burst, 4096)
        XCTAssertTrue(u.limits.strict)
        XCTAssertTrue(u.verbosity.verbose)
        let plain = try ArgumentParser.parse(Upload.self, ["f"])
        XCTAssertNil(plain.limits.rate)
        XCTAssertEqual(plain.limits.burst, 1000)
        XCTAssertFalse(plain.limits.strict)
        XCTAssertFalse(plain.verbosity.verbose)
        // Two commands that include one group each get their own value of it.
        let c = try ArgumentParser.parse(Copy.self, ["--rate", "5Mbit"])
        XCTAssertEqual(c.limits.rate, 5e6)
        XCTAssertNil(plain.limits.rate)
        // A group parses alone, too.
        XCTAssertEqual(try ArgumentParser.parse(Limits.self, ["--burst", "2KB"]).burst, 2000)
    }

    func testErrorsNameTheGroupsOptionAndValueAndTheGroupValidates() {
        XCTAssertEqual(message(["f", "--rate", "fast"]), "--rate 'fast': expected a rate (e.g. 10Mbit)")
        XCTAssertEqual(message(["f", "--burst=lots"]), "--burst 'lots': expected a size (e.g. 2.3MB, 512KiB)")
        XCTAssertEqual(message(["f", "--strict=yes"]), "--strict takes no value")
        XCTAssertEqual(message(["f", "--rate"]), "--rate needs a value (R)")
        XCTAssertEqual(message(["f", "--strict"]), "--strict needs --rate")
        XCTAssertEqual(message(["f", "--ratee", "1Mbit"]), "unknown option '--ratee'")
    }

    func testHelpShowsTheGroupOnceInItsOwnSectionWithOneText() {
        let upload = HelpFormatter.help(for: Upload.self, path: ["tool", "upload"])
        let usage = "usage: tool upload FILE [--rate R] [--burst SIZE] [--strict] [--to HOST] [--verbose]\n"
        XCTAssertTrue(upload.hasPrefix(usage), upload)
        let own =
            "options:\n  --to HOST               where to\n  -v, --verbose           say more\n"
            + "  -h, --help              show this help\n"
        XCTAssertTrue(upload.contains(own), upload)
        let section =
            "limit options:\n  --rate R                a rate limit\n"
            + "  --burst SIZE            bytes sent at once (default: 1000)\n"
            + "  --strict                refuse to exceed\n"
        XCTAssertTrue(upload.contains(section), upload)
        XCTAssertEqual(upload.components(separatedBy: "a rate limit").count, 2, "listed once")
        let copy = HelpFormatter.help(for: Copy.self, path: ["tool", "copy"])
        XCTAssertTrue(copy.contains(section), copy)
        XCTAssertEqual(CommandDeclarations(of: Upload.self).sections.map(\.title), [nil, "limit options"])
    }

    func testManPageAndCompletionIncludeTheGroupsOptions() {
        let page = ManPage.render(Tool.self, date: "2026-01-01")
        let upload = page.components(separatedBy: ".SS \"tool upload\"")[1].components(separatedBy: ".SS ")[0]
        XCTAssertEqual(upload.components(separatedBy: ".PP\nLimit options:\n").count, 2, upload)
        XCTAssertEqual(upload.components(separatedBy: "\\fB\\-\\-rate\\fR \\fIR\\fR\na rate limit\n").count, 2, upload)
        XCTAssertTrue(upload.contains(".TP\n\\fB\\-v\\fR, \\fB\\-\\-verbose\\fR\nsay more\n"), upload)
        let bash = CompletionScript.render(Tool.self, shell: .bash)
        XCTAssertTrue(bash.contains("--rate --burst --strict --to --verbose -v --help"), bash)
        XCTAssertTrue(CompletionScript.render(Tool.self, shell: .zsh).contains("--burst'[bytes sent at once]"))
    }

    func testDuplicateAndReservedNamesAreFoundAndRefusedNamingWhoDeclaresThem() {
        XCTAssertEqual(CommandDeclarations(of: Upload.self).problems, [])
        XCTAssertEqual(
            CommandDeclarations(of: Clash.self).problems,
            [
                "--rate is declared 2 times: by Clash and by Limits",
                "--help is reserved for help, but declared by Clash",
            ])
        XCTAssertThrowsError(try ArgumentParser.parse(Clash.self, [])) { e in
            XCTAssertEqual("\(e)", "--rate is declared 2 times: by Clash and by Limits")
        }
        let box = Captured()
        let out = CommandOutput(out: { box.append(out: $0) }, err: { box.append(err: $0) })
        XCTAssertEqual(CommandLineTool.main(Tool.self, ["clash"], output: out), ExitCode.runFailed.rawValue)
        XCTAssertEqual(box.take().err, "tool clash: --rate is declared 2 times: by Clash and by Limits\n")
    }
}
