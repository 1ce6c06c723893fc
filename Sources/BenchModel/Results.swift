import Foundation
import BenchCore

/// `results.json` (schema v1): everything a run measured, as raw timestamps, so every figure in a
/// report can be traced back. Timestamps are milliseconds from navigation start of their run, read
/// from the monotonic clock. Encoded with sorted keys.
public struct ResultsFile: Codable, Sendable {
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int
    public var netbenchVersion: String
    /// UTC, ISO 8601.
    public var startedAt: String
    public var host: HostInfo
    public var suite: SuiteInfo
    public var runs: [RunRecord]
    /// The plan's digest (see `PlanDigest`); nil in results written before it existed.
    public var planDigest: String?
    /// Sharded or merged results: where and when each shard ran.
    public var shards: [ShardRecord]?
    /// Merged results: counted runs the plan expects that no shard held.
    public var missingRuns: [String]?
    /// Where the run was made from: the git commit and branch of the working directory (when it
    /// is a repository) and the `--label` given; nil in results written before it existed.
    public var source: SourceInfo?
    /// `run --filmstrip`: per scenario × profile × transport, the frames of one extra browser load.
    public var filmstrips: [FilmstripRecord]?

    public init(netbenchVersion: String, startedAt: String, host: HostInfo, suite: SuiteInfo, runs: [RunRecord] = []) {
        self.schemaVersion = ResultsFile.currentSchemaVersion
        self.netbenchVersion = netbenchVersion
        self.startedAt = startedAt
        self.host = host
        self.suite = suite
        self.runs = runs
    }

    /// Loads a results file, refusing other schema versions with a clear message.
    public static func load(from path: String) throws -> ResultsFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BenchError.data("\(path): does not exist or cannot be read")
        }
        return try decode(data, file: path)
    }

    /// The results in `data` (the text of `file`), refusing other schema versions.
    public static func decode(_ data: Data, file path: String) throws -> ResultsFile {
        struct VersionOnly: Decodable { var schemaVersion: Int? }
        let v = try JSONFile.decode(VersionOnly.self, from: data, file: path)
        guard let version = v.schemaVersion else {
            throw BenchError.data("\(path): missing required key 'schemaVersion' (is this a netbench results.json?)")
        }
        guard version == currentSchemaVersion else {
            throw BenchError.data(
                "\(path): schemaVersion is \(version); this netbench reads results of version \(currentSchemaVersion)")
        }
        return try JSONFile.decode(ResultsFile.self, from: data, file: path)
    }
}

/// The checkout (or label) a run was made from, for history across commits.
public struct SourceInfo: Codable, Hashable, Sendable {
    /// The full commit id of HEAD.
    public var commit: String?
    /// The checked-out branch; nil on a detached HEAD.
    public var branch: String?
    /// HEAD's committer date, UTC ISO 8601 (orders a history by commit).
    public var commitDate: String?
    /// Whether the working tree had uncommitted changes to tracked files.
    public var dirty: Bool?
    /// `netbench run --label`.
    public var label: String?
    public init(
        commit: String? = nil, branch: String? = nil, commitDate: String? = nil, dirty: Bool? = nil,
        label: String? = nil
    ) {
        self.commit = commit; self.branch = branch; self.commitDate = commitDate; self.dirty = dirty; self.label = label
    }
}

public struct HostInfo: Codable, Hashable, Sendable {
    public var kernel: String
    public var cpuCount: Int
    public var hostname: String?
    public init(kernel: String, cpuCount: Int, hostname: String? = nil) {
        self.kernel = kernel; self.cpuCount = cpuCount; self.hostname = hostname
    }
}

public struct SuiteInfo: Codable, Hashable, Sendable {
    public var name: String
    public var scenarios: [String]
    public var profiles: [Profile]
    public var transports: [TransportKind]
    public var runs: Int
    public var warmupRuns: Int?
    public var seed: UInt64
    /// The transport the others are compared against in reports.
    public var baselineTransport: TransportKind?
    public var client: String?
    /// `--runs auto`: runs vary per cell (`runs` is then the maximum).
    public var adaptive: AdaptiveSettings?
    public init(
        name: String, scenarios: [String], profiles: [Profile], transports: [TransportKind], runs: Int,
        warmupRuns: Int? = nil, seed: UInt64, baselineTransport: TransportKind? = nil, client: String? = nil
    ) {
        self.name = name; self.scenarios = scenarios; self.profiles = profiles; self.transports = transports
        self.runs = runs; self.warmupRuns = warmupRuns; self.seed = seed; self.baselineTransport = baselineTransport
        self.client = client
    }
}

