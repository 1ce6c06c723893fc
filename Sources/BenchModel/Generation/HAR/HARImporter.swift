import Foundation
import BenchCore

/// HAR 1.2 (Chrome, Firefox, WebPageTest) → `Scenario`.
///
/// ```swift
/// let result = try HARImporter.load(path: "page.har")
/// try AtomicFile.write(JSONFile.encode(result.scenario), to: "page.json")
/// for note in result.report.skipped { print(note) }     // log.entries[3]: data: URL (inline, no request)
/// ```
/// - Origins: one per host (the host is the id); ports and http/https are not kept (netbench
///   replays every origin over TLS on its own port).
/// - Sizes, types: `HARClassification`. Think time: `timings.wait` less the recorded round trip
///   (estimated from the fastest TCP handshake in the file), so replaying through an emulated RTT
///   does not count the recorded one twice; `subtractRoundTrip: false` keeps `wait` as it is.
/// - Dependencies: `HARDependencies` (Chrome's `_initiator` when present, else timing).
/// - Redirects (3xx with a target) are followed: the target entry is the resource, the redirect
///   is recorded in the report. `data:` and other non-HTTP URLs are skipped, duplicate URLs
///   imported once, non-GET requests imported as GETs and noted, failed requests (status 0)
///   skipped. Multi-page HARs: the first page's entries.
/// - Shapes of recorded pages (`HARShapes`, counted in `Report.shapes`): cache hits and 304s, CORS
///   preflights and requests after the page's onLoad are left out; non-ASCII URLs are
///   percent-encoded; the rest (service workers, pseudo-headers, -1 timings, size fields) noted.
/// - Errors: a HAR that cannot be read (bad JSON, truncation, missing required field) is a
///   `BenchError.data` naming the file and the key path (`log.entries[12].request.url: missing`).
public enum HARImporter {
    public struct Options: Sendable, Hashable {
        public var name: String?
        public var subtractRoundTrip: Bool
        /// Where recorded bodies go, relative to the scenario (its `bodies` key); nil: content is not
        /// kept and every body is generated.
        public var bodiesDirectory: String?
        /// Bodies recorded gzip-encoded are encoded again and replayed encoded (`HARCompression`), the
        /// default; false: every body is kept decoded, as HAR content is (`--decompress-bodies`).
        public var gzipAsRecorded = true
        public init(name: String? = nil, subtractRoundTrip: Bool = true, bodiesDirectory: String? = nil) {
            self.name = name; self.subtractRoundTrip = subtractRoundTrip; self.bodiesDirectory = bodiesDirectory
        }
    }

    /// What became of the HAR's recorded content.
    public struct BodyReport: Sendable {
        /// Imported resources served with their recorded bytes, and those bytes in total.
        public var real = 0
        public var bytes: Int64 = 0
        /// Entries whose content was not kept because no bodies directory was given.
        public var notKept = 0
        /// Bodies recorded with a `content-encoding` other than gzip (HAR content is decoded): replayed
        /// uncompressed.
        public var decodedFromWire = 0
        /// Bodies recorded gzip-encoded: encoded again (`HARCompression`) and replayed with that encoding.
        public var reencoded = 0
        /// Bodies whose length differs from the HAR's `content.size` (kept as recorded).
        public var sizeMismatches: [Note] = []
        public init() {}
    }

    /// Something about one entry (or the whole file, when `entry` is nil).
    public struct Note: Sendable, Hashable, CustomStringConvertible {
        public var entry: Int?
        public var message: String
        public init(entry: Int?, _ message: String) { self.entry = entry; self.message = message }
        public var description: String {
            (entry.map { "log.entries[\($0)]: " } ?? "") + message.escapingControlCharacters
        }
    }

    public struct Redirect: Sendable, Hashable {
        public var entry: Int
        public var status: Int
        public var from: String
        public var to: String
        /// The entry that loaded the target; nil if the HAR does not have it.
        public var targetEntry: Int?
    }

