import BenchCore
import BenchModel
import Browsers
import SystemIO
import LinkEmulator
import Testbed
import Runner
import Foundation
import CommandLineKit

/// `netbench record`: headless Chromium loads real pages; their bytes become replayable scenarios.
struct RecordCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "record",
            abstract: "record real pages with headless Chromium into scenarios with their bodies",
            discussion: """
                Loads each URL in a fresh headless Chromium (cold profile, cache off) and follows it over DevTools' \
                Network domain: every request's method, URL and query string, request and response headers, \
                status, protocol, timing, redirects (one entry per hop) and initiator, and at the end each \
                response's body (Network.getResponseBody). The load is over at the load event plus network quiet \
                (no request in flight for 500 ms, the rule a browser's replay of the page ends by, see run --help); \
                requests made after the load event until then are kept too. Per URL it writes DIR/NAME.har (the \
                recording as a HAR 1.2 log with content, Chrome's _initiator/_resourceType/_priority) and \
                DIR/NAME.json, the scenario 'netbench import-har DIR/NAME.har' makes of it: one origin per host \
                name (each its own certificate name when replayed), exact bodies in DIR/bodies/ (shared by the \
                scenarios, one file per body named by its SHA-256), "queryMatch": "closest". NAME is the URL's host \
                and path in lower case, other characters as '-'. Each response's server think time is its recorded \
                wait less the recorded round trip, as import-har computes it; --no-think-time drops them (a site on \
                this machine answers at once: what it recorded as waiting was the machine).

                Compression is replayed as recorded: Chromium hands over bodies decoded, so a response that came \
                gzip-encoded is encoded again (deterministically, as nginx's gzip does by default: the same bytes \
                for an nginx site) and stored and replayed with content-encoding gzip (--gzip-as-recorded, the \
                default, is still accepted); --decompress-bodies stores and replays every body decoded instead. br \
                and deflate are stored decoded. Each request keeps its method and, for POST and the like, its body \
                (DevTools' postData; the scenario's "method" and "requestBody"): the replay answers a request only \
                when its method and URL were recorded together, anything else is a 404 listed in the run's record.

                Replay: 'netbench run DIR/NAME.json --client chromium' (or builtin) serves the recorded bytes over \
                h1, h2 or h3 under the recorded host names; 'netbench serve DIR/NAME.json' for another host. A body \
                file missing from DIR/bodies exits 65 naming it. The scenario keeps \
                when the load started ("recordedAt"): Chromium's replay starts the page's Date there and seeds its \
                Math.random (run --help, --no-deterministic-js).

                Local sites (no DNS for their names): --resolve docs.test=127.0.0.1:8443 sends a name to an \
                address (and port) of your choice, --insecure accepts the site's own certificate.

                --profile PROFILE records through that profile's emulated network, as 'run' and 'shell' build it: \
                Chromium runs in its client namespace, so the HAR's timings (connect, wait, receive) are those of \
                the profile's link. The site is reached as 'shell' reaches NETBENCH_HOST: a --resolve target on \
                127.0.0.1 (or localhost) goes to the host's loopback through the emulator (needs root and nft). \
                Name the site by a host name (--resolve), not by 127.0.0.1 in the URL (that is the namespace's own). \
                The recorded round trip is subtracted from the think times as always.

                A URL that cannot be loaded (a name that does not resolve, a refused connection, a time-out) is \
                one line on stderr and the other URLs are recorded; the exit status is then 2.
                """,
            examples: [
                "netbench record https://example.com/ -o recordings/",
                "netbench record https://docs.test/ --resolve docs.test=127.0.0.1:8443 --insecure -o site/",
                "netbench run site/docs.test.json --client chromium -t h1,h2,h3 -p 4G",
                "netbench record https://docs.test:8443/ --resolve docs.test=127.0.0.1:8443 --insecure -p 4G -o 4g/",
            ],
            exitCodes: [
                ExitCodeDoc(.success, "every URL recorded"),
                ExitCodeDoc(.runFailed, "a URL could not be recorded (the others were), or DIR cannot be written"),
                Netbench.usageExit,
                ExitCodeDoc(
                    .noPermission,
                    "Chromium is not installed (the message says how to get it), or --profile cannot emulate here"),
            ])
    }

    @Argument("URL", help: "the pages to record (https:// or http://)") var urls: [String]
    @Option(
        "--output", "-o", value: "DIR", help: "directory for the scenarios, HARs and bodies (created if missing)",
        parse: .nonEmpty) var output: String
    @Option(
        "--resolve", value: "HOST=ADDR[:PORT]",
        help: "send HOST to ADDR (and PORT) instead of resolving it (Chromium's host resolver rules); repeatable",
        repeating: .nonEmpty) var resolve: [String]
    @Flag("--insecure", help: "accept any certificate (a local site's own CA); QUIC is then not used")
    var insecure: Bool
    @Flag(
        "--no-think-time",
        help: "replay with no server think time (a local site's recorded waits are the recording machine's own "
            + "delays, not its server's)") var noThinkTime: Bool
    @Option(
        "--timeout", value: "DURATION", help: "how long one page may take to load and go quiet (default 30s)",
        parse: .duration(atLeast: .milliseconds(100))) var timeout: Nanoseconds?

    @Flag(
        "--decompress-bodies",
        help: "store and replay every body decoded, without content-encoding; default: a body that came "
            + "gzip-encoded is stored and replayed gzip-encoded, as nginx's gzip writes it by default")
    var decompressBodies: Bool
    @Flag("--gzip-as-recorded", help: "compression replayed as recorded: the default (accepted for older scripts)")
    var gzipAsRecorded: Bool
    @Option(
        "--profile", "-p", value: "PROFILE",
        help: "record through this emulated profile (e.g. 4G): Chromium in its client namespace, the site reached "
            + "through the emulator; needs root and nft", parse: .nonEmpty) var profile: String?

    func run() throws -> ExitCode {
        var settings = ChromiumRecorder.Settings()
        settings.insecure = insecure
        if decompressBodies && gzipAsRecorded {
            throw BenchError.usage("--decompress-bodies and --gzip-as-recorded exclude each other")
        }
        settings.version = netbenchVersion
        if let timeout { settings.timeout = timeout }
        for r in resolve {
            let parts = r.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw BenchError.usage("--resolve \(r): expected HOST=ADDR[:PORT], e.g. docs.test=127.0.0.1:8443")
            }
            settings.resolve.append((String(parts[0]), String(parts[1])))
        }
        for u in urls where !(u.hasPrefix("https://") || u.hasPrefix("http://")) {
            throw BenchError.usage("URL \(u): expected https:// or http://")
        }
        guard let chromium = ChromiumRecorder.locate() else {
            writeError("netbench record: Chromium is not installed: " + ChromiumRecorder.installHint)
            return .noPermission
        }
        try Self.prepare(directory: output)
        let network = try profile.map { try Self.emulate($0, &settings) }
        defer {
            if let network {
                if network.network.isRunning { _ = try? network.stop() }
                network.close()
            }
        }
        var failed = 0
        var names = Set<String>()
        for url in urls {
            var name = Self.name(of: url)
            while !names.insert(name).inserted { name += "-again" }
            do {
                let recording = try ChromiumRecorder.record(url: url, executable: chromium, settings: settings)
                try write(recording, url: url, name: name)
            } catch let u as ChromiumRecorder.Unreachable {
                writeError("netbench record: \(u)")
                failed += 1
            }
        }
        return failed == 0 ? .success : .runFailed
    }

    /// Builds and starts `name`'s emulated network; Chromium will run in its client namespace and reach
    /// --resolve targets on the host's loopback through its host gateway (as `shell`'s NETBENCH_HOST).
    static func emulate(_ name: String, _ settings: inout ChromiumRecorder.Settings) throws -> ShellTestbed {
        let library = Library.locate()
        let profile = try library.profile(name)
        guard profile.isEmulated else {
            throw BenchError.usage("--profile \(name): not emulated; record without --profile for this machine's own")
        }
        try PrivilegeGate.requireEmulation()
        if getuid() == 0 { _ = EmulatedNetwork.cleanupStale() }
        let testbed = try ShellTestbed(profile: profile, library: library, settings: EmulatorSettings(), seed: 1)
        do { try testbed.start(loop: false, capture: nil) } catch {
            testbed.close()
            throw error
        }
        let host = testbed.environment["NETBENCH_HOST"] ?? "127.0.0.1"
        settings.namespace = testbed.network.clientNamespace
        settings.resolve = settings.resolve.map { (host: $0.host, target: Self.throughGateway($0.target, host)) }
        print("recording through profile \(profile.name) (\(profile.summary)); the host's loopback is \(host)")
        return testbed
    }

    /// A --resolve target on the host's loopback (`127.0.0.1[:PORT]`, `localhost[:PORT]`) as `gateway[:PORT]`.
    static func throughGateway(_ target: String, _ gateway: String) -> String {
        for loopback in ["127.0.0.1", "localhost"] where target == loopback || target.hasPrefix(loopback + ":") {
            return gateway + target.dropFirst(loopback.count)
        }
        return target
    }

    /// The HAR, then the scenario `import-har` makes of it, with its bodies in DIR/bodies.
    private func write(_ recording: ChromiumRecorder.Recording, url: String, name: String) throws {
        let harPath = output + "/" + name + ".har"
        let scenarioPath = output + "/" + name + ".json"
        try Self.writing(harPath) { try AtomicFile.write(recording.har, to: harPath) }
        var options = HARImporter.Options(name: name, subtractRoundTrip: true, bodiesDirectory: "bodies")
        options.gzipAsRecorded = !decompressBodies
        let result = try HARImporter.importHAR(recording.har, file: harPath, options: options)
        try Self.writing(output + "/bodies") {
            try ImportHARCommand.writeBodies(result.bodies, to: "bodies", besideScenario: scenarioPath)
        }
        var model = result.scenario
        if noThinkTime {
            for i in model.resources.indices { model.resources[i].thinkTimeMs = nil }
        }
        let scenario = try JSONFile.encode(model)
        try Self.writing(scenarioPath) { try AtomicFile.write(scenario, to: scenarioPath) }
        print("recorded \(url): \(recording.requests) requests")
        print(ImportHARCommand.reportText(result, source: harPath, output: scenarioPath), terminator: "")
        for f in recording.failedRequests { print("  request failed while recording: \(f)") }
    }

    /// Creates DIR; one that cannot be created or written is a run failure naming it.
    static func prepare(directory: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw BenchError.run("\(directory): cannot create the output directory: \(error.localizedDescription)")
        }
        let probe = directory + "/.netbench-write-test-\(getpid())"
        guard FileManager.default.createFile(atPath: probe, contents: Data()) else {
            throw BenchError.run("\(directory): the output directory is not writable")
        }
        try? FileManager.default.removeItem(atPath: probe)
    }

    /// A write that fails is a run failure naming the path (not a data error: the input was fine).
    static func writing(_ path: String, _ body: () throws -> Void) throws {
        do { try body() } catch let e as BenchError {
            throw BenchError.run("\(path): cannot be written: \(e)")
        } catch {
            throw BenchError.run("\(path): cannot be written: \(error.localizedDescription)")
        }
    }

    /// The URL's host and path, lower case, every other character a '-' (no leading/trailing '-').
    static func name(of url: String) -> String {
        var rest = Substring(url)
        if let r = rest.range(of: "://") { rest = rest[r.upperBound...] }
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var out = ""
        for ch in rest.lowercased() {
            let ok = ch.isASCII && (ch.isLetter || ch.isNumber || ch == ".")
            if ok { out.append(ch) } else if !out.hasSuffix("-") { out.append("-") }
        }
        while out.hasSuffix("-") || out.hasSuffix(".") { out.removeLast() }
        return out.isEmpty ? "page" : out
    }
}
