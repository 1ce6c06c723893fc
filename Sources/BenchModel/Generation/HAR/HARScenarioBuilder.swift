import Foundation
import BenchCore

/// The work behind `HARImporter.importHAR`: filter the entries, follow redirects, deduplicate,
/// find the root, resolve dependencies, name origins and resources.
struct HARScenarioBuilder {
    typealias Note = HARImporter.Note
    let har: HARArchive
    let file: String
    let options: HARImporter.Options
    var skipped: [Note] = []
    var notes: [Note] = []
    var redirects: [HARImporter.Redirect] = []
    var shapes = HARShapes()
    var bodies = HARImporter.BodyReport()
    var bodyBytes: [String: [UInt8]] = [:]

    init(har: HARArchive, file: String, options: HARImporter.Options) {
        self.har = har; self.file = file; self.options = options
    }

    struct Candidate {
        var index: Int
        var key: String
        var host: String
        var path: String
        var type: Scenario.ResourceType
        var bytes: Int64
        var start, firstByte, end: Double
        var entry: HARArchive.Entry
        var body: Scenario.Resource.Body?
        /// The request's method when not GET, and what it posted.
        var method: String?
        var requestBody: Scenario.Resource.RequestBody?
    }

    /// `host/path?query`, lowercased host, no scheme, port or fragment: how URLs are matched.
    static func key(_ url: String) -> String? {
        guard let c = URLComponents(string: HARShapes.encodedURL(url)), let host = c.host?.lowercased(), !host.isEmpty
        else { return nil }
        let path = c.percentEncodedPath.isEmpty ? "/" : c.percentEncodedPath
        return host + path + (c.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    mutating func build() throws -> HARImporter.Result {
        var candidates: [Candidate] = []
        var alias: [String: String] = [:]  // redirect source → the key it stands for
        var firstByKey: [String: Int] = [:]
        for (i, e) in har.log.entries.enumerated() {
            if let c = try admit(i, e, alias: &alias, firstByKey: &firstByKey) { candidates.append(c) }
        }
        let plainHTTP = candidates.filter { $0.entry.request.url.lowercased().hasPrefix("http:") }.count
        if plainHTTP > 0 {
            notes.append(Note(entry: nil, "\(plainHTTP) entries used http://; netbench replays every origin over TLS"))
        }
        return try assemble(candidates, alias: alias)
    }

    /// Entry `i` as a candidate resource, or nil with the reason recorded (skipped, a redirect,
    /// a duplicate). Throws only for data the HAR spec requires and the entry lacks.
    mutating func admit(
        _ i: Int, _ e: HARArchive.Entry, alias: inout [String: String],
        firstByKey: inout [String: Int]
    ) throws -> Candidate? {
        if let page = har.log.pages?.first?.id, let ref = e.pageref, ref != page {
            skipped.append(Note(entry: i, "belongs to page '\(ref)'; netbench imports the first page, '\(page)'"));
            return nil
        }
        let url = e.request.url
        let scheme = url.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        if scheme == "data" { skipped.append(Note(entry: i, "data: URL (inline, no request)")); return nil }
        guard scheme == "http" || scheme == "https" else {
            skipped.append(Note(entry: i, "unsupported URL scheme '\(scheme)' (\(url.prefix(60)))")); return nil
        }
        guard let start = HARTime.milliseconds(e.startedDateTime) else {
            throw BenchError.data(
                "\(file): log.entries[\(i)].startedDateTime: '\(e.startedDateTime.escapingControlCharacters)' is not "
                    + "an ISO 8601 date-time"
            )
        }
        let encoded = HARShapes.encodedURL(url)
        guard let c = URLComponents(string: encoded), let host = c.host?.lowercased(), let key = Self.key(url) else {
            skipped.append(Note(entry: i, "URL '\(url.prefix(80))' cannot be parsed")); return nil
        }
        guard Scenario.isValidHost(host) else {
            skipped.append(Note(entry: i, "host '\(host)' is not a host name netbench can serve")); return nil
        }
        if e.response.status == 0 {
            skipped.append(Note(entry: i, "no response (status 0: blocked, aborted or failed)")); return nil
        }
        if excludedByShape(i, e, start: start) { return nil }
        if (300..<400).contains(e.response.status), let target = e.response.redirectTarget, !target.isEmpty {
            let absolute = URL(string: target, relativeTo: URL(string: url))?.absoluteString ?? target
            redirects.append(.init(entry: i, status: e.response.status, from: url, to: absolute, targetEntry: nil))
            if let t = Self.key(absolute), t != key { alias[key] = t }
            return nil
        }
        let method = e.request.method.uppercased()
        guard Scenario.Resource.methods.contains(method) else {
            skipped.append(
                Note(
                    entry: i,
                    "\(method.escapingControlCharacters) request: netbench replays "
                        + Scenario.Resource.methods.joined(separator: ", ")))
            return nil
        }
        // A GET and a POST of one URL are two resources; the same method twice is a duplicate.
        let methodKey = method == "GET" ? key : method + " " + key
        if let j = firstByKey[methodKey] {
            skipped.append(
                Note(
                    entry: i,
                    "duplicate of log.entries[\(j)] (same \(method == "GET" ? "" : method + " and ")URL "
                        + "\(url.prefix(80))); imported once"));
            return nil
        }
        let recorded = try HARBodies.body(
            of: e, index: i, file: file, gzipAsRecorded: options.gzipAsRecorded && options.bodiesDirectory != nil)
        // Kept content sets the size; content not kept leaves the recorded size fields in charge.
        let bodySize = recorded.map { (bytes: Int64($0.bytes.count), source: HARClassification.SizeSource.contentSize) }
        guard
            let (bytes, source) = (options.bodiesDirectory != nil ? bodySize : nil) ?? HARClassification.size(of: e)
                ?? bodySize
        else {
            skipped.append(
                Note(
                    entry: i,
                    "no response size (bodySize, content.size and _transferSize all missing, -1 or above 1 TB)"));
            return nil
        }
        firstByKey[methodKey] = i
        let body = keep(recorded, entry: i)
        noteShapes(i, e, url: c, encoded: encoded != url, sizeSource: body == nil ? source : .bodySize)
        if let port = c.port, port != (scheme == "http" ? 80 : 443) {
            notes.append(Note(entry: i, "port \(port) dropped: netbench serves every origin on one port"))
        }
        let requestBody = self.requestBody(of: e, method: method, entry: i)
        let path =
            (c.percentEncodedPath.isEmpty ? "/" : c.percentEncodedPath) + (c.percentEncodedQuery.map { "?" + $0 } ?? "")
        let t = e.timings
        let total = e.time.flatMap { $0 >= 0 ? $0 : nil } ?? t?.total ?? 0
        let untilFirstByte = min(total, t?.untilFirstByte ?? max(0, total - (t?.receive ?? 0)))
        return Candidate(
            index: i, key: key, host: host, path: path, type: HARClassification.type(of: e, path: path),
            bytes: bytes, start: start, firstByte: start + untilFirstByte, end: start + total, entry: e, body: body,
            method: method == "GET" ? nil : method, requestBody: requestBody)
    }

    /// What a non-GET entry posted (`postData.text`, its `mimeType`); a body the HAR counts but does
    /// not hold, or one above `Scenario.largestRequestBody`, is noted and not sent.
    mutating func requestBody(
        of e: HARArchive.Entry, method: String, entry i: Int
    ) -> Scenario.Resource.RequestBody? {
        guard method != "GET" else { return nil }
        let declared = e.request.bodySize.flatMap { $0 > 0 && $0 < 1e15 ? Int64($0) : nil }
        guard let text = e.request.postData?.text, !text.isEmpty else {
            if let n = declared {
                notes.append(Note(entry: i, "\(method) request: its \(n)-byte body was not recorded; sent without one"))
            }
            return nil
        }
        guard text.utf8.count <= Scenario.largestRequestBody else {
            notes.append(
                Note(entry: i, "\(method) request: its \(text.utf8.count)-byte body is above 16 MiB; not sent"))
            return nil
        }
        let type = e.request.postData?.mimeType.flatMap { $0.isEmpty ? nil : $0 }
            ?? e.request.headers?.first { $0.name.lowercased() == "content-type" }?.value
        return .init(text: text, contentType: type)
    }

    /// Keeps entry `i`'s recorded body when bodies are stored (`Options.bodiesDirectory`) and counts it.
    mutating func keep(_ recorded: HARBodies.Recorded?, entry i: Int) -> Scenario.Resource.Body? {
        guard let r = recorded else { return nil }
        guard options.bodiesDirectory != nil else { bodies.notKept += 1; return nil }
        if let d = r.declaredSize, d != Int64(r.decodedSize) {
            bodies.sizeMismatches.append(
                Note(
                    entry: i,
                    "content.size is \(d) but content.text holds \(r.decodedSize) bytes; the recorded bytes are kept"))
        }
        if r.reencoded { bodies.reencoded += 1 } else if r.wireEncoding != nil { bodies.decodedFromWire += 1 }
        bodies.real += 1
        bodies.bytes += Int64(r.bytes.count)
        bodyBytes[r.body.sha256] = r.bytes
        return r.body
    }

    /// Entries whose shape keeps them out of the page (cached, preflights, after onLoad); each is
    /// counted under its kind.
    mutating func excludedByShape(_ i: Int, _ e: HARArchive.Entry, start: Double) -> Bool {
        if e.fromCache != nil || e.response.status == 304 { shapes.note(.cached, entry: i); return true }
        if e.request.method.uppercased() == "OPTIONS" || e.resourceType?.lowercased() == "preflight" {
            shapes.note(.preflight, entry: i); return true
        }
        if let onLoad = pageOnLoad, start > onLoad { shapes.note(.afterOnLoad, entry: i); return true }
        return false
    }

    /// The shapes of an imported entry that changed nothing but are worth saying.
    mutating func noteShapes(
        _ i: Int, _ e: HARArchive.Entry, url: URLComponents, encoded: Bool,
        sizeSource: HARClassification.SizeSource
    ) {
        if e.response.serviceWorker != nil { shapes.note(.serviceWorker, entry: i) }
        if HARShapes.hasPseudoHeaders(e) { shapes.note(.pseudoHeaders, entry: i) }
        if !(e.timings?.notApplicable ?? []).isEmpty { shapes.note(.notApplicableTimings, entry: i) }
        if sizeSource == .contentSize { shapes.note(.sizeFromContent, entry: i) }
        if sizeSource == .transferSize { shapes.note(.sizeFromTransfer, entry: i) }
        if url.percentEncodedQuery != nil { shapes.note(.query, entry: i) }
        if url.fragment != nil { shapes.note(.fragment, entry: i) }
        if encoded { shapes.note(.encodedURL, entry: i) }
    }

    /// The first page's load event in ms since the epoch (its start plus `pageTimings.onLoad`).
    var pageOnLoad: Double? {
        guard let page = har.log.pages?.first, let onLoad = page.pageTimings?.onLoad,
            let started = page.startedDateTime.flatMap(HARTime.milliseconds)
        else { return nil }
        return started + onLoad
    }

    /// Follows redirect and duplicate aliases to the key that was imported.
    static func resolve(_ key: String, _ alias: [String: String]) -> String {
        var k = key
        var hops = 0
        while let next = alias[k], hops < 20 { k = next; hops += 1 }
        return k
    }
}