/// `--runs auto` as recorded with the results.
public struct AdaptiveSettings: Codable, Hashable, Sendable {
    /// The median PLT's 95% CI half-width aimed at, relative (0.02 = ±2%).
    public var precision: Double
    public var minRuns: Int
    public var maxRuns: Int
    public var budgetSeconds: Double?
    public init(precision: Double, minRuns: Int, maxRuns: Int, budgetSeconds: Double? = nil) {
        self.precision = precision; self.minRuns = minRuns; self.maxRuns = maxRuns; self.budgetSeconds = budgetSeconds
    }
}

public enum RunStatus: String, Codable, Sendable, NamedValues { case ok, failed }

/// One (scenario, profile, transport, index) page load or transfer.
public struct RunRecord: Codable, Sendable {
    public var scenario: String
    public var profile: String
    public var transport: TransportKind
    public var index: Int
    /// Warm-up runs are recorded but left out of statistics.
    public var warmup: Bool?
    /// Who loaded the page; nil in files written before the Chromium client (read as builtin).
    public var client: RunClient?
    public var status: RunStatus
    public var error: String?
    /// Wall-clock start, UTC ISO 8601, for drift analysis.
    public var startedAt: String?
    public var metrics: RunMetrics
    public var requests: [RequestRecord]
    public var connections: [ConnectionRecord]
    public var pathEvents: [PathEventRecord]
    public var emulator: EmulatorRecord?
    /// The machine that made the run, so merged results say where each ran.
    public var host: HostInfo?
    /// The replay server's settings for this run.
    public var server: ServerRecord?
    /// A filmstrip run's painted frames, which the scheduler moves into `ResultsFile.filmstrips`;
    /// never present in the runs of a results file.
    public var frames: [FilmstripRecord.Frame]?
    /// Competing flows on the bottleneck during the run (profiles with `crossTraffic`).
    public var crossTraffic: CrossTrafficRecord?
    /// A browser on a real page (every resource recorded): the scenario's resources the page never
    /// requested, by id; its `requests` hold only those it loaded. nil: none (or a synthetic page).
    public var notRequested: [String]?
    /// `run --cpu-slowdown`: how the browser's CPU was slowed down.
    public var cpuSlowdown: CPUSlowdownRecord?
    /// A browser on a recorded page: its `Date` and `Math.random` made deterministic before any page
    /// script ran (`run --no-deterministic-js` turns it off); nil: not applied.
    public var deterministicJS: DeterministicJSRecord?

    public init(
        scenario: String, profile: String, transport: TransportKind, index: Int, status: RunStatus,
        error: String? = nil, metrics: RunMetrics = RunMetrics(), requests: [RequestRecord] = [],
        connections: [ConnectionRecord] = [], pathEvents: [PathEventRecord] = [], emulator: EmulatorRecord? = nil
    ) {
        self.scenario = scenario; self.profile = profile; self.transport = transport; self.index = index
        self.status = status; self.error = error; self.metrics = metrics; self.requests = requests
        self.connections = connections; self.pathEvents = pathEvents; self.emulator = emulator
    }

    public var counts: Bool { status == .ok && warmup != true }
}

/// A browser run's CPU slowdown (`run --cpu-slowdown N`) and the mechanism that applied it.
public struct CPUSlowdownRecord: Codable, Sendable, Hashable {
    /// N: the CPU is N times slower.
    public var factor: Double
    /// What applied it, e.g. "DevTools Emulation.setCPUThrottlingRate 4" or the cgroup files and values.
    public var mechanism: String
    /// A cgroup quota: how many of its periods held the browser back during the run (cpu.stat's
    /// nr_throttled; 0 means the quota never bit).
    public var throttledPeriods: Int?
    public init(factor: Double, mechanism: String) { self.factor = factor; self.mechanism = mechanism }
}

