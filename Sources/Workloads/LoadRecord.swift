import Foundation
import BenchCore
import Statistics

/// `load.json` (written by `netbench load -o DIR`): the loads of one invocation, one per
/// transport, with their latency histograms encoded as HdrHistogram does (so shards add exactly).
public struct LoadResults: Codable, Sendable {
    public static let currentVersion = 1
    public var schemaVersion = LoadResults.currentVersion
    public var netbenchVersion: String
    public var startedAt: String
    /// "netbench serve (in process, 127.0.0.1:PORT)" or the `--server`/URL endpoint.
    public var server: String
    public var targets: [String]
    /// How many of each round of requests go to each of `targets` (a weighted URL list, `@FILE`, or a
    /// target given twice); nil when every target gets one.
    public var targetWeights: [Int]?
    public var shard: String?
    public var loads: [LoadRecord]
    public init(netbenchVersion: String, startedAt: String, server: String, targets: [String], loads: [LoadRecord]) {
        self.netbenchVersion = netbenchVersion; self.startedAt = startedAt; self.server = server
        self.targets = targets; self.loads = loads
    }
}

/// Latency figures of one histogram, in milliseconds (HdrHistogram's percentile definition).
public struct LatencySummary: Codable, Sendable, Equatable {
    public var count: Int64
    public var p50: Double, p90: Double, p99: Double, p999: Double, p9999: Double, max: Double
    public var mean: Double?
    public init(_ h: HDRHistogram) {
        func ms(_ v: Int64) -> Double { Double(v) / 1000 }
        count = h.totalCount
        p50 = ms(h.value(atPercentile: 50)); p90 = ms(h.value(atPercentile: 90))
        p99 = ms(h.value(atPercentile: 99)); p999 = ms(h.value(atPercentile: 99.9))
        p9999 = ms(h.value(atPercentile: 99.99)); max = ms(h.maxValue)
        mean = h.mean.map { $0 / 1000 }
    }
}

/// An HDR histogram as results keep it: its parameters and HdrHistogram's compressed V2 encoding.
public struct EncodedHistogram: Codable, Sendable {
    public var unit = "us"
    public var lowestDiscernibleValue: Int64
    public var highestTrackableValue: Int64
    public var significantDigits: Int
    public var encoded: String
    public init(_ h: HDRHistogram) throws {
        lowestDiscernibleValue = h.parameters.lowestDiscernibleValue
        highestTrackableValue = h.parameters.highestTrackableValue
        significantDigits = h.parameters.significantDigits
        encoded = try HDRHistogramEncoding.compressedBase64(h)
    }
    public func decode() throws -> HDRHistogram { try HDRHistogramEncoding.decode(compressedBase64: encoded) }
}

public struct LoadRecord: Codable, Sendable {
    public struct Step: Codable, Sendable {
        public var rate: Double?
        public var durationMs: Double
        public var scheduled: Int
        public var ok: Int
        public var achievedRate: Double
        public var latencyMs: LatencySummary
        public var histogram: EncodedHistogram
    }
    public var transport: LoadTransport
    /// "open" (a rate) or "closed" (as fast as the streams go).
    public var model: String
    public var connections: Int
    public var streams: Int
    public var durationMs: Double
    public var scheduled: Int
    public var sent: Int
    public var ok: Int
    public var unsent: Int
    /// Successful responses per second over the load's duration.
    public var achievedRate: Double
    /// The rate asked for fell short: fewer answers than requests scheduled, or requests never sent.
    public var behind: Bool
    public var errors: [String: Int]
    public var errorExamples: [String: String]
    public var bytes: Int64
    /// Request body bytes sent by the requests that were answered: scenario resources' request bodies
    /// (POST, PUT…) and quic-perf uploads (nil in files written before netbench counted them).
    public var bytesUploaded: Int64?
    /// quic-perf: the bytes each stream uploaded (`--upload`); nil: none given.
    public var upload: Int64?
    public var connectionsOpened: Int
    public var latencyMs: LatencySummary
    public var histogram: EncodedHistogram
    public var sendLagMs: LatencySummary?
    public var generatorCpuMs: Double?
    public var serverCpuMs: Double?
    /// The interval log of this load in the same directory.
    public var hlog: String?
    public var steps: [Step]
    /// The emulated link crossed (`-p PROFILE`), its capacity and ideal; nil on loopback or `--server`.
    public var link: LoadLinkRecord?

