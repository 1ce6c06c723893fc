import BenchCore
import BenchModel
import SystemIO
import Foundation
import CommandLineKit

/// `netbench import-har`: a browser's HAR recording becomes a replayable scenario.
struct ImportHARCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "import-har",
            abstract: "turn a HAR file (Chrome, Firefox, WebPageTest) into a scenario",
            discussion: """
                Reads a HAR 1.2 file as Chrome, Firefox or WebPageTest export it and writes a scenario: one origin \
                per host; each response's body size (bodySize, content.size or Chrome's _transferSize, the first \
                present and ≥ 0); server think time from timings.wait less the recorded round trip (the fastest TCP \
                handshake in the file; --raw-wait keeps wait as is); dependencies from Chrome's _initiator (URL or \
                script stack) when present, otherwise from timing (a resource depends on the latest document, \
                stylesheet or script that finished before it started; the first document is the root). Redirects \
                are followed and listed, data: URLs skipped, duplicate requests (same method and URL) imported \
                once. Request methods are kept: a POST, PUT, PATCH or DELETE becomes a resource with that "method" \
                and, when the HAR has request.postData.text, that "requestBody" (with postData.mimeType as its \
                content-type); the replay answers a request only when its method and URL match a resource's, so a \
                GET of a URL recorded only as a POST is a 404 (listed per run). HEAD and other methods are skipped \
                and listed. Multi-page HARs: the first page.

                Shapes of recorded pages, counted per kind in the report: cache hits (_fromCache) and 304s, CORS \
                preflights (OPTIONS) and requests started after the page's onLoad are not imported; service-worker \
                responses are replayed from the network; HTTP/2 pseudo-headers are ignored; -1 timings count as 0; \
                non-ASCII characters and spaces in URLs are percent-encoded as UTF-8; fragments are dropped; URLs \
                that differ only in their query are separate resources.

                Recorded bodies: when an entry has its content (response.content.text, base64 when \
                content.encoding is 'base64', else text), the scenario keeps those exact bytes (the resource's size \
                becomes their length) and the replay server sends them over h1, h2 and h3 with the recorded \
                content-type. They are written beside the scenario, one file per body named by its SHA-256, in one \
                directory (default: the scenario's name with .bodies, e.g. shop.bodies/ for shop.json; the scenario's \
                'bodies' key names it relative to the scenario, so the two move together). Compression is replayed \
                as recorded: HAR content is the decoded body, so a response recorded with content-encoding gzip is \
                encoded again as nginx's gzip does by default (level 1; for a body nginx sent, the same bytes) and \
                stored and replayed encoded, with that header (the resource's size is the encoded length; \
                --gzip-as-recorded, the default, is still accepted); with --decompress-bodies every body is stored \
                and replayed decoded, without content-encoding (counted in the report). Other encodings (br, \
                deflate) are always stored decoded. \
                Entries without content keep generated bodies of their recorded size. A body whose length differs \
                from content.size is kept as recorded and listed. Without -o, or with --no-bodies, no content is \
                kept. Content that is not valid base64 exits 65 naming the entry and field. The scenario gets \
                "queryMatch": "closest": a request whose query the recording lacks (a cache buster) is answered with \
                the resource of the same path sharing the most query parameters, as Web Page Replay does (see serve \
                --help).

                Prints what was imported and, per entry index, what was not and why. Without -o the scenario goes \
                to stdout and the report to stderr. When the HAR cannot be read (bad JSON, truncated, a required \
                field missing) the message names the entry, e.g. 'log.entries[12].request.url: missing'.
                """,
            examples: [
                "netbench import-har shop.har -o Scenarios/pages/shop.json",
                "netbench import-har wpt-run.har --name news-home > news-home.json",
            ],
            exitCodes: [
                ExitCodeDoc(.success, "imported"), Netbench.usageExit,
                ExitCodeDoc(.dataError, "the HAR cannot be read"),
            ])
    }

    @Argument("FILE.har", help: "the HAR file", completion: .file(extensions: ["har"])) var file: String
    @Option(
        "--output", "-o", value: "SCENARIO.json", help: "where to write the scenario (default: stdout)",
        parse: .file("json")) var output: String?
    @Option("--name", value: "NAME", help: "the scenario's name (default: from the page)", parse: .nonEmpty) var name:
        String?
    @Flag("--raw-wait", help: "keep timings.wait as the think time (do not subtract the recorded round trip)")
    var rawWait: Bool
    @Option(
        "--bodies", value: "DIR",
        help: "directory for recorded bodies, relative to the scenario (default: the scenario's name + .bodies)",
        parse: .nonEmpty) var bodiesDirectory: String?
    @Flag(
        "--decompress-bodies",
        help: "store and replay every body decoded, without content-encoding; default: a body recorded gzip-encoded "
            + "is stored and replayed gzip-encoded, as nginx's gzip writes it by default (level 1)")
    var decompressBodies: Bool
    @Flag("--gzip-as-recorded", help: "compression replayed as recorded: the default (accepted for older scripts)")
    var gzipAsRecorded: Bool
    @Flag("--no-bodies", help: "keep no recorded content: every body is generated at its recorded size")
    var noBodies: Bool

    func run() throws -> ExitCode {
        if noBodies && bodiesDirectory != nil { throw BenchError.usage("--bodies and --no-bodies exclude each other") }
        if output == nil && bodiesDirectory != nil {
            throw BenchError.usage("--bodies needs -o (bodies sit beside it)")
        }
        var directory: String?
        if let output, !noBodies {
            directory =
                bodiesDirectory ?? URL(fileURLWithPath: output).deletingPathExtension().lastPathComponent + ".bodies"
        }
        var options = HARImporter.Options(name: name, subtractRoundTrip: !rawWait, bodiesDirectory: directory)
        if decompressBodies && gzipAsRecorded {
            throw BenchError.usage("--decompress-bodies and --gzip-as-recorded exclude each other")
        }
        options.gzipAsRecorded = !decompressBodies
        let result = try HARImporter.load(path: file, options: options)
        let data = try JSONFile.encode(result.scenario)
        let report = Self.reportText(result, source: file, output: output)
        if let output {
            if let directory, !result.bodies.isEmpty {
                try Self.writeBodies(result.bodies, to: directory, besideScenario: output)
            }
            try AtomicFile.write(data, to: output)
            print(report, terminator: "")
        } else {
            StandardOutput.write(data)
            writeError(report)
        }
        return .success
    }

    /// One file per body, named by its SHA-256 (content-addressed: a body already there is left alone).
    static func writeBodies(_ bodies: [String: [UInt8]], to directory: String, besideScenario output: String) throws {
        let root =
            directory.hasPrefix("/")
            ? directory
            : URL(fileURLWithPath: output).deletingLastPathComponent().appendingPathComponent(directory).path
        do {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        } catch {
            throw BenchError.data("\(root): cannot create the bodies directory: \(error.localizedDescription)")
        }
        for (digest, bytes) in bodies.sorted(by: { $0.key < $1.key }) {
            let path = root + "/" + digest
            if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size == bytes.count
            {
                continue
            }
            try AtomicFile.write(Data(bytes), to: path)
        }
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
        let b = rep.bodies
        out += "  bodies: \(b.real) of \(rep.imported) real (recorded content"
        out += b.real > 0 ? ", \(Units.formatBytes(b.bytes)) in \(s.bodies ?? "?")/)" : ")"
        out += ", \(rep.imported - b.real) generated at their recorded size\n"
        if b.notKept > 0 {
            out += "  content of \(b.notKept) entries not kept (no -o, or --no-bodies): their bodies are generated\n"
        }
        if b.decodedFromWire > 0 {
            out +=
                "  \(b.decodedFromWire) bodies were sent compressed when recorded; HAR content is decoded, so they are "
            out += "replayed uncompressed\n"
        }
        let methods = Dictionary(grouping: s.resources.compactMap(\.method), by: { $0 }).mapValues(\.count)
        if !methods.isEmpty {
            let listed = methods.keys.sorted().map { "\(methods[$0]!) \($0)" }.joined(separator: ", ")
            let bodies = s.resources.filter { $0.requestBody != nil }.count
            out += "  methods other than GET, kept: \(listed) (\(bodies) with a recorded request body)\n"
        }
        if b.reencoded > 0 {
            out += "  \(b.reencoded) bodies were sent gzip-encoded when recorded: encoded again, replayed encoded\n"
        }
        if !b.sizeMismatches.isEmpty {
            out += "bodies whose size differs from content.size (kept as recorded):\n"
            for n in b.sizeMismatches { out += "  \(n)\n" }
        }
        if !rep.redirects.isEmpty {
            out += "redirects followed:\n"
            for d in rep.redirects {
                out += "  log.entries[\(d.entry)]: \(d.status) \(d.from) → \(d.to)"
                out += d.targetEntry.map { " (log.entries[\($0)])\n" } ?? " (target not in the HAR)\n"
            }
        }
        if !rep.shapes.lines.isEmpty {
            out += "shapes of recorded pages:\n"
            for line in rep.shapes.lines { out += "  \(line)\n" }
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
