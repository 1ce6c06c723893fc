import Foundation
import BenchCore
import BenchModel
import Runner
import SystemIO
import Transport
import Replay
import TLS
import QUIC

/// One page load (or bulk transfer) on the calling thread: a fresh event loop, fresh TLS state
/// (a cold first view), the browser-like loader, then the run's records.
package struct PageRun: PageLoad {
    var context: PageLoadContext
    var keyLogFile: String?
    var tlsVersion: TLSVersion?
    var quic: QUICConfiguration
    /// Network changes during the run: offsets from `eventsOrigin` (when the emulator started).
    var networkEvents: [ScheduledChange] = []
    var eventsOrigin: Instant?
    /// Whether connections may be lost (events or outages): lost requests are sent again.
    var expectsTrouble = false
    var tcpOptions = Socket.TCPOptions()
    var recoveryRateBitsPerSecond: Double?
    /// Repeat views: TLS sessions (in this context) and QUIC tickets carried over from earlier runs.
    var sharedTLSContext: TLSClientContext?
    /// Bytes each ClientHello is padded with, over TCP and over QUIC (it overrides `quic`'s).
    package var clientHelloPadding = 0
    var quicResumption: QUICResumptionCache?

    package init(context: PageLoadContext, keyLogFile: String?, tlsVersion: TLSVersion?, quic: QUICConfiguration) {
        self.context = context
        self.keyLogFile = keyLogFile
        self.tlsVersion = tlsVersion
        self.quic = quic
    }

    /// A change of the client's network at an offset, with its record for results.json.
    struct ScheduledChange {
        var at: Nanoseconds
        var change: NetworkChange?
        var type: String
        var from: String?
        var to: String?
        var detail: String?
    }

    /// `register` receives the loop's stop handle, so an interrupt can end the run at once.
    package func execute(register: (StopFlag?) -> Void = { _ in }) throws -> PageLoadOutcome {
        let c = context, transport = c.transport, credentials = c.credentials
        let cpuBefore = CPUTime.currentThreadMs()
        let loop = try EventLoop()
        register(loop.stopper)
        defer { register(nil) }
        var tlsContext: TLSClientContext? = sharedTLSContext
        if transport != .h3 && tlsContext == nil {
            var cfg = TLSClientConfiguration(
                trustedRootsPEM: credentials.systemRoots ? "" : credentials.caPEM, alpn: [transport.alpn])
            cfg.systemRoots = credentials.systemRoots
            if let v = tlsVersion { cfg.force(v) }
            cfg.keyLogFile = keyLogFile
            cfg.resumption = false
            cfg.clientHelloPadding = clientHelloPadding
            tlsContext = try TLSClientContext(cfg)
        }
        var quicConfig = quic
        quicConfig.clientHelloPadding = clientHelloPadding
        if quicConfig.diagnostics == nil, let keyLogFile {
            quicConfig.diagnostics = try DiagnosticFiles(qlogDirectory: nil, keyLogPath: keyLogFile)
        }
        var settings = ClientSettings(
            tls: tlsContext, tcp: tcpOptions, quic: quicConfig, trustedRootsPEM: credentials.caPEM)
        settings.namespace = c.clientNamespace
        settings.quicResumption = quicResumption
        let remote = transport == .h3 ? c.serverEndpoints.udp : c.serverEndpoints.tcp
        guard let remote else { throw BenchError.run("no \(transport.rawValue) server endpoint") }
        let loader = PageLoader(scenario: c.scenario, kind: transport, localAddress: c.clientAddress) {
            origin, address in
            try NetworkNamespace.with(c.clientNamespace) {
                try ClientConnector.open(
                    transport, loop: loop, remote: remote, local: address.map { Endpoint(address: $0, port: 0) },
                    serverName: origin.host, settings: settings)
            }
        }
        loader.recoveryRateBitsPerSecond = recoveryRateBitsPerSecond
        if expectsTrouble { loader.expectNetworkTrouble() }
        loader.start()
        var pathEvents: [PathEventRecord] = []
        let origin = eventsOrigin ?? loader.navigationStart
        for e in networkEvents {
            loop.schedule(at: origin + e.at) {
                let now = Instant.now()
                pathEvents.append(
                    PathEventRecord(
                        at: now.milliseconds(since: loader.navigationStart), type: e.type,
                        from: e.from, to: e.to, detail: e.detail))
                if let change = e.change { loader.networkChanged(change) } else { loader.networkEventObserved() }
            }
        }
        let deadline = loader.navigationStart + c.timeout
        try loop.run(until: deadline) { loader.isFinished }
        if !loader.isFinished {
            loader.abort("timed out after \(Units.format(c.timeout.inMilliseconds / 1000, 1)) s")
        }
        let (requests, connections, metrics) = loader.records()
        loader.closeConnections()
        // Let close_notify frames leave before the loop goes away.
        try? loop.run(until: Instant.now() + .milliseconds(20))
        var outcome = PageLoadOutcome(
            requests: requests, connections: connections, metrics: metrics,
            failure: loader.failure)
        // The client runs on this thread: its CPU clock is the client's CPU (a browser's is another process's).
        outcome.metrics.clientCPUMs = CPUTime.currentThreadMs() - cpuBefore
        outcome.pathEvents = pathEvents
        outcome.navigationStart = loader.navigationStart
        return outcome
    }
}