/// How a recorded page's JavaScript was made deterministic in one browser run (as Web Page Replay does).
public struct DeterministicJSRecord: Codable, Sendable, Hashable {
    /// Where the page's `Date` started (the scenario's `recordedAt`), advancing with real time from the
    /// navigation on; nil: the scenario has no recording time and `Date` was left alone.
    public var dateStart: String?
    /// The seed of the `Math.random` generator (mulberry32, restarted in every document).
    public var randomSeed: UInt32
    /// What applied it.
    public var mechanism: String
    public init(dateStart: String?, randomSeed: UInt32, mechanism: String) {
        self.dateStart = dateStart; self.randomSeed = randomSeed; self.mechanism = mechanism
    }
}

public struct RunMetrics: Codable, Sendable, Hashable {
    /// Navigation start → last byte of the last resource.
    public var pltMs: Double?
    /// Navigation start → first byte of the document response (connection setup included).
    public var ttfbMs: Double?
    /// Setup of the document's connection: TCP connect + TLS, or the QUIC handshake.
    public var handshakeMs: Double?
    public var bytes: Int64?
    public var requests: Int?
    public var connections: Int?
    /// The physical lower bound of `pltMs` (critical path with handshakes and serialization).
    public var idealPltMs: Double?
    /// The lower bound of `ttfbMs`: handshake round trips × RTT plus the document's think time.
    public var idealTtfbMs: Double?
    /// Bulk scenarios: application bytes / transfer time, in Mbit/s.
    public var goodputMbps: Double?
    /// The RTT the ideal was computed with (configured; on loopback the fastest of 20 TCP connects, or of
    /// 20 UDP echoes when the run opens no TCP socket); nil when it could not be measured.
    public var rttMs: Double?
    /// Where `rttMs` came from when it was not the profile's or the TCP connects': UDP echoes (an h3-only
    /// loopback run) or, for `run --server` whose TCP connects failed, QUIC's minimum RTT.
    public var rttSource: String?
    /// Why `idealPltMs` / `idealTtfbMs` are missing (RTT unknown; no rate bound on loopback).
    public var idealNote: String?
    /// Which model the bounds follow (`IdealPageLoad.modelDescription`): with the scenario's server
    /// think times (netbench serve) or without (any other server); nil in files written before it.
    public var idealModel: String?
    public var migration: MigrationMetrics?
    /// Browser clients: navigation start → the end of the document's load event.
    public var loadEventMs: Double?
    /// Browser clients: the browser's own paint metrics, ms from navigation start (Paint Timing's
    /// first-paint and first-contentful-paint; the last largest-contentful-paint candidate).
    public var firstPaintMs: Double?
    public var firstContentfulPaintMs: Double?
    public var largestContentfulPaintMs: Double?
    /// Browser clients with `run --visual-metrics`: WebPageTest's visual metrics from the frames the
    /// browser painted (colour histograms of each frame against the first and the last), ms from
    /// navigation start: Speed Index (∫ 1 − visual progress dt), the first frame that differs from
    /// the blank one, the first frames reaching 85%, 95%, 99% and 100% visual progress, and how many
    /// frames they were computed from.
    public var speedIndexMs: Double?
    public var firstVisualChangeMs: Double?
    public var visuallyComplete85Ms: Double?
    public var visuallyComplete95Ms: Double?
    public var visuallyComplete99Ms: Double?
    public var visuallyCompleteMs: Double?
    public var visualFrames: Int?
    /// Frames taken on a cadence (Firefox's screenshots): the longest time between two of them, ms, so
    /// how late a visual change can show in the metrics; absent for Chromium's frames, sent as painted.
    public var visualFrameGapMaxMs: Double?
    /// Chromium: the time the page's main thread spent in tasks during the run, ms (DevTools
    /// Performance.getMetrics TaskDuration after the load); it grows with `--cpu-slowdown`.
    public var mainThreadTaskMs: Double?
    /// Chromium: the parts of those tasks spent running script (ScriptDuration) and in style and
    /// layout (RecalcStyleDuration + LayoutDuration), ms: CPU work, which `--cpu-slowdown N`
    /// stretches N times, where the rest of a task's time (waiting inside it) is not stretched.
    public var mainThreadScriptMs: Double?
    public var mainThreadStyleLayoutMs: Double?
    /// Why the visual metrics are missing from a run that asked for them (the run itself counts).
    public var visualMetricsError: String?
    /// CPU time spent during the run (thread CPU clocks): the built-in client's thread (nil for
    /// Chromium, another process) and the replay server's thread; the emulator's share is in the
    /// emulator record (`loopCPUShare`).
    public var clientCPUMs: Double?
    public var serverCPUMs: Double?
    /// The whole netbench process over the run (getrusage: all its threads, emulator included).
    public var processCPUMs: Double?
    /// Queueing delay in the emulated bottleneck (each packet's sojourn, serialization included),
    /// all paths of a direction together, ms; per path in `emulator.links`. Emulated runs only.
    public var downlinkQueueDelay: QueueDelayMetrics?
    public var uplinkQueueDelay: QueueDelayMetrics?
    public init() {}
}

