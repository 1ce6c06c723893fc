import XCTest
import BenchCore
import BenchModel
@testable import CommandLineKit
@testable import NetbenchCommands

/// Option parsing in-process: the framework's rules through netbench's real commands.
final class ParsingTests: XCTestCase {
    /// The usage error a command line raises, or a failure when it parses.
    func usageError<C: ParsableCommand>(
        _ type: C.Type, _ args: [String], file: StaticString = #filePath, line: UInt = #line
    ) -> String {
        do {
            _ = try ArgumentParser.parse(type, args)
            XCTFail("\(args) parsed", file: file, line: line)
            return ""
        } catch let e as BenchError {
            XCTAssertEqual(e.exitCode, .usage, e.message, file: file, line: line)
            return e.message
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return ""
        }
    }

    func testUnknownOptionIsAUsageErrorNamingIt() {
        XCTAssertTrue(usageError(RunCommand.self, ["--frobnicate"]).contains("'--frobnicate'"))
        XCTAssertTrue(usageError(RunCommand.self, ["-x", "3"]).contains("'-x'"))
        XCTAssertTrue(usageError(RunCommand.self, ["--frobnicate=3"]).contains("'--frobnicate'"))
    }

    func testEqualsAndSeparateValuesAndShortAliasesAgree() throws {
        for args in [["--runs", "5"], ["--runs=5"], ["-n", "5"], ["-n=5"]] {
            XCTAssertEqual(try ArgumentParser.parse(RunCommand.self, args).runs, 5, "\(args)")
        }
        let r = try ArgumentParser.parse(
            RunCommand.self, ["a.json", "-t", "h1,h3", "-p", "LTE,loopback", "-o", "/tmp/x", "b.json", "--repeat-view"])
        XCTAssertEqual(r.transports, [.h1, .h3])
        XCTAssertEqual(r.profiles, ["LTE", "loopback"])
        XCTAssertEqual(r.out, "/tmp/x")
        XCTAssertEqual(r.files, ["a.json", "b.json"])
        XCTAssertTrue(r.repeatView)
        XCTAssertNil(r.seed)
    }

    /// The emulator's loop runs under SCHED_FIFO 10 by default; the flag that asked for it is gone.
    func testEmulatorRealtimeIsGone() {
        XCTAssertEqual(usageError(RunCommand.self, ["--emulator-realtime"]), "unknown option '--emulator-realtime'")
    }

    func testRunAndServeTakeTheSameServerAndDiagnosticOptions() throws {
        let shared = [
            "--tls", "1.2", "--tls-records", "4KiB", "--late-binding", "off", "--tcp-cc", "reno",
            "--quic-cc", "bbr", "--keylog", "/tmp/k", "--qlog", "/tmp",
        ]
        let run = try ArgumentParser.parse(RunCommand.self, shared)
        let serve = try ArgumentParser.parse(ServeCommand.self, ["s.json", "-t", "h2", "-l", "127.0.0.1:0"] + shared)
        for (server, diagnostics) in [(run.serverOptions, run.diagnostics), (serve.serverOptions, serve.diagnostics)] {
            XCTAssertEqual(server.tlsVersion, .tls12)
            XCTAssertEqual(server.tlsRecords, .fixed(4096))
            XCTAssertEqual(server.lateBinding, .off)
            XCTAssertEqual(server.tcpCongestionControl, "reno")
            XCTAssertEqual(server.quicCongestionControl, .bbr)
            XCTAssertEqual(diagnostics.keyLogFile, "/tmp/k")
            XCTAssertEqual(diagnostics.qlog, "/tmp")
        }
        let serveArgs = ["s.json", "-t", "h2", "-l", "127.0.0.1:0"]
        XCTAssertEqual(
            usageError(ServeCommand.self, serveArgs + ["--tls-records", "64"]),
            "--tls-records '64': expected dynamic, 16k or a record size from 512 B to 16 KiB (e.g. 4KiB)")
        XCTAssertEqual(
            usageError(RunCommand.self, ["--late-binding", "huge"]),
            "--late-binding 'huge': expected off or a size from 1 KiB to 16 MiB (e.g. 16KiB)")
        let unset = try ArgumentParser.parse(RunCommand.self, [])
        XCTAssertNil(unset.serverOptions.tlsRecords, "a suite's tlsRecords applies when the flag is not given")
        XCTAssertNil(unset.serverOptions.tcpCongestionControl)
    }

