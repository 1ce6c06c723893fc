import Foundation
import Synchronization
import BenchCore
import Runner
import BenchModel
import Testbed
import SystemIO
import Transport
import TLS
import QUIC
import LinkEmulator

/// Cross traffic in an emulated network: one bulk server per flow in the server namespace (so each
/// flow's sender has its own congestion control), all flow clients on one thread with their own
/// event loop in the client namespace. The servers live as long as the session; `start`/`finish`
/// once per run.
final class CrossTrafficSession: @unchecked Sendable {
    let flows: [CrossFlowSpec]
    let plan: CrossTrafficPlan
    private let network: EmulatedNetwork
    private let servers: [ServerHost]
    private let credentials: RunCredentials
    private let quic: QUICConfiguration
    private let requestedCC: [String]
    private let pageEnd = Mutex<Instant?>(nil)
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)
    private var clients: [BulkFlowClient] = []
    private var navigationStart = Instant(nanoseconds: 0)
    static let serverName = "localhost"
    static let binWidth: Nanoseconds = .milliseconds(100)

    init(
        flows: [CrossFlowSpec], network: EmulatedNetwork, credentials: RunCredentials, quic: QUICConfiguration,
        tcpCongestionControl: String
    ) throws {
        self.flows = flows
        self.plan = CrossTrafficPlan(flows)
        self.network = network
        self.credentials = credentials
        self.quic = quic
        requestedCC = flows.map { $0.congestionControl ?? ($0.transport == .h3 ? "cubic" : tcpCongestionControl) }
        var hosts: [ServerHost] = []
        do {
            for (i, f) in flows.enumerated() {
                hosts.append(
                    try Self.server(
                        for: f, congestionControl: requestedCC[i], network: network, credentials: credentials,
                        quic: quic))
            }
        } catch {
            for h in hosts { h.stop() }
            throw error
        }
        servers = hosts
    }

    /// A server answering `BulkFlowClient.path` with an endless body, with the flow's congestion control.
    static func server(
        for flow: CrossFlowSpec, congestionControl: String, network: EmulatedNetwork, credentials: RunCredentials,
        quic: QUICConfiguration
    ) throws -> ServerHost {
        var options = ServerHost.ServerOptions(quic: quic)
        if flow.transport == .h3 {
            guard let cc = QUICCongestionControl(rawValue: congestionControl) else {
                throw BenchError.usage("cross traffic: '\(congestionControl)' is not a QUIC congestion control")
            }
            options.settings.quicCongestionControl = cc
        } else {
            options.settings.tcpCongestionControl = congestionControl
        }
        return try ServerHost(
            scenarios: [flow.direction == .upload ? uploadScenario : bulkScenario], credentials: credentials,
            address: network.serverAddress,
            namespace: network.serverNamespace, withTCP: flow.transport != .h3, withQUIC: flow.transport == .h3,
            options: options)
    }

    /// The bulk flows' catalog: one endless body at `BulkFlowClient.path`.
    static let bulkScenario = Scenario(
        name: "cross-traffic", origins: [.init(id: "cross", host: serverName)],
        resources: [
            .init(id: "bulk", origin: "cross", path: BulkFlowClient.path, bytes: BulkFlowClient.bodyBytes, type: .other)
        ])

    /// The upload flows' catalog: an endless POST body at `Scenario.bulkPath`, never answered.
    static let uploadScenario = Scenario(
        name: "cross-traffic-upload", origins: [.init(id: "cross", host: serverName)], resources: [],
        bulk: .init(direction: .upload, bytes: BulkFlowClient.bodyBytes))

    func close() { for s in servers { s.stop() } }

    /// Between `start` and `finish`.
    var isRunning: Bool { thread != nil }

    /// Starts the flows' thread: each flow starts at `navigationStart` + its planned start (the
    /// caller starts the page at `navigationStart`, `plan.lead` from now).
    func start(navigationStart: Instant) {
        self.navigationStart = navigationStart
        pageEnd.withLock { $0 = nil }
        for s in servers { _ = s.takeAcceptedCongestionControls() }
        let origin = navigationStart + plan.origin
        clients = flows.indices.map { i in
            let ep = servers[i].endpoints[0]
            return BulkFlowClient(
                transport: flows[i].transport, direction: flows[i].direction ?? .download,
                remote: (flows[i].transport == .h3 ? ep.udp : ep.tcp)!,
                serverName: Self.serverName, binOrigin: origin, binWidth: Self.binWidth)
        }
        let t = Thread { [self] in
            runFlows(); finished.signal()
        }
        t.name = "netbench-cross"
        t.stackSize = 4 << 20
        thread = t
        t.start()
    }

    /// Tells the flows the page ended at `end`, waits for the last flow to stop, and returns what
    /// they did (times from `navigationStart`, or from `pageNavigationStart` when the page's own
    /// navigation start is known).
    func finish(pageEnd end: Instant, pageNavigationStart: Instant? = nil) -> CrossTrafficRecord {
        pageEnd.withLock { $0 = end }
        if thread != nil { finished.wait(); thread = nil }
        let nav = pageNavigationStart ?? navigationStart
        var results: [CrossTrafficSummary.Flow] = []
        for (i, c) in clients.enumerated() {
            var r = CrossTrafficSummary.Flow(
                name: flows[i].displayName(index: i), transport: flows[i].transport, direction: c.direction,
                startMs: (navigationStart + plan.timings[i].start).milliseconds(since: nav),
                stopMs: (c.stoppedAt ?? end).milliseconds(since: nav), bins: c.bins.bins)
            r.congestionControl = requestedCC[i]
            let accepted = servers[i].takeAcceptedCongestionControls()
            if flows[i].transport == .h3 {
                r.congestionControlReadBack = requestedCC[i]
            } else if c.direction == .upload {
                r.congestionControlReadBack = c.connection?.info.congestionControl
            } else {
                r.congestionControlReadBack = accepted.isEmpty ? nil : accepted.joined(separator: ",")
            }
            r.error = c.error
            results.append(r)
        }
        let originMs = (navigationStart + plan.origin).milliseconds(since: nav)
        return CrossTrafficSummary.record(flows: results, originMs: originMs, binMs: Self.binWidth.inMilliseconds)
    }

    private func runFlows() {
        guard let loop = try? EventLoop() else {
            for c in clients { c.stop() }
            return
        }
        var settings = ClientSettings(tls: nil, quic: quic, trustedRootsPEM: credentials.caPEM)
        settings.namespace = network.clientNamespace
        var contexts: [TransportKind: TLSClientContext] = [:]
        let local = network.paths.first?.address
        let tick: Nanoseconds = .milliseconds(10)
        func step() {
            let now = Instant.now()
            let end = pageEnd.withLock { $0 }
            for (i, c) in clients.enumerated() {
                let start = navigationStart + plan.timings[i].start
                if c.startedAt == nil, now >= start {
                    var s = settings
                    if flows[i].direction == .upload {
                        // An upload's sender is the client: the flow's congestion control goes on its socket.
                        if flows[i].transport == .h3 {
                            if let cc = QUICCongestionControl(rawValue: requestedCC[i]) {
                                s.quic.congestionControl = cc
                            }
                        } else {
                            s.tcp.congestionControl = requestedCC[i]
                        }
                    }
                    if flows[i].transport != .h3 {
                        if contexts[flows[i].transport] == nil {
                            contexts[flows[i].transport] = try? TLSClientContext(
                                TLSClientConfiguration(
                                    trustedRootsPEM: credentials.caPEM, alpn: [flows[i].transport.alpn]))
                        }
                        s.tls = contexts[flows[i].transport]
                    }
                    c.start(loop: loop, settings: s, namespace: network.clientNamespace, local: local)
                }
                if c.isRunning { c.sample(now: now) }
                if c.isRunning, let stop = stopInstant(i, pageEnd: end), now >= stop { c.stop() }
            }
            if !allStopped(end) { _ = loop.schedule(after: tick, step) }
        }
        step()
        try? loop.run { allStopped(pageEnd.withLock { $0 }) }
        for c in clients { c.stop() }
        // Let the closes leave before the loop goes away.
        try? loop.run(until: Instant.now() + .milliseconds(20))
    }

    private func stopInstant(_ i: Int, pageEnd end: Instant?) -> Instant? {
        if let stop = plan.timings[i].stop { return navigationStart + stop }
        guard let end else { return nil }
        return navigationStart + plan.stop(of: i, pageEnd: end.since(navigationStart))
    }

    private func allStopped(_ end: Instant?) -> Bool {
        clients.indices.allSatisfy { i in
            if clients[i].stoppedAt != nil { return true }
            // A flow that never started and whose stop has passed never runs.
            if clients[i].startedAt == nil, let stop = stopInstant(i, pageEnd: end), Instant.now() >= stop {
                return true
            }
            return false
        }
    }
}
