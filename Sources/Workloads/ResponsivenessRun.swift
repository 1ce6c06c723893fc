import Foundation
import BenchCore
import Runner
import BenchModel
import Testbed
import SystemIO
import Transport
import TLS
import QUIC
import Statistics
import LinkModel
import LinkEmulator

/// Latency under load (`netbench responsiveness`): on one profile with one queue size and one
/// transport, probes the idle link, then starts `loadFlows` bulk transfers per loaded direction,
/// lets them fill the queue, and probes again (see `Responsiveness` for the aggregation into RPM).
///
/// The directions are the draft's (draft-ietf-ippm-responsiveness-08, "Concurrent vs Sequential
/// Uplink and Downlink"): downloads (GET of an endless body), uploads (POST of an endless body) or
/// both. Both at once is the draft's concurrent test (one loaded phase, one RPM); sequentially, a
/// download phase and then an upload phase, each with its own RPM, which tells the direction of
/// the delay apart.
public struct ResponsivenessRun {
    /// What the load saturates.
    public enum Direction: String, Sendable, CaseIterable, CustomStringConvertible {
        case down, up, bidir
        public var description: String { rawValue }
    }

    /// How a `bidir` run loads both directions (the draft's concurrent and sequential tests).
    public enum Mode: String, Sendable, CaseIterable, CustomStringConvertible {
        case parallel, sequential
        public var description: String { rawValue }
    }

    public var profile: Profile
    public var transport: TransportKind
    public var direction: Direction = .down
    public var mode: Mode = .parallel
    /// Load-generating connections per loaded direction.
    public var loadFlows: Int = 4
    public var idleDuration: Nanoseconds = .seconds(2)
    /// Time for the load to leave slow start and fill the queue before loaded probes begin.
    public var rampUp: Nanoseconds = .seconds(2)
    public var loadedDuration: Nanoseconds = .seconds(4)
    /// One foreign and one self probe per interval (the draft's probes are at most 100 per second).
    public var probeInterval: Nanoseconds = .milliseconds(100)
    /// How long probes still in flight when a phase's probing ends may take to finish.
    public var grace: Nanoseconds = .seconds(6)
    public var tcpCongestionControl = "cubic"
    /// The h2 client's late binding (TCP_NOTSENT_LOWAT, as the server's default): the draft asks
    /// test endpoints to keep their unsent backlog small, so that a self probe sent on an upload
    /// connection waits behind the network's queue, not behind the client's own socket buffer.
    public var clientUnsentLimit: Int? = 16 * 1024
    /// ECN at the endpoints (`run --ecn`'s): TCP negotiates it in the namespaces, QUIC sends
    /// ECT(0). The loads' congestion control (cubic) reacts to CE marks.
    public var ecn = false
    public var library: Library
    public var seed: UInt64 = 1

    public init(profile: Profile, transport: TransportKind, library: Library = Library.locate()) {
        self.profile = profile; self.transport = transport; self.library = library
    }

    public struct Phase: Sendable {
        public var result: Responsiveness.Result?
        public var foreignProbes: Int
        public var selfProbes: Int
        /// Probes that failed or were still unanswered when the phase ended (left out of RPM).
        public var unfinished: Int
        public var firstFailure: String?
        /// Self probes that are the load connections' smoothed RTT, not a GET (see
        /// `ResponsivenessProbes.selfEstimate`): HTTP/3 uploads.
        public var selfEstimated = 0
    }

    /// One loaded phase: which directions were loaded, its probes, the load's goodput.
    public struct LoadedPhase: Sendable {
        public var load: Direction
        public var probes: Phase
        /// The load flows' goodput per direction while the probes ran, Mbit/s (nil: not loaded).
        public var downloadMbps: Double?
        public var uploadMbps: Double?
        /// Load connections that used ECN at the end: TCP negotiated it, QUIC still marked ECT(0).
        public var ecnConnections = 0
    }

    public struct Outcome: Sendable {
        public var idle: Phase
        /// One phase (down, up, or bidir in parallel), or two (bidir sequentially: down, then up).
        public var loaded: [LoadedPhase]
        public var queueLimitBytes: Int?
        public var emulatorFlags: [String]
    }

    /// The loaded phases this run makes, in order.
    public var phases: [Direction] {
        switch (direction, mode) {
        case (.bidir, .sequential): return [.down, .up]
        default: return [direction]
        }
    }