    public struct Report: Sendable {
        public var creator: String?
        public var entries: Int
        public var imported: Int
        /// Entries not imported, with the reason.
        public var skipped: [Note]
        /// Entries imported with a caveat (non-GET, a port dropped, …).
        public var notes: [Note]
        public var redirects: [Redirect]
        /// Real-world shapes met (cached entries, preflights, beacons after onLoad, …), per kind,
        /// with what was done with them.
        public var shapes: HARShapes
        /// The recorded round trip subtracted from `timings.wait`, in ms (nil: none found).
        public var roundTripMs: Double?
        public var parentsFromInitiator: Int
        public var parentsFromTiming: Int
        public var bodies: BodyReport
    }

    public struct Result: Sendable {
        public var scenario: Scenario
        public var report: Report
        /// Recorded bodies by SHA-256 hex: the files to write into `Options.bodiesDirectory`.
        public var bodies: [String: [UInt8]]
    }

    public static func load(path: String, options: Options = Options()) throws -> Result {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BenchError.data(
                "\(path): " + (FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"))
        }
        var opts = options
        if opts.name == nil {
            let base = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            opts.name = base.isEmpty ? "imported" : base
        }
        return try importHAR(data, file: path, options: opts)
    }

    public static func importHAR(_ data: Data, file: String, options: Options = Options()) throws -> Result {
        let har = try decode(data, file: file)
        var builder = HARScenarioBuilder(har: har, file: file, options: options)
        return try builder.build()
    }

    /// Decodes with errors that name the entry: a structural failure (truncation, unbalanced
    /// brackets) by the path where the text breaks off, a missing or mistyped field by its path.
    static func decode(_ data: Data, file: String) throws -> HARArchive {
        if let (path, problem) = JSONLocator.structuralError(in: data) {
            throw BenchError.data("\(file): \(path.escapingControlCharacters): \(problem)")
        }
        do {
            return try JSONDecoder().decode(HARArchive.self, from: data)
        } catch let e as DecodingError {
            throw BenchError.data("\(file): \(describe(e, data).escapingControlCharacters)")
        } catch {
            throw BenchError.data("\(file): not a HAR file: \(error.localizedDescription.escapingControlCharacters)")
        }
    }

    static func describe(_ e: DecodingError, _ data: Data) -> String {
        func path(_ p: [CodingKey]) -> String {
            var s = ""
            for k in p { if let i = k.intValue { s += "[\(i)]" } else { s += (s.isEmpty ? "" : ".") + k.stringValue } }
            return s
        }
        switch e {
        case .keyNotFound(let key, let ctx):
            let p = path(ctx.codingPath)
            return (p.isEmpty ? "" : p + ".") + key.stringValue + ": missing"
        case .typeMismatch(_, let ctx), .valueNotFound(_, let ctx):
            return path(ctx.codingPath) + ": wrong type (\(ctx.debugDescription))"
        case .dataCorrupted(let ctx):
            if ctx.codingPath.isEmpty {
                // Foundation's message may carry "line L, column C": translate it to a key path.
                let text =
                    (ctx.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
                    ?? ctx.debugDescription
                if let (l, c) = lineColumn(text) {
                    return JSONLocator.path(at: JSONLocator.offset(line: l, column: c, in: data), in: data)
                        + ": not valid JSON: \(text)"
                }
                return "not valid JSON: \(text)"
            }
            return path(ctx.codingPath) + ": \(ctx.debugDescription)"
        @unknown default:
            return "\(e)"
        }
    }

    private static func lineColumn(_ text: String) -> (Int, Int)? {
        guard let r = text.range(of: "line ") else { return nil }
        let rest = text[r.upperBound...]
        let line = Int(rest.prefix { $0.isNumber })
        guard let line, let cr = rest.range(of: "column ") else { return nil }
        guard let column = Int(rest[cr.upperBound...].prefix { $0.isNumber }) else { return nil }
        return (line, column)
    }
}
