import Foundation
import BenchCore
import BenchModel
import Runner
import Testbed
import Workloads
import RemoteExecution
import Statistics
import LinkEmulator
import SystemIO
import Transport
import TLS
import QUIC
import CommandLineKit

/// `netbench load`: requests per second and their latency, open model (a rate) or closed.
struct LoadCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "load",
            abstract: "request rate and latency under load, open or closed, h1/h2/h3/quic-perf",
            discussion: """
                Sends requests to netbench's own replay server, started in this process on 127.0.0.1 (the \
                scenarios' resources; without a target, one generated resource of --size at /obj), or to \
                --server HOST:PORT (the scenarios' resources, names as SNI and :authority) or to the URLs given. \
                Each scenario resource is requested with its own method (GET, POST, PUT, PATCH, DELETE) and, when \
                it has a requestBody, that body with content-length and its content-type, over h1, h2 and h3 \
                alike (the replay server answers a request only when its method and URL are a resource's); \
                URLs are requested with GET, or with --method and --body-file (the same for every URL). \
                Every scenario resource's response must be status 200 with exactly its size in body bytes \
                (a URL's: status 200); anything else counts as an error by kind: connect (no connection or \
                handshake), closed (the connection or stream failed mid-request), status, length, timeout (no \
                answer within --grace after the end). Certificates are checked against --ca, else the system \
                store (the in-process server's CA is trusted). \
                Open model (--rate): requests are due at a constant rate (or steps of a ramp) whatever the \
                server does, spread over --connections with at most --streams in flight on each (h1: one); \
                latency runs from each request's intended send time, so a stalled server shows in the tail \
                (coordinated omission corrected, as wrk2 does). When fewer requests are answered than were due, \
                or some due request never left because every stream was busy, the summary says so and shows the \
                rate achieved. Closed model (no --rate): every stream sends its next request when its last \
                ends, as h2load does; latency runs from the send. Latency is recorded in µs in HDR histograms \
                (1 µs to 1 h, 3 significant digits, HdrHistogram's layout); -o DIR writes load.json (figures, \
                histograms in HdrHistogram's compressed encoding) and latency-<transport>.hlog (HdrHistogram's \
                interval log, one line per second). \
                With -p PROFILE the in-process server sits behind the profile's emulated link (in its server \
                namespace, the generator in the client namespace, the network made as run makes it; root, or a \
                user namespace). The summary then gives the link's capacity in requests per second (downlink rate \
                / response body bits) and its ideal latency (one RTT plus the response body's serialization at \
                the downlink rate: a lower bound, headers and packet overhead left out), each percentile as a \
                multiple of the ideal, and the downlink bytes per response the emulator forwarded; --rate 50% \
                asks for a share of that capacity.

                -t quic-perf measures raw QUIC without HTTP/3: requests per second over streams of the QUIC \
                performance protocol (\(QUICPerf.draft), ALPN perf, as netbench perf speaks it). Each request is \
                one bidirectional stream carrying the 8-byte size it asks for (a scenario resource's size, else \
                --size) and FIN; the server answers that many bytes and FIN. With --upload SIZE each stream \
                uploads SIZE bytes after its size (without it, a scenario resource's request body size, else \
                nothing), and load.json records the size and the bytes uploaded. A stream answered with exactly \
                its size is ok (fewer or more bytes: length; a reset stream: closed); --connections and --streams mean \
                what they mean for h3 (QUIC connections, streams in flight on each), and the latency, histograms, \
                shards and merge are as for HTTP. Without --server an in-process perf server answers (beside the \
                replay server, through -p too); --server HOST:PORT is any server of the draft (netbench perf \
                --listen; the tests use one written on aioquic), its certificate checked for HOST (or the \
                scenario's names) as for h3. Beside -t h3 on the same link and sizes it shows what HTTP/3 costs \
                over QUIC.
                """,
            examples: [
                "netbench load --rate 1000/s --duration 10s",
                "netbench load Scenarios/pages/mobile-median.json -t h1,h2,h3 --rate 500/s -o load-out",
                "netbench load --connections 10 --streams 10 --duration 5s -t h2",
                "netbench load https://example.test:8443/obj --ca ca.pem --rate 2000/s",
                "netbench load --rate 1000..5000/s --step 5s",
                "netbench load -t h3 -p link.json --size 10KB --rate 90% --duration 10s",
                "netbench load page.json --server 10.0.0.2:443 --ca ca.pem --rate 5000/s --shard 2/4",
                "netbench load -t h3,quic-perf --connections 4 --streams 16 --duration 5s",
                "netbench load -t quic-perf --server 127.0.0.1:4433 --ca perf-ca.pem --size 10KB --rate 2000/s",
                "netbench load https://api.example.test/v1/cart --body-file cart.json --content-type application/json",
                "netbench load @urls.txt --ca ca.pem --rate 2000/s   # lines: https://HOST:PORT/PATH [WEIGHT]",
                "netbench load -t quic-perf --size 1KB --upload 100KB --connections 4 --streams 8 --duration 5s",
            ],
            exitCodes: [
                ExitCodeDoc(.success, "the load ran and some requests succeeded (errors and shortfalls are reported)"),
                ExitCodeDoc(.runFailed, "no request succeeded, or the server could not be started"),
                Netbench.usageExit, Netbench.dataExit,
            ])
    }

    @Argument(
        "TARGET",
        help: "scenario files (their resources), https:// URLs, or @FILE: a list of URLs, one per line, each "
            + "optionally followed by a whole-number weight (requests go in proportion; # starts a comment); "
            + "none: one generated resource",
        completion: .file(extensions: ["json"])) var targetTexts: [String]
    @Option(
        "--transport", "-t", value: "LIST", default: [LoadTransport.h2], defaultText: "h2",
        help: "transports, loaded one after another (h1, h2: TCP+TLS; h3: QUIC; quic-perf: raw QUIC streams of "
            + "the perf protocol)", parse: .list(of: .choice()))
    var transports: [LoadTransport]
    @Option(
        "--rate", "-r", value: "R/s",
        help: "open model: requests per second (e.g. 5000/s), or a ramp A..B/s in steps of --step; with -p, "
            + "a share of the link's capacity (50%, 50..90%); without it, the closed model",
        parse: LoadRate.parser) var rate: LoadRate?
    @Option(
        "--step", value: "D",
        help: "with a ramp --rate A..B/s: the length of each step; --duration / D steps (at least 2), evenly "
            + "spaced from A to B",
        parse: .duration(atLeast: 100_000_000)) var step: Nanoseconds?
    @Option(
        "--duration", "-d", value: "D", default: 10_000_000_000, defaultText: "10s",
        help: "how long requests are offered", parse: .duration(atLeast: 100_000_000)) var duration: Nanoseconds
    @Option(
        "--connections", "-c", value: "N", default: 10, help: "connections kept open (per transport)",
        parse: .int(1...10_000)) var connections: Int
    @Option(
        "--streams", "-m", value: "M", default: 10, help: "requests in flight per connection at most (h1: 1)",
        parse: .int(1...1000)) var streams: Int
    @Option(
        "--grace", value: "D", default: 5_000_000_000, defaultText: "5s",
        help: "how long requests in flight at the end may take before they count as timeouts",
        parse: .duration()) var grace: Nanoseconds
    @Option(
        "--size", value: "SIZE", default: 1000, defaultText: "1KB",
        help: "without a target: the size of the generated resource the in-process server serves", parse: .size)
    var size: Int64
    @Option(
        "--upload", value: "SIZE",
        help: "-t quic-perf only: each perf stream uploads SIZE bytes (after its 8-byte size, before its FIN; "
            + "default: a scenario resource's request body size, else 0); h1/h2/h3 send each scenario "
            + "resource's own method and request body instead", parse: .size)
    var upload: Int64?
    @Option(
        "--method", value: "METHOD",
        help: "URL targets: the request method (GET, POST, PUT, PATCH, DELETE; default GET, or POST with "
            + "--body-file); a scenario's resources carry their own",
        parse: .init(expected: "GET, POST, PUT, PATCH or DELETE") {
            Scenario.Resource.methods.contains($0.uppercased()) ? $0.uppercased() : nil
        }) var method: String?
    @Option(
        "--body-file", value: "FILE",
        help: "URL targets: send this file's bytes as every request's body (with content-length; at most "
            + "16 MiB)", parse: .file()) var bodyFile: String?
    @Option(
        "--content-type", value: "TYPE",
        help: "with --body-file: the body's content-type (default: none sent)", parse: .nonEmpty)
    var contentType: String?
    @Option(
        "--server", value: "HOST:PORT",
        help: "send the scenarios' requests to this server (as run --server does) instead of an in-process one",
        parse: .nonEmpty) var server: String?
    @Option(
        "--ca", value: "FILE",
        help: "--server or URLs: PEM file of the roots the server's certificate must verify against (default: "
            + "the system store)", parse: .file()) var ca: String?
    @Option(
        "--shard", value: "I/N",
        help: "this process offers 1/N of --rate (shard I of N, from 1), for N load generators whose histograms "
            + "add exactly; default: the job engine's variables, as run --shard (JOB_COMPLETION_INDEX with "
            + "NETBENCH_SHARD_COUNT, CI_NODE_INDEX/CI_NODE_TOTAL, SLURM_ARRAY_*)", parse: .nonEmpty)
    var shardText: String?
    @Option(
        "--profile", "-p", value: "NAME",
        help: "put the in-process server behind this profile's emulated link (a profile name or file); default: "
            + "loopback", parse: .nonEmpty) var profileName: String?
    @Option(
        "--out", "-o", value: "DIR", help: "write load.json and latency-<transport>.hlog into DIR",
        parse: .directory) var out: String?

    func validate() throws {
        if let rate, rate.to != nil, step == nil {
            throw BenchError.usage("--rate \(rate): a ramp needs --step D (the length of each step)")
        }
        if step != nil, rate?.to == nil { throw BenchError.usage("--step needs a ramp --rate A..B/s") }
        if rate?.percent == true, profileName == nil {
            throw BenchError.usage("--rate \(rate!): a share of the link's capacity needs -p PROFILE")
        }
        if ca != nil, server == nil, !targetTexts.contains(where: LoadTargets.isURLTarget) {
            throw BenchError.usage("--ca needs --server or a URL target")
        }
        let urlOption = method.map { _ in "--method" } ?? bodyFile.map { _ in "--body-file" }
            ?? contentType.map { _ in "--content-type" }
        if let urlOption, !targetTexts.contains(where: LoadTargets.isURLTarget) {
            throw BenchError.usage(
                "\(urlOption) applies to URL targets; a scenario's resources are sent with their own method and "
                    + "requestBody")
        }
        if method == "GET", bodyFile != nil {
            throw BenchError.usage("--method GET --body-file \(bodyFile!): a GET request has no body")
        }
        if contentType != nil, bodyFile == nil {
            throw BenchError.usage("--content-type \(contentType!) needs --body-file FILE (the body it describes)")
        }
        if let contentType, contentType.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value > 0x7E }) {
            throw BenchError.usage("--content-type '\(contentType)': not a printable ASCII header value")
        }
        if let upload, let other = transports.first(where: { $0 != .quicPerf }) {
            throw BenchError.usage(
                "--upload \(upload): only for -t quic-perf (a perf stream's upload), not \(other.rawValue); "
                    + "HTTP requests send their scenario resource's requestBody")
        }
        _ = try shard()
    }

    /// What URL targets send: --method, --body-file's bytes (read here: a missing or too large file
    /// exits 65 naming it), --content-type.
    func urlRequest() throws -> URLRequestSpec {
        var spec = URLRequestSpec(method: method ?? (bodyFile == nil ? "GET" : "POST"), contentType: contentType)
        if let bodyFile {
            guard let data = FileManager.default.contents(atPath: bodyFile) else {
                throw BenchError.data("--body-file \(bodyFile): cannot read the file")
            }
            guard data.count <= Scenario.largestRequestBody else {
                throw BenchError.data("--body-file \(bodyFile): \(data.count) bytes is above 16 MiB")
            }
            spec.body = [UInt8](data)
        }
        return spec
    }

    func shard() throws -> ShardSpec? {
        guard let shardText else {
            return try ShardSpec.fromEnvironment(ProcessInfo.processInfo.environment)?.shard
        }
        guard let s = ShardSpec.parse(shardText) else {
            throw BenchError.usage("--shard '\(shardText)': expected I/N with 1 ≤ I ≤ N (e.g. 2/4)")
        }
        return s
    }

    func run() throws -> ExitCode {
        let profile = try profileName.map { try Library.locate().profile($0) }
        if profile?.isEmulated == true { try PrivilegeGate.requireEmulation() }
        let plan = try LoadTargets.resolve(
            targetTexts, server: server, ca: ca, size: size, transports: transports, profile: profile,
            urlRequest: try urlRequest())
        defer { plan.close() }
        var model: [LoadSchedule.Step]?
        let link = plan.linkRecord()
        if let rate = try rate?.resolved(capacity: link?.capacityRate) {
            let fraction = 1.0 / Double(try shard()?.count ?? 1)
            model = rate.steps(duration: duration, step: step).map {
                LoadSchedule.Step(rate: $0.rate * fraction, duration: $0.duration)
            }
        }
        guard connections >= plan.serverNames.count else {
            throw BenchError.usage(
                "--connections \(connections): the targets have \(plan.serverNames.count) server names, "
                    + "and each connection serves one; use at least that many")
        }
        writeError("load → \(plan.serverLine)")
        var records: [LoadRecord] = []
        let started = BenchmarkRunner.utcTimestamp()
        for t in transports {
            var settings = LoadSettings(
                transport: t, model: model.map { .open($0) } ?? .closed(duration: duration),
                connections: connections, streams: streams)
            settings.grace = grace
            let cpuBefore = plan.server(t)?.cpuMs
            let generator = try LoadGenerator(
                settings: settings, targets: plan.targets(for: t, upload: upload), remote: plan.remote(t),
                client: try plan.client(t))
            generator.local = plan.local
            try plan.testbed?.start()
            let outcome: LoadOutcome
            do { outcome = try generator.run() } catch {
                _ = try? plan.testbed?.stop()
                throw error
            }
            let report = try plan.testbed?.stop()
            var record = try LoadRecord(outcome, settings: settings)
            record.upload = t == .quicPerf ? upload : nil
            if let a = cpuBefore, let b = plan.server(t)?.cpuMs { record.serverCpuMs = b - a }
            if var link, let report {
                link.measured(
                    downlinkBytes: report.paths.first?.downlink.forwarded.bytes ?? 0, ok: record.ok,
                    achievedRate: record.achievedRate, flags: report.flagReasons)
                record.link = link
            }
            if let out {
                record.hlog = "latency-\(t.rawValue).hlog"
                var log = HistogramLog(
                    startTime: outcome.startedAt, maxValueUnitRatio: 1000,
                    comment: "netbench load \(t.rawValue), latency in µs, Interval_Max in ms")
                log.intervals = outcome.intervals
                try AtomicFile.write(Data(log.render().utf8), to: out + "/" + record.hlog!)
            }
            print(LoadSummary.text(record))
            records.append(record)
        }
        if let out {
            // Each target once, in the order first met; a weighted list's weights as its share of the round.
            var labels: [String] = []
            var weights: [String: Int] = [:]
            for t in plan.targets {
                let label = (t.method == "GET" ? "" : t.method + " ") + "https://\(t.serverName)\(t.path)"
                if weights[label] == nil { labels.append(label) }
                weights[label, default: 0] += 1
            }
            var results = LoadResults(
                netbenchVersion: netbenchVersion, startedAt: started, server: plan.serverLine, targets: labels,
                loads: records)
            if weights.values.contains(where: { $0 > 1 }) { results.targetWeights = labels.map { weights[$0]! } }
            results.shard = try shard()?.description
            try AtomicFile.write(try JSONFile.encode(results), to: out + "/load.json")
            print("wrote \(out)/load.json" + records.compactMap { $0.hlog.map { ", \(out)/\($0)" } }.joined())
        }
        return records.contains { $0.ok == 0 } ? .runFailed : .success
    }
}