    /// The responsiveness catalog: the endless download, the 1-byte probe object, and an endless
    /// upload accepted at `Scenario.bulkPath`.
    static let scenario = Scenario(
        name: "responsiveness", origins: [.init(id: "o", host: CrossTrafficSession.serverName)],
        resources: [
            .init(id: "bulk", origin: "o", path: BulkFlowClient.path, bytes: BulkFlowClient.bodyBytes, type: .other),
            .init(id: "small", origin: "o", path: ResponsivenessProbes.smallPath, bytes: 1, type: .other),
        ],
        bulk: .init(direction: .upload, bytes: BulkFlowClient.bodyBytes))

    public func execute() throws -> Outcome {
        let paths = try ProfileLink.paths(of: profile, library: library)
        var networkOptions = EmulatedNetwork.Options(congestionControl: tcpCongestionControl, seed: seed)
        networkOptions.tcpECN = ecn
        let network = try EmulatedNetwork.create(paths: paths, options: networkOptions)
        defer { network.teardown() }
        var quic = QUICConfiguration()
        quic.initialRTT = max(paths[0].roundTrip, .milliseconds(1))
        quic.ecn = ecn
        let credentials = try RunCredentials(hosts: [])
        let settings = ServerSettings(tcpCongestionControl: tcpCongestionControl)
        let options = ServerHost.ServerOptions(settings: settings, quic: quic)
        let server = try ServerHost(
            scenarios: [Self.scenario], credentials: credentials, address: network.serverAddress,
            namespace: network.serverNamespace,
            withTCP: transport != .h3, withQUIC: transport == .h3, options: options)
        defer { server.stop() }
        guard let remote = transport == .h3 ? server.endpoints[0].udp : server.endpoints[0].tcp else {
            throw BenchError.run("no server endpoint")
        }
        try network.start()
        var outcome = try probe(network: network, remote: remote, credentials: credentials, quic: quic)
        // A size only for drop-tail and drop-head (an AQM's limit is not what bounds its delay).
        if !paths[0].downlink.discipline.canMark {
            switch paths[0].downlink.effectiveQueueLimit(roundTrip: paths[0].roundTrip) {
            case .bytes(let b): outcome.queueLimitBytes = b
            case .packets(let n): outcome.queueLimitBytes = n * 1500
            }
        }
        outcome.emulatorFlags = try network.stop().flagReasons
        return outcome
    }

    private func probe(network: EmulatedNetwork, remote: Endpoint, credentials: RunCredentials, quic: QUICConfiguration)
        throws -> Outcome
    {
        let loop = try EventLoop()
        var settings = ClientSettings(tls: nil, quic: quic, trustedRootsPEM: credentials.caPEM)
        settings.namespace = network.clientNamespace
        settings.h2UnsentLimit = clientUnsentLimit
        if transport != .h3 {
            var cfg = TLSClientConfiguration(trustedRootsPEM: credentials.caPEM, alpn: [transport.alpn])
            cfg.resumption = false
            settings.tls = try TLSClientContext(cfg)
        }
        let local = network.paths.first?.address
        let name = CrossTrafficSession.serverName
        // Idle: self probes on one quiet connection.
        let quiet = try NetworkNamespace.with(network.clientNamespace) {
            try ClientConnector.open(
                transport, loop: loop, remote: remote, local: local.map { Endpoint(address: $0, port: 0) },
                serverName: name, settings: settings)
        }
        let idle = ResponsivenessProbes(transport: transport, remote: remote, serverName: name)
        try runPhase(
            idle, loop: loop, duration: idleDuration, settings: settings, network: network, selfConnections: [quiet])
        quiet.close()
        var loaded: [LoadedPhase] = []
        for load in phases {
            loaded.append(
                try loadedPhase(load, loop: loop, settings: settings, network: network, remote: remote))
        }
        return Outcome(idle: phase(idle), loaded: loaded, queueLimitBytes: nil, emulatorFlags: [])
    }

