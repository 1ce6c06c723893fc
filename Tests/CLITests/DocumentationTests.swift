import XCTest
@testable import CommandLineKit
@testable import NetbenchCommands
import TestSupport

/// The completion scripts and the man page, checked by the programs that read them (bash, groff).
final class DocumentationTests: XCTestCase {
    /// What bash offers for `words` (the last one is being completed) with the generated script.
    func bashCompletions(_ words: [String]) throws -> [String] {
        let dir = Program.tempDirectory(self)
        let script = dir + "/netbench.bash"
        try CompletionScript.render(Netbench.self, shell: .bash).write(
            toFile: script, atomically: true, encoding: .utf8)
        let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
        let r = try Program.run(
            "/bin/bash",
            [
                "-c",
                ". '\(script)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _netbench; printf '%s\\n' "
                    + "\"${COMPREPLY[@]}\"",
            ], cwd: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "")
        return r.stdout.split(separator: "\n").map(String.init)
    }

    func testBashCompletesCommandsSubcommandsOptionsAndValues() throws {
        XCTAssertEqual(try bashCompletions(["netbench", "ru"]), ["run"])
        XCTAssertEqual(try bashCompletions(["netbench", "run", "--tr"]), ["--transport"])
        XCTAssertEqual(
            Set(try bashCompletions(["netbench", "run", "--transport", "h"])),
            ["h1", "h2", "h3", "h1,h2", "h1,h2,h3", "h2,h3"])
        XCTAssertEqual(try bashCompletions(["netbench", "run", "-t", "h1", "--qu"]),
            ["--quic-cc", "--quic-udp-payload", "--quic-pacing", "--quic-client-cid", "--quiet"])
        XCTAssertEqual(try bashCompletions(["netbench", "scenario", "ge"]), ["generate"])
        XCTAssertEqual(try bashCompletions(["netbench", "scenario", "generate", "--pre"]), ["--preset"])
        XCTAssertEqual(try bashCompletions(["netbench", "scenario", "generate", "--rt"]), [])
        XCTAssertEqual(try bashCompletions(["netbench", "scenario", "show", "x.json", "--rt"]), ["--rtt"])
        XCTAssertEqual(try bashCompletions(["netbench", "completion", ""]), ["bash", "zsh"])
        XCTAssertEqual(try bashCompletions(["netbench", "compare", "a", "b", "--format", "m"]), ["md"])
    }

    func testZshScriptDeclaresEveryCommandAndOption() {
        let z = CompletionScript.render(Netbench.self, shell: .zsh)
        XCTAssertTrue(z.hasPrefix("#compdef netbench\n"))
        for (path, command) in CommandLineTool.allCommands(Netbench.self) {
            XCTAssertTrue(z.contains("(\"\(path.joined(separator: " "))\")"), "\(path)")
            for o in CommandDeclarations(of: command).options {
                XCTAssertTrue(z.contains(o.long + "'[") || z.contains(o.long + "}'["), "\(path) \(o.long)")
            }
        }
        // Balanced single quotes: an unescaped one in a help text would break the whole script.
        for line in z.split(separator: "\n") {
            XCTAssertEqual(
                line.replacingOccurrences(of: "'\\''", with: "").filter { $0 == "'" }.count % 2, 0, String(line))
        }
    }

    func testManPageHasEveryCommandAndOptionAndGroffReadsItWithoutWarnings() throws {
        let page = ManCommand.page()
        XCTAssertTrue(page.hasPrefix(".TH NETBENCH 1"))
        for (path, command) in CommandLineTool.allCommands(Netbench.self).dropFirst()
        where command.configuration.subcommands.isEmpty {
            XCTAssertTrue(page.contains(".SS \"\(ManPage.escape(path.joined(separator: " ")))\""), "\(path)")
            for o in CommandDeclarations(of: command).options {
                XCTAssertTrue(page.contains("\\fB" + ManPage.escape(o.long) + "\\fR"), "\(path) \(o.long)")
            }
        }
        for section in ["EXIT STATUS", "ENVIRONMENT", "FILES"] {
            XCTAssertTrue(page.contains(".SH \(section)"), section)
        }
        XCTAssertTrue(page.unicodeScalars.allSatisfy { $0.value < 128 }, "groff reads bytes: non-ASCII must be escaped")
        let dir = Program.tempDirectory(self)
        try page.write(toFile: dir + "/netbench.1", atomically: true, encoding: .utf8)
        let groff = ["/usr/bin/groff", "/bin/groff"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let groff else {
            try missingPrerequisite("groff is missing (apt-get install groff-base) to check the man page")
        }
        let r = try Program.run(groff, ["-man", "-Tutf8", "-ww", dir + "/netbench.1"])
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.stderr, "", "groff warnings")
        XCTAssertTrue(r.stdout.contains("netbench scenario generate"))
    }
}