    func testMissingValue() {
        XCTAssertTrue(usageError(RunCommand.self, ["--runs"]).contains("--runs needs a value"))
        XCTAssertTrue(usageError(RunCommand.self, ["--out", "--runs", "3"]).contains("--out needs a value"))
        XCTAssertTrue(usageError(RunCommand.self, ["--out", "-n", "3"]).contains("--out needs a value"))
    }

    func testRangesAndTypedValues() throws {
        XCTAssertTrue(usageError(RunCommand.self, ["--runs", "0"]).contains("from 1 to 100000"))
        XCTAssertTrue(usageError(RunCommand.self, ["--runs", "100001"]).contains("'100001'"))
        XCTAssertTrue(usageError(RunCommand.self, ["--runs", "zero"]).contains("--runs 'zero'"))
        XCTAssertEqual(try ArgumentParser.parse(RunCommand.self, ["--warmup", "1000"]).warmup, 1000)
        XCTAssertTrue(usageError(RunCommand.self, ["--warmup", "1001"]).contains("--warmup"))
        XCTAssertTrue(usageError(RunCommand.self, ["--transport", "h9"]).contains("h1, h2, h3"))
        XCTAssertTrue(usageError(RunCommand.self, ["--quic-cc", "vegas"]).contains("reno"))
        XCTAssertTrue(usageError(RunCommand.self, ["--timeout", "soon"]).contains("--timeout 'soon'"))
        XCTAssertEqual(try ArgumentParser.parse(RunCommand.self, ["--timeout", "30s"]).timeout, 30_000_000_000)
        XCTAssertEqual(try ArgumentParser.parse(CheckCommand.self, ["d", "--baseline", "b"]).maxRegression, 0.05)
        XCTAssertEqual(
            try ArgumentParser.parse(CheckCommand.self, ["d", "-b", "b", "--max-regression", "12%"]).maxRegression,
            0.12, accuracy: 1e-12)
        XCTAssertTrue(
            usageError(CheckCommand.self, ["d", "-b", "b", "--max-regression", "lots"]).contains("percentage"))
        XCTAssertTrue(
            usageError(CalibrateCommand.self, ["--profile", "4G", "--duration", "500ms"]).contains("at least 1s"))
        XCTAssertEqual(try ArgumentParser.parse(CalibrateCommand.self, ["-p", "4G"]).samples, 200)
    }

    func testLastOccurrenceWinsAndDoubleDashEndsOptions() throws {
        XCTAssertEqual(try ArgumentParser.parse(RunCommand.self, ["-n", "3", "--runs", "4"]).runs, 4)
        let r = try ArgumentParser.parse(RunCommand.self, ["--", "--weird-name.json", "-"])
        XCTAssertEqual(r.files, ["--weird-name.json", "-"])
    }

    func testFlagsTakeNoValue() {
        XCTAssertTrue(usageError(RunCommand.self, ["--repeat-view=yes"]).contains("takes no value"))
    }