/// Percentiles of the queueing delay of one link direction during a run, ms.
public struct QueueDelayMetrics: Codable, Sendable, Hashable {
    public var p50Ms: Double
    public var p90Ms: Double
    public var p99Ms: Double
    public var maxMs: Double
    public init(p50Ms: Double, p90Ms: Double, p99Ms: Double, maxMs: Double) {
        self.p50Ms = p50Ms; self.p90Ms = p90Ms; self.p99Ms = p99Ms; self.maxMs = maxMs
    }
}

public struct MigrationMetrics: Codable, Sendable, Hashable {
    /// Whether the transport connection(s) in use at the event carried on without a new handshake.
    public var survived: Bool
    /// The longest pause in delivery around the event: from the last byte before it, the largest
    /// gap between consecutive arrivals that ends within 5 s after it.
    public var stallMs: Double?
    /// Event → the end of the first 100 ms window after it that carried ≥ 90% of the new path's
    /// rate (nil when never reached: a page load is often latency-bound and never fills the link).
    public var recoveryMs: Double?
    public var extraHandshakes: Int
    public var bytesRedownloaded: Int64
    /// The same load without the event, for comparison.
    public var baselinePltMs: Double?
    public init(
        survived: Bool, stallMs: Double? = nil, recoveryMs: Double? = nil, extraHandshakes: Int = 0,
        bytesRedownloaded: Int64 = 0, baselinePltMs: Double? = nil
    ) {
        self.survived = survived; self.stallMs = stallMs; self.recoveryMs = recoveryMs
        self.extraHandshakes = extraHandshakes; self.bytesRedownloaded = bytesRedownloaded;
        self.baselinePltMs = baselinePltMs
    }
}

/// One resource fetch. Times are ms from navigation start; nil where the phase did not happen
/// (a reused connection has no connect phase).
public struct RequestRecord: Codable, Sendable, Hashable {
    public var id: String
    public var origin: String
    /// Index into the run's `connections`.
    public var connection: Int?
    public var queued: Double
    public var connectStart: Double?
    public var connectEnd: Double?
    public var tlsEnd: Double?
    public var requestSent: Double?
    public var firstByte: Double?
    public var lastByte: Double?
    /// Response body bytes received.
    public var bytes: Int64
    public var status: Int?
    public var `protocol`: String?
    public var error: String?
    /// The priority the client gave the request, by the network stack's names (`highest`, `medium`,
    /// `low`, `lowest`, `idle`): the built-in client's dispatch model, or Chromium's initial priority
    /// (DevTools' `initialPriority`: VeryHigh, High, Medium, Low, VeryLow). Nil when not known (Firefox).
    public var priority: String?
    /// Chromium: the last priority the browser changed the request to (`Network.resourceChangedPriority`,
    /// an image found in the viewport), when it differs from `priority`.
    public var priorityChanged: String?
    public init(id: String, origin: String, queued: Double, bytes: Int64 = 0) {
        self.id = id; self.origin = origin; self.queued = queued; self.bytes = bytes
    }
}

/// A change of the client's network path during a run (switch, rebinding, outage).
public struct PathEventRecord: Codable, Sendable, Hashable {
    public var at: Double
    public var type: String
    public var from: String?
    public var to: String?
    public var detail: String?
    public init(at: Double, type: String, from: String? = nil, to: String? = nil, detail: String? = nil) {
        self.at = at; self.type = type; self.from = from; self.to = to; self.detail = detail
    }
}

