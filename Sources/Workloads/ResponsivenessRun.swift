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
/// transport, probes the idle link, then starts `loadFlows` bulk downloads, lets them fill the
/// queue, and probes again (see `Responsiveness` for the aggregation into RPM).
public struct ResponsivenessRun {
    public var profile: Profile
    public var transport: TransportKind
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
    }

    public struct Outcome: Sendable {
        public var idle: Phase
        public var loaded: Phase
        /// The load flows' goodput together while the loaded probes ran, Mbit/s.
        public var loadMbps: Double?
        public var queueLimitBytes: Int?
        public var emulatorFlags: [String]
    }

    public func execute() throws -> Outcome {
        let paths = try ProfileLink.paths(of: profile, library: library)
        let network = try EmulatedNetwork.create(
            paths: paths, options: EmulatedNetwork.Options(congestionControl: tcpCongestionControl, seed: seed))
        defer { network.teardown() }
        var quic = QUICConfiguration()
        quic.initialRTT = max(paths[0].roundTrip, .milliseconds(1))
        let credentials = try RunCredentials(hosts: [])
        let settings = ServerSettings(tcpCongestionControl: tcpCongestionControl)
        let options = ServerHost.ServerOptions(settings: settings, quic: quic)
        let scenario = Scenario(
            name: "responsiveness", origins: [.init(id: "o", host: CrossTrafficSession.serverName)],
            resources: [
                .init(
                    id: "bulk", origin: "o", path: BulkFlowClient.path, bytes: BulkFlowClient.bodyBytes, type: .other),
                .init(id: "small", origin: "o", path: ResponsivenessProbes.smallPath, bytes: 1, type: .other),
            ])
        let server = try ServerHost(
            scenarios: [scenario], credentials: credentials, address: network.serverAddress,
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
        if transport != .h3 {
            var cfg = TLSClientConfiguration(trustedRootsPEM: credentials.caPEM, alpn: [transport.alpn])
            cfg.resumption = false
            settings.tls = try TLSClientContext(cfg)
        }
        let local = network.paths.first?.address
        let name = CrossTrafficSession.serverName
        func open() throws -> ClientConnection {
            try NetworkNamespace.with(network.clientNamespace) {
                try ClientConnector.open(
                    transport, loop: loop, remote: remote, local: local.map { Endpoint(address: $0, port: 0) },
                    serverName: name, settings: settings)
            }
        }
        // Idle: self probes on one quiet connection.
        let quiet = try open()
        let idle = ResponsivenessProbes(transport: transport, remote: remote, serverName: name)
        try runPhase(
            idle, loop: loop, duration: idleDuration, settings: settings, network: network, selfConnections: [quiet])
        quiet.close()
        // Loaded: bulk downloads, then probes (self probes on the load connections, in turn).
        let origin = Instant.now()
        let flows = (0..<loadFlows).map { _ in
            BulkFlowClient(transport: transport, remote: remote, serverName: name, binOrigin: origin)
        }
        for f in flows { f.start(loop: loop, settings: settings, namespace: network.clientNamespace, local: local) }
        try loop.run(until: Instant.now() + rampUp)
        let loadedStart = Instant.now()
        let loaded = ResponsivenessProbes(transport: transport, remote: remote, serverName: name)
        try runPhase(
            loaded, loop: loop, duration: loadedDuration, settings: settings, network: network,
            selfConnections: flows.compactMap { $0.isRunning ? $0.connection : nil })
        let loadedEnd = Instant.now()
        let binFrom = Int(loadedStart.since(origin) / .milliseconds(100)) + 1,
            binTo = Int(loadedEnd.since(origin) / .milliseconds(100))
        let bytes = flows.reduce(Int64(0)) {
            $0 + $1.bins.bins.dropFirst(binFrom).prefix(max(0, binTo - binFrom)).reduce(0, +)
        }
        let seconds = Double(max(0, binTo - binFrom)) / 10
        for f in flows { f.stop() }
        try? loop.run(until: Instant.now() + .milliseconds(20))
        return Outcome(
            idle: phase(idle), loaded: phase(loaded), loadMbps: seconds > 0 ? Double(bytes) * 8 / seconds / 1e6 : nil,
            queueLimitBytes: nil, emulatorFlags: [])
    }

    private func runPhase(
        _ probes: ResponsivenessProbes, loop: EventLoop, duration: Nanoseconds, settings: ClientSettings,
        network: EmulatedNetwork, selfConnections: [ClientConnection]
    ) throws {
        let end = Instant.now() + duration
        var k = 0
        func tick() {
            guard Instant.now() < end else { return }
            probes.foreign(
                loop: loop, settings: settings, namespace: network.clientNamespace, local: network.paths.first?.address)
            let usable = selfConnections.filter(\.isUsable)
            if !usable.isEmpty { probes.selfProbe(on: usable[k % usable.count]) }
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
            unfinished: p.started - p.foreignHTTP.count - p.selfHTTP.count, firstFailure: p.failures.first)
    }
}