    /// Starts the load of `load` (`loadFlows` per direction), lets it ramp up, probes (self probes
    /// on the load connections, in turn), and stops it.
    private func loadedPhase(
        _ load: Direction, loop: EventLoop, settings: ClientSettings, network: EmulatedNetwork, remote: Endpoint
    ) throws -> LoadedPhase {
        let local = network.paths.first?.address
        let name = CrossTrafficSession.serverName
        let origin = Instant.now()
        let directions: [Scenario.Bulk.Direction] =
            load == .down ? [.download] : load == .up ? [.upload] : [.download, .upload]
        let flows = directions.flatMap { d in
            (0..<loadFlows).map { _ in
                BulkFlowClient(transport: transport, direction: d, remote: remote, serverName: name, binOrigin: origin)
            }
        }
        for f in flows { f.start(loop: loop, settings: settings, namespace: network.clientNamespace, local: local) }
        // Uploads count what the server acknowledged: sample it often.
        var sampling = true
        func sample() {
            guard sampling else { return }
            let now = Instant.now()
            for f in flows where f.isRunning { f.sample(now: now) }
            _ = loop.schedule(after: .milliseconds(10), sample)
        }
        sample()
        try loop.run(until: Instant.now() + rampUp)
        let loadedStart = Instant.now()
        let probes = ResponsivenessProbes(transport: transport, remote: remote, serverName: name)
        // HTTP/3: a GET cannot leave an upload connection (see `selfEstimate`); self probes go on
        // the download connections when there are some, else they are the uploads' RTT estimate.
        let estimate = transport == .h3 && load == .up
        let usable = flows.filter { $0.isRunning && !(transport == .h3 && load == .bidir && $0.direction == .upload) }
        try runPhase(
            probes, loop: loop, duration: loadedDuration, settings: settings, network: network,
            selfConnections: usable.compactMap(\.connection), estimateSelf: estimate)
        let loadedEnd = Instant.now()
        let ecnConnections = flows.filter {
            guard let info = $0.connection?.info else { return false }
            return info.ecnNegotiated == true || info.quic?.ecnValidated == true
        }.count
        for f in flows { f.stop() }
        sampling = false
        try? loop.run(until: Instant.now() + .milliseconds(20))
        func mbps(_ d: Scenario.Bulk.Direction) -> Double? {
            let chosen = flows.filter { $0.direction == d }
            guard !chosen.isEmpty else { return nil }
            return Self.goodputMbps(chosen.map(\.bins), from: loadedStart.since(origin), to: loadedEnd.since(origin))
        }
        return LoadedPhase(
            load: load, probes: phase(probes), downloadMbps: mbps(.download), uploadMbps: mbps(.upload),
            ecnConnections: ecnConnections)
    }

    /// The flows' goodput together over the whole bins between `from` and `to` (times since the
    /// bins' origin), Mbit/s; nil when no whole bin lies between.
    static func goodputMbps(_ bins: [ThroughputBins], from: Nanoseconds, to: Nanoseconds) -> Double? {
        guard let width = bins.first?.width, width > 0 else { return nil }
        let first = Int(from / width) + 1, last = Int(to / width)
        guard last > first else { return nil }
        let bytes = bins.reduce(Int64(0)) { $0 + $1.bins.dropFirst(first).prefix(last - first).reduce(0, +) }
        return Double(bytes) * 8 / (Double(last - first) * Double(width) / 1e9) / 1e6
    }

    private func runPhase(
        _ probes: ResponsivenessProbes, loop: EventLoop, duration: Nanoseconds, settings: ClientSettings,
        network: EmulatedNetwork, selfConnections: [ClientConnection], estimateSelf: Bool = false
    ) throws {
        let end = Instant.now() + duration
        var k = 0
        func tick() {
            guard Instant.now() < end else { return }
            probes.foreign(
                loop: loop, settings: settings, namespace: network.clientNamespace, local: network.paths.first?.address)
            let usable = selfConnections.filter(\.isUsable)
            if !usable.isEmpty {
                if estimateSelf {
                    probes.selfEstimate(on: usable[k % usable.count])
                } else {
                    probes.selfProbe(on: usable[k % usable.count])
                }
            }
            k += 1
            _ = loop.schedule(after: probeInterval, tick)
        }
        tick()
        try loop.run(until: end)
        // Probes sent near the end get time to finish (under load a bloated queue holds each of
        // their round trips for up to its drain time); leaving them out would favour fast answers.
        try loop.run(until: end + grace) { probes.unfinished == 0 }
        probes.closeAll()
    }

    private func phase(_ p: ResponsivenessProbes) -> Phase {
        Phase(
            result: Responsiveness.compute(p.samples), foreignProbes: p.foreignHTTP.count, selfProbes: p.selfHTTP.count,
            unfinished: p.started - p.foreignHTTP.count - (p.selfHTTP.count - p.estimated),
            firstFailure: p.failures.first, selfEstimated: p.estimated)
    }
}