/// How faithfully the emulator did its job during the run.
public struct EmulatorRecord: Codable, Sendable, Hashable {
    public var profile: String
    public var configured: String
    public var releaseLatenessP50Us: Double?
    public var releaseLatenessP99Us: Double?
    public var tunDrops: Int64?
    public var packetsForwarded: Int64?
    public var packetsDroppedLoss: Int64?
    public var packetsDroppedQueue: Int64?
    /// Per path and direction: the measured one-way delay distribution and reordering rate.
    public var linkDirections: [LinkDirectionRecord]?
    /// Per direction (client → server: up): packets the queue discipline dropped (drop-tail
    /// overflow, or an AQM's drops) and packets it marked CE instead of dropping.
    public var packetsDroppedQueueUp: Int64?
    public var packetsDroppedQueueDown: Int64?
    public var packetsMarkedCEUp: Int64?
    public var packetsMarkedCEDown: Int64?
    /// The emulator's lateness could move a figure by more than 1% (see `pltLatenessBoundMs`), or
    /// packets were lost outside the link model (TUN drops, pool, write errors).
    public var flagged: Bool
    public var tcpCongestionControl: String?
    /// The machine's timer floor measured before the run's block (µs; p99.9 absent below 1,000
    /// wake-ups): no sleeping emulator can be more punctual than this.
    public var timerFloorP50Us: Double?
    public var timerFloorP99Us: Double?
    public var timerFloorP999Us: Double?
    /// What the emulator could not control: its loop thread's wait for a CPU while runnable
    /// (/proc/thread-self/schedstat) and the machine's steal time (/proc/stat), in ms.
    public var loopRunQueueWaitMs: Double?
    public var stealMs: Double?
    /// The loop thread's CPU time over the run's duration (1 = one whole core).
    public var loopCPUShare: Double?
    /// Release lateness split (p99, µs): the loop's late wake-ups from timed sleeps (the timer's
    /// part) and lateness beyond its pass's wake-up (the emulator's own part).
    public var wakeLatenessP99Us: Double?
    public var ownLatenessP99Us: Double?
    /// How far the release lateness could have moved the run's figures (LinkModel.LatenessBound:
    /// round trips on the critical path × lateness, the tail on the crossings it can strike), ms.
    /// The run is flagged when either exceeds 1% of its figure.
    public var pltLatenessBoundMs: Double?
    public var ttfbLatenessBoundMs: Double?
    /// Precise mode's spin margin (µs); absent in the default mode.
    public var preciseSpinMarginUs: Double?
    /// How long before each release the loop polled instead of sleeping (µs; 0: never) and the
    /// CPU time those polls took (ms), capped at 2% of a core.
    public var releaseSpinWindowUs: Double?
    public var releaseSpinMs: Double?
    /// The batching window of links of 500 Mbit/s or more (µs; 0: none), its wait part of the lateness.
    public var releaseWindowUs: Double?
    /// Release lateness of the packets the window did not hold (µs, p50 and p99): every packet of a
    /// pass that was not a window's end, and a window's last packet before a gap. The lateness a
    /// crossing's last packet can have; with a window, the run's lateness bound takes these.
    public var unheldLatenessP50Us: Double?
    public var unheldLatenessP99Us: Double?
    /// Release lateness of the packets released while no link held any (µs, p50 and p99): before
    /// and between transfers. With a window and no cross traffic, the TTFB's bound takes these.
    public var promptLatenessP50Us: Double?
    public var promptLatenessP99Us: Double?
    /// Arrivals: `kernel` (stamped as packets entered the TUNs, from a packet tap on each) or `read`
    /// (when the loop read them), with why not `kernel` when it was asked for; how many arrivals had
    /// no tapped copy (stamped when read) and how long after entering the loop read them (µs).
    public var arrivalStamps: String?
    public var arrivalStampsFallback: String?
    public var arrivalsUnstamped: Int64?
    public var readLatencyP50Us: Double?
    public var readLatencyP99Us: Double?
    /// `run --pcap`: the run's pcap files (per path and direction, packets into and out of the link model).
    public var pcapFiles: [String]?
    /// Whether the links emptied and fell quiet before the emulator stopped (the run's closing
    /// packets crossed them); false: the wait timed out; absent: not waited for (cross traffic).
    public var linksDrained: Bool?
    /// Per path and direction: queueing delay, packet counts and time series (`LinkQueueRecord`).
    public var links: [LinkQueueRecord]?
    public init(profile: String, configured: String, flagged: Bool = false) {
        self.profile = profile; self.configured = configured; self.flagged = flagged
    }
}