    public init(_ o: LoadOutcome, settings: LoadSettings) throws {
        transport = settings.transport
        if case .open = settings.model { model = "open" } else { model = "closed" }
        connections = settings.connections; streams = settings.streamsPerConnection
        durationMs = Double(o.duration) / 1e6
        scheduled = o.scheduled; sent = o.sent; ok = o.ok; unsent = o.unsent
        achievedRate = o.achievedRate
        behind = Self.isBehind(o, open: model == "open")
        errors = o.errors; errorExamples = o.errorExamples; bytes = o.bytes; connectionsOpened = o.connectionsOpened
        bytesUploaded = o.bytesUploaded
        latencyMs = LatencySummary(o.latency)
        histogram = try EncodedHistogram(o.latency)
        sendLagMs = model == "open" ? LatencySummary(o.sendLag) : nil
        generatorCpuMs = o.generatorCPUms
        steps = try o.steps.map { s in
            Step(
                rate: s.rate, durationMs: Double(s.duration) / 1e6, scheduled: s.scheduled, ok: s.ok,
                achievedRate: s.achievedRate, latencyMs: LatencySummary(s.latency),
                histogram: try EncodedHistogram(s.latency))
        }
    }

    /// Open model: behind when some due request never left, or fewer than 99% of the scheduled
    /// requests were answered at all (errors included: they left and came back).
    static func isBehind(_ o: LoadOutcome, open: Bool) -> Bool {
        guard open else { return false }
        let answered = o.ok + o.errorCount - (o.errors["timeout"] ?? 0)
        return o.unsent > 0 || Double(answered) < 0.99 * Double(o.scheduled)
    }
}

/// The emulated link a load crossed (`netbench load -p PROFILE`), its capacity and its ideal.
///
/// Capacity: the requests per second the downlink carries at most, its rate over the response's
/// body bits (`downlink bit/s / (8 × responseBytes)`); headers and packet overhead are left out,
/// so the link is fuller than this share says (`wireBytesPerResponse` tells by how much). Ideal:
/// one request's latency on an idle link with a connection already open, one round trip plus the
/// response body's serialization at the downlink rate (`rttMs + 8 × responseBytes / downlink`);
/// the request's own serialization upstream, headers and packet overhead are left out, so no
/// request can take less (a lower bound, as the page-load ideal is).
public struct LoadLinkRecord: Codable, Sendable, Equatable {
    public var profile: String
    public var rttMs: Double
    public var downlinkMbps: Double?
    public var uplinkMbps: Double?
    /// The mean response body size of the load's targets (bytes).
    public var responseBytes: Double
    public var capacityRate: Double?
    public var idealMs: Double
    /// Response bytes the emulator forwarded downstream per successful response (handshakes,
    /// headers, ACK-carrying packets and retransmissions included); nil before the load ran.
    public var wireBytesPerResponse: Double?
    /// achieved rate × wireBytesPerResponse × 8 / downlink rate.
    public var downlinkUtilization: Double?
    /// Why the emulator flagged this load (fell behind), if it did.
    public var emulatorFlags: [String]?

    public init(
        profile: String, rttMs: Double, downlinkBitsPerSecond: Double?, uplinkBitsPerSecond: Double?,
        responseBytes: Double
    ) {
        self.profile = profile; self.rttMs = rttMs; self.responseBytes = responseBytes
        downlinkMbps = downlinkBitsPerSecond.map { $0 / 1e6 }
        uplinkMbps = uplinkBitsPerSecond.map { $0 / 1e6 }
        capacityRate = Self.capacity(downlinkBitsPerSecond: downlinkBitsPerSecond, responseBytes: responseBytes)
        idealMs = Self.ideal(rttMs: rttMs, downlinkBitsPerSecond: downlinkBitsPerSecond, responseBytes: responseBytes)
    }

    public static func capacity(downlinkBitsPerSecond: Double?, responseBytes: Double) -> Double? {
        guard let rate = downlinkBitsPerSecond, rate > 0, responseBytes > 0 else { return nil }
        return rate / (8 * responseBytes)
    }

    public static func ideal(rttMs: Double, downlinkBitsPerSecond: Double?, responseBytes: Double) -> Double {
        guard let rate = downlinkBitsPerSecond, rate > 0 else { return rttMs }
        return rttMs + 8 * responseBytes / rate * 1000
    }

    /// Fills the measured part: the emulator's downstream bytes over the load's successful responses.
    public mutating func measured(downlinkBytes: Int64, ok: Int, achievedRate: Double, flags: [String]) {
        emulatorFlags = flags.isEmpty ? nil : flags
        guard ok > 0 else { return }
        let perResponse = Double(downlinkBytes) / Double(ok)
        wireBytesPerResponse = perResponse
        if let mbps = downlinkMbps, mbps > 0 { downlinkUtilization = achievedRate * perResponse * 8 / (mbps * 1e6) }
    }
}
