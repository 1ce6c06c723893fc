import BenchCore
import BenchModel
import Foundation

/// `netbench import-har`: a browser's HAR recording becomes a replayable scenario.
struct ImportHARCommand: Command {
    static let name = "import-har"
    static let summary = "turn a HAR file (Chrome, Firefox, WebPageTest) into a scenario"
    static let help = """
        usage: netbench import-har FILE.har [-o SCENARIO.json] [--name NAME] [--raw-wait]

        Reads a HAR 1.2 file as Chrome, Firefox or WebPageTest export it and writes a scenario:
        one origin per host; each response's body size (bodySize, content.size or Chrome's
        _transferSize, the first present and ≥ 0); server think time from timings.wait less the
        recorded round trip (the fastest TCP handshake in the file; --raw-wait keeps wait as is);
        dependencies from Chrome's _initiator (URL or script stack) when present, otherwise from
        timing (a resource depends on the latest document, stylesheet or script that finished
        before it started; the first document is the root). Redirects are followed and listed,
        data: URLs skipped, duplicate URLs imported once, non-GET requests imported as GETs and
        noted. Multi-page HARs: the first page.

        Prints what was imported and, per entry index, what was not and why. Without -o the
        scenario goes to stdout and the report to stderr.

        Exit 65 if the HAR cannot be read (bad JSON, truncated, a required field missing); the
        message names the entry, e.g. 'log.entries[12].request.url: missing'.

        examples:
          netbench import-har shop.har -o Scenarios/pages/shop.json
          netbench import-har wpt-run.har --name news-home > news-home.json
        """

    static func run(_ args: inout Arguments) throws -> ExitCode {
        let output = try args.option("-o", "--output")
        let name = try args.option("--name")
        let rawWait = args.flag("--raw-wait")
        let files = try args.positionals()
        guard files.count == 1 else {
            throw BenchError.usage(files.isEmpty ? "missing the HAR file" : "one HAR file at a time (got \(files.count))")
        }
        if let name, name.isEmpty { throw BenchError.usage("--name must not be empty") }
        let result = try HARImporter.load(path: files[0], options: .init(name: name, subtractRoundTrip: !rawWait))
        let data = try JSONFile.encode(result.scenario)
        let report = reportText(result, source: files[0], output: output)
        if let output {
            try JSONFile.writeAtomically(data, to: output)
            print(report, terminator: "")
        } else {
            FileHandle.standardOutput.write(data)
            writeError(report)
        }
        return .success
    }

    static func reportText(_ r: HARImporter.Result, source: String, output: String?) -> String {
        let rep = r.report
        let s = r.scenario
        var out = "imported \(rep.imported) of \(rep.entries) entries from \(source)"
        out += (rep.creator.map { " (\($0))" } ?? "") + (output.map { " → \($0)" } ?? "") + "\n"
        out += "  \(s.origins.count) origins, \(Units.formatBytes(s.totalBytes)), depth \(s.depth); "
        out += "parents: \(rep.parentsFromInitiator) from initiators, \(rep.parentsFromTiming) from timing\n"
        if let rtt = rep.roundTripMs {
            out += "  think time = timings.wait − \(Units.format(rtt, 1)) ms (recorded round trip)\n"
        } else {
            out += "  think time = timings.wait\n"
        }
        if !rep.redirects.isEmpty {
            out += "redirects followed:\n"
            for d in rep.redirects {
                out += "  log.entries[\(d.entry)]: \(d.status) \(d.from) → \(d.to)"
                out += d.targetEntry.map { " (log.entries[\($0)])\n" } ?? " (target not in the HAR)\n"
            }
        }
        if !rep.skipped.isEmpty {
            out += "not imported:\n"
            for n in rep.skipped { out += "  \(n)\n" }
        }
        if !rep.notes.isEmpty {
            out += "notes:\n"
            for n in rep.notes { out += "  \(n)\n" }
        }
        return out
    }
}