/// The replay server's settings for one run, as the server applied them.
public struct ServerRecord: Codable, Sendable, Hashable {
    /// TLS record sizing of the TCP listener: `dynamic` or the fixed plaintext bytes per record.
    public var tlsRecords: String?
    /// TCP congestion control of the connections the server accepted during the run, read back
    /// from their sockets (getsockopt TCP_CONGESTION); comma-separated if they differed.
    public var congestionControl: String?
    /// HTTP/2 runs: the server's late binding, `off` or the bytes it lets wait unsent in the kernel.
    public var lateBinding: String?
    /// `run --ecn`: the endpoints asked for ECN (TCP: net.ipv4.tcp_ecn=1 in the emulated namespaces,
    /// with `congestionControl` saying which reacts to CE; QUIC: ECT(0) on every datagram ngtcp2
    /// marks). nil: off.
    public var ecn: Bool?
    /// `run --server`: the HOST:PORT loaded from.
    public var address: String?
    /// `run --server`: who answered the description request (netbench serve with these scenarios,
    /// or not identified: a server of the user's own).
    public var identity: String?
    /// Requests the replay server answered 404 during the run (not in the scenario: a recorded
    /// page's script asking for a URL the recording lacks), as `HOST PATH`, in order, at most 1,000.
    public var notFound: [String]?
    /// Requests that came with a body (a recorded POST's), as `METHOD HOST PATH: N bytes` with the body
    /// bytes the replay server received, in order, at most 1,000 (bulk uploads are not listed).
    public var requestBodies: [String]?
    /// h3 runs of `run`'s own servers: how the QUIC endpoints sized packets, controlled congestion and
    /// acknowledged (what sets QUIC's bytes per payload byte on the wire).
    public var quic: QUICSettingsRecord?
    /// Built-in client runs: bytes of the GREASE extension padding each of its TLS ClientHellos (TCP
    /// and QUIC) to a browser's length (`run --client-hello-pad`); 0: unpadded. Absent in results
    /// written before 2026-11-28 (unpadded) and for browser runs.
    public var clientHelloPadding: Int?
    public init(
        tlsRecords: String? = nil, congestionControl: String? = nil, address: String? = nil, identity: String? = nil
    ) {
        self.tlsRecords = tlsRecords; self.congestionControl = congestionControl; self.address = address;
        self.identity = identity
    }
}

/// The QUIC settings of an h3 run (`runs[].server.quic`).
public struct QUICSettingsRecord: Codable, Sendable, Hashable {
    /// Largest UDP payload the endpoints send (bytes; IP packets are 28 bytes larger).
    public var maxUDPPayload: Int
    /// `pmtud`: 1,200-byte datagrams until path MTU discovery confirms a larger probe, up to
    /// `maxUDPPayload`; `fixed`: `maxUDPPayload` from the first packet (`--quic-udp-payload`);
    /// `no-pmtud`: 1,200 bytes throughout.
    public var udpPayloadSizing: String
    /// The QUIC congestion controller (ngtcp2's), both ends.
    public var congestionControl: String
    /// Ack-eliciting packets received before an immediate ACK (else after max_ack_delay).
    public var ackThreshold: Int
    /// Built-in client runs: its source connection ID length, which every server packet carries.
    public var clientConnectionIDLength: Int?
    /// Pacing under cubic and reno as `--quic-pacing` takes it: `SS,CA` gains × cwnd/smoothed RTT
    /// in slow start and after it (`off`: not paced in that phase), or `off`. Absent in results
    /// written before 2026-11-27 (they paced at 2,1.25).
    public var pacing: String?
    /// Chromium runs: the responses carried `Alt-Svc: h3` (browsers learn each origin as QUIC-capable,
    /// as from a real site; Chromium then no longer throttles its low-priority requests to it). Absent
    /// in browser results written before 2026-11-28, whose h3 origins were known from flags only.
    public var altSvcToBrowser: Bool?
    public init(maxUDPPayload: Int, udpPayloadSizing: String, congestionControl: String, ackThreshold: Int) {
        self.maxUDPPayload = maxUDPPayload; self.udpPayloadSizing = udpPayloadSizing
        self.congestionControl = congestionControl; self.ackThreshold = ackThreshold
    }
}