    func testPositionalCountsAndRequiredOptions() throws {
        XCTAssertTrue(usageError(CompareCommand.self, ["a"]).contains("missing DIR_B"))
        XCTAssertTrue(usageError(CompareCommand.self, ["a", "b", "c"]).contains("unexpected argument 'c'"))
        let c = try ArgumentParser.parse(CompareCommand.self, ["a", "b", "--noise", "2%", "-f", "md"])
        XCTAssertEqual([c.a, c.b], ["a", "b"])
        XCTAssertEqual(c.noise, 0.02, accuracy: 1e-12)
        XCTAssertEqual(c.format, .md)
        XCTAssertTrue(usageError(ReportCommand.self, []).contains("missing DIR"))
        XCTAssertTrue(usageError(ServeCommand.self, ["s.json", "--transport", "h3"]).contains("--listen"))
        XCTAssertTrue(usageError(ServeCommand.self, ["s.json", "-t", "h3", "-l", "nowhere"]).contains("ADDR:PORT"))
        let s = try ArgumentParser.parse(ServeCommand.self, ["s.json", "-t", "h3", "-l", "127.0.0.1:4433"])
        XCTAssertEqual(s.transports, [.h3])
        XCTAssertEqual(s.listen.port, 4433)
        XCTAssertEqual(
            try ArgumentParser.parse(ServeCommand.self, ["s.json", "-t", "h1,h2,h3", "-l", "127.0.0.1:0"]).transports,
            [.h1, .h2, .h3])
        XCTAssertNil(s.caOut, "serve writes its CA file only where --ca-out says")
    }

    func testValidateChecksAcrossOptions() {
        XCTAssertTrue(usageError(CheckCommand.self, ["dir"]).contains("nothing to check against"))
        XCTAssertTrue(usageError(CalibrateCommand.self, ["--rtt", "40ms"]).contains("--rate"))
        XCTAssertTrue(usageError(CalibrateCommand.self, []).contains("--profile"))
        XCTAssertTrue(usageError(ProfilesCommand.self, ["--json", "--quiet"]).contains("exclude"))
        XCTAssertTrue(
            usageError(ScenarioGenerate.self, ["--preset", "bulk-10MB-download", "--requests", "3"]).contains(
                "bulk preset"))
    }

    func testNestedScenarioSubcommandsEachTakeOnlyTheirOwnOptions() throws {
        let g = try CommandLineTool.resolve(Netbench.self, ["scenario", "generate", "--seed", "3", "-o", "x.json"])
        XCTAssertEqual(g.path, ["netbench", "scenario", "generate"])
        XCTAssertTrue(g.command == ScenarioGenerate.self)
        let gen = try ArgumentParser.parse(ScenarioGenerate.self, g.arguments)
        XCTAssertEqual(gen.seed, 3)
        XCTAssertEqual(gen.output, "x.json")
        XCTAssertTrue(usageError(ScenarioGenerate.self, ["--rtt", "50ms"]).contains("'--rtt'"))
        XCTAssertTrue(usageError(ScenarioShow.self, ["f.json", "--requests", "3"]).contains("'--requests'"))
        let show = try ArgumentParser.parse(ScenarioShow.self, ["--rtt", "50ms", "f.json", "--down", "20Mbit"])
        XCTAssertEqual(show.file, "f.json")
        XCTAssertEqual(show.rttNs, 50_000_000)
        XCTAssertEqual(show.rate, 20e6)
        XCTAssertEqual(try ArgumentParser.parse(ScenarioValidate.self, ["a.json", "-"]).files, ["a.json", "-"])
        XCTAssertTrue(usageError(ScenarioValidate.self, []).contains("missing FILE"))
        XCTAssertThrowsError(try CommandLineTool.resolve(Netbench.self, ["scenario", "explode"])) { e in
            XCTAssertTrue((e as? BenchError)?.message.contains("generate, validate, show") == true)
        }
        XCTAssertThrowsError(try ArgumentParser.parse(any: ScenarioCommand.self, []).run())  // a parent only dispatches
    }

    func testHelpIsAskedAnywhereBeforeDoubleDash() throws {
        XCTAssertTrue(try CommandLineTool.resolve(Netbench.self, ["run", "a.json", "-h"]).wantsHelp)
        XCTAssertTrue(try CommandLineTool.resolve(Netbench.self, ["help", "scenario", "show"]).wantsHelp)
        XCTAssertFalse(try CommandLineTool.resolve(Netbench.self, ["run", "--", "--help"]).wantsHelp)
    }
}
