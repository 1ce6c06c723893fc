import Foundation
import BenchCore
import BenchModel
import Runner
import SystemIO
import Transport
import TLS
import QUIC
import LinkModel
import LinkEmulator

/// The testbed of one profile's block of runs: loopback, or an emulated network whose namespaces
/// and emulator live exactly as long as the block; the replay servers; the profile's background
/// traffic; and a client per run (netbench's own `PageRun`, or a `PageLoadFactory`'s).
final class ProfileTestbed {
    let profile: Profile
    let scenarios: [Scenario]
    let credentials: RunCredentials
    let servers: ServerHost
    /// How the servers serve, and the client's TLS version and congestion control.
    let server: ServerSettings
    let keyLogFile: String?
    /// The RTT the ideal is computed with: configured (emulated) or measured (loopback), in ms;
    /// nil when the loopback probe failed (the ideal is then unknown, and the record says why).
    var rttMs: Double? { finishing.rttMs }
    /// Where a measured `rttMs` came from when not from TCP connects (`metrics.rttSource` of every run).
    let rttSource: String?
    var downlinkBitsPerSecond: Double? { finishing.downlinkBitsPerSecond }
    /// Finishes every run's record (ideal, lateness bound, goodput) with this block's RTT and rate.
    let finishing: RunFinishing
    let quic: QUICConfiguration
    /// The emulated network of this block; nil on loopback.
    let network: EmulatedNetwork?
    let clientAddress: UInt32?
    /// The timer floor measured (200 ms) before this block's runs; nil on loopback.
    let timerFloor: TimerFloor?
    /// Repeat views: state carried from run to run within this block, per transport.
    let repeatView: Bool
    /// `run --visual-metrics`: browser runs capture what they paint.
    let visualMetrics: Bool
    /// `run --cpu-slowdown N`: browser runs slow their CPU down N times.
    let cpuSlowdown: Double?
    /// The `Math.random` seed of browsers on recorded pages; nil: `--no-deterministic-js`.
    let deterministicJSSeed: UInt32?
    /// Competing flows on the bottleneck during every run (profiles with `crossTraffic`).
    var backgroundTraffic: BackgroundTraffic?
    /// The clients other than netbench's own, by kind.
    let clients: [RunClient: PageLoadFactory]
    /// `--pcap DIR`: every run's packets through the emulator, until a capture fails (full disk).
    private(set) var pcapDirectory: String?
    /// `--link-log DIR`: every run's link logs, until one fails (full disk).
    private(set) var linkLogDirectory: String?
    private var tlsContexts: [TransportKind: TLSClientContext] = [:]
    private let quicResumption = QUICResumptionCache()

    /// The testbed of `profile`'s block of `request`: its settings are passed whole; `parts` are
    /// what the plan's blocks share; `seed` seeds this block's loss processes.
    init(profile: Profile, seed: UInt64, request: RunRequest, parts: TestbedParts) throws {
        self.profile = profile
        scenarios = request.scenarios.map(\.scenario)
        credentials = parts.credentials
        server = request.server
        keyLogFile = request.diagnostics.keyLogFile
        pcapDirectory = request.diagnostics.pcapDirectory
        linkLogDirectory = request.diagnostics.linkLogDirectory
        repeatView = request.pageLoads.repeatView
        visualMetrics = request.pageLoads.visualMetrics
        cpuSlowdown = request.pageLoads.cpuSlowdown
        deterministicJSSeed = request.pageLoads.deterministicJS ? UInt32(truncatingIfNeeded: request.seed) : nil
        clients = parts.clients
        let paths = profile.isEmulated ? try ProfileLink.paths(of: profile, library: request.library) : []
        quic = Self.quic(request.server, diagnostics: parts.diagnostics, firstPath: paths.first)
        var serverOptions = ServerHost.ServerOptions(settings: server, keyLogFile: keyLogFile, quic: quic)
        serverOptions.renderPages = request.pageLoads.clients.contains { parts.clients[$0]?.needsRenderedPages == true }
        let withQUIC = request.transports.contains(.h3), tls12 = server.tlsVersion == .tls12
        serverOptions.advertiseHTTP3ToBrowsers = serverOptions.renderPages && withQUIC
        // An h3-only plan of the built-in client opens no TCP socket: no listener, no TCP_CONGESTION.
        let withTCP = request.serversNeedTCP
        guard profile.isEmulated else {
            network = nil
            clientAddress = nil
            timerFloor = nil
            servers = try ServerHost(
                scenarios: scenarios, credentials: credentials, address: Endpoint.loopbackAddress,
                namespace: nil, withTCP: withTCP, withQUIC: withQUIC, options: serverOptions)
            (finishing, rttSource) = Self.loopbackFinishing(servers, tls12: tls12)
            return
        }
        let privileges = EmulationPrivileges.check()
        guard privileges.isSufficient else { throw BenchError.privilege(privileges.reason) }
        let path = paths[0]
        let floor = TimerFloor.measure(duration: .milliseconds(200))
        timerFloor = floor
        let net = try Self.emulatedNetwork(
            profile, paths, seed: seed, settings: request.emulator, tcpECN: server.ecn, floor: floor)
        do {
            servers = try ServerHost(
                scenarios: scenarios, credentials: credentials, address: net.serverAddress,
                namespace: net.serverNamespace, withTCP: withTCP, withQUIC: withQUIC, options: serverOptions)
        } catch {
            net.teardown()
            throw error
        }
        network = net
        clientAddress = net.paths[0].address
        rttSource = nil
        var emulated = RunFinishing(
            rttMs: (profile.rtt?.nanoseconds ?? 0).inMilliseconds,
            downlinkBitsPerSecond: ProfileLink.downlinkBitsPerSecond(path), configuredTLS12: tls12)
        emulated.ownServerCongestionControl = (server.tcpCongestionControl, server.quicCongestionControl.rawValue)
        finishing = emulated
        try startBackgroundTraffic(net, parts.background)
    }

    /// The QUIC configuration of client and servers: the plan's diagnostic files, the congestion
    /// control asked for, and the first path's RTT to start from (ngtcp2 0.12 paces the second
    /// handshake flight by cwnd / initial RTT: from its 333 ms default, handshakes stall).
    static func quic(_ server: ServerSettings, diagnostics: DiagnosticFiles?, firstPath: PathConfiguration?)
        -> QUICConfiguration
    {
        var quic = QUICConfiguration()
        quic.diagnostics = diagnostics
        quic.congestionControl = server.quicCongestionControl
        quic.ecn = server.ecn
        quic.initialRTT = firstPath.map { max($0.roundTrip, .milliseconds(1)) } ?? .milliseconds(1)
        quic.fixedUDPPayloadSize = server.quicUDPPayload
        quic.clientConnectionIDLength = server.quicClientCIDLength
        quic.clientHelloPadding = server.clientHelloPadding
        quic.pacing = server.quicPacing
        return quic
    }

    /// What the run's QUIC endpoints were set to, as results record it (h3 runs).
    static func quicRecord(_ quic: QUICConfiguration, client: RunClient) -> QUICSettingsRecord {
        var r = QUICSettingsRecord(
            maxUDPPayload: quic.effectiveMaxUDPPayloadSize, udpPayloadSizing: quic.udpPayloadSizing,
            congestionControl: quic.congestionControl.rawValue, ackThreshold: quic.ackThreshold)
        if client == .builtin {
            r.clientConnectionIDLength = quic.clientConnectionIDLength
        } else if client == .chromium {
            r.altSvcToBrowser = true
        }
        r.pacing = quic.pacing.description
        return r
    }

    /// What `metrics.rttSource` says when the loopback RTT came from UDP echoes.
    static let udpEchoSource = "fastest of 20 UDP echoes between two loopback sockets (no TCP in this run)"

    /// On loopback the ideal's RTT is measured: the minimum of 20 TCP connects to the server's TCP
    /// listener; without one (an h3-only plan), the minimum of 20 UDP echoes between two sockets on
    /// the server's address, so that no TCP socket (and no TCP congestion control) is needed.
    /// Returns the finishing step and the RTT's source when it is not TCP connects.
    static func loopbackFinishing(_ servers: ServerHost, tls12: Bool) -> (RunFinishing, String?) {
        let tcp = servers.endpoints[0].tcp
        do {
            if let tcp {
                let rtt = try RTTProbe.tcpConnectMinimum(to: tcp, namespace: nil, samples: 20)
                return (RunFinishing(rttMs: rtt, configuredTLS12: tls12), nil)
            }
            let rtt = try RTTProbe.udpEchoMinimum(address: Endpoint.loopbackAddress, samples: 20)
            return (RunFinishing(rttMs: rtt, configuredTLS12: tls12), udpEchoSource)
        } catch {
            let finishing = RunFinishing(
                rttMs: nil,
                rttProblem: "RTT unknown (the loopback probe failed: \(error)), "
                    + "so the ideal is unknown", configuredTLS12: tls12)
            return (finishing, nil)
        }
    }

    /// The block's emulated network: the profile's paths, the first one active, the packet loop
    /// run as `settings` say.
    static func emulatedNetwork(
        _ profile: Profile, _ paths: [PathConfiguration], seed: UInt64,
        settings: EmulatorSettings, tcpECN: Bool = false, floor: TimerFloor
    ) throws -> EmulatedNetwork {
        var options = EmulatedNetwork.Options(seed: seed, activePath: paths[0].name)
        options.tcpECN = tcpECN
        settings.apply(to: &options, floor: floor)
        do { return try EmulatedNetwork.create(paths: paths, options: options) } catch {
            throw BenchError.run("cannot create the emulated network for profile '\(profile.name)': \(error)")
        }
    }

    /// Stops the servers and removes the emulated network (namespaces, TUN devices).
    func close() {
        backgroundTraffic?.close()
        servers.stop()
        network?.teardown()
    }

    func runOnce(_ run: RunSpec, register: (StopFlag?) -> Void) -> RunRecord {
        let scenario = scenarios[run.scenarioIndex]
        let planned = finishing.plannedIdeal(run.transport)
        let limit =
            run.timeout ?? min(.seconds(600), .milliseconds((planned?.pltMs(scenario) ?? 0) * 10) + .seconds(30))
        var record = RunRecord(
            scenario: scenario.name, profile: profile.name, transport: run.transport,
            index: max(run.index, 0), status: .ok)
        if run.index < 0 { record.warmup = true }
        record.client = run.client
        record.server = ServerRecord(tlsRecords: server.tlsRecords.description)
        if run.transport == .h2 { record.server?.lateBinding = server.lateBinding.description }
        if server.ecn { record.server?.ecn = true }
        if run.transport == .h3 { record.server?.quic = Self.quicRecord(quic, client: run.client) }
        if run.client == .builtin { record.server?.clientHelloPadding = server.clientHelloPadding }
        _ = servers.takeAcceptedCongestionControls()  // stragglers of earlier runs
        _ = servers.takeNotFound()
        _ = servers.takeRequestBodies()
        record.startedAt = BenchmarkRunner.utcTimestamp()
        var context = PageLoadContext(
            scenario: scenario, transport: run.transport,
            serverEndpoints: servers.endpoints[run.scenarioIndex],
            credentials: credentials, timeout: limit)
        context.clientNamespace = network?.clientNamespace
        context.clientAddress = clientAddress
        context.screencast = run.filmstrip
        context.visualMetrics = visualMetrics && !run.filmstrip
        context.cpuSlowdown = cpuSlowdown
        context.deterministicJSSeed = deterministicJSSeed
        do {
            try load(context, run, into: &record, register: register)
        } catch {
            if let traffic = backgroundTraffic { record.crossTraffic = traffic.abandon() }
            if let network, network.isRunning { _ = try? network.stop() }
            record.status = .failed
            record.error = "\(error)"
        }
        let serverCC = servers.takeAcceptedCongestionControls()
        if !serverCC.isEmpty { record.server?.congestionControl = serverCC.joined(separator: ",") }
        let missing = servers.takeNotFound()
        if !missing.isEmpty { record.server?.notFound = missing }
        let posted = servers.takeRequestBodies()
        if !posted.isEmpty { record.server?.requestBodies = posted }
        finishing.finish(&record, scenario: scenario)
        if record.metrics.rttMs != nil { record.metrics.rttSource = rttSource }
        return record
    }

    /// Starts the emulator (with the run's network events), has the run's client load the page
    /// beside the background traffic, stops the emulator, and fills the record.
    private func load(
        _ context: PageLoadContext, _ run: RunSpec, into record: inout RunRecord,
        register: (StopFlag?) -> Void
    ) throws {
        var page = builtinLoad(context)
        if let network {
            try startNetwork(
                network, for: &page, withEvents: run.withEvents, capture: captureRequest(run),
                linkLog: linkLogDirectory.map { CaptureRequest(directory: $0, label: captureLabel(run)) })
        }
        let client: PageLoad
        if run.client == .builtin {
            client = page
        } else {
            guard let factory = clients[run.client] else {
                throw BenchError.run("no \(run.client.rawValue) client was given to the testbed")
            }
            client = try factory.makeLoad(context)
        }
        backgroundTraffic?.begin()
        let cpuBefore = (server: servers.cpuMs, process: CPUTime.processMs())
        let outcome = try client.execute(register: register)
        record.crossTraffic = backgroundTraffic?.end(outcome)
        let serverCPU = cpuBefore.server.flatMap { before in servers.cpuMs.map { $0 - before } }
        let processCPU = CPUTime.processMs() - cpuBefore.process
        // Before the emulator stops: the client's FINs must still reach the server.
        let serverTCP = takeServerTCP(outcome.connections)
        var emulatorReport: EmulatorReport?
        if let network {
            let report = try network.stop(drain: drainAtStop)
            emulatorReport = report
            record.emulator = emulatorRecord(report, network)
            takeCapture(report, into: &record)
            if record.emulator?.flagged == true, record.error == nil {
                record.error = "emulator fell behind: " + report.flagReasons.joined(separator: "; ")
            }
        }
        record.take(outcome, serverTCP: serverTCP)
        if let report = emulatorReport { record.metrics.recordQueueDelay(report) }
        record.metrics.serverCPUMs = serverCPU
        record.metrics.processCPUMs = processCPU
    }

    /// Starts the emulator, every path up and the first one active; with events, the emulator's part
    /// of them is scheduled and the client's part handed to the built-in client.
    private func startNetwork(
        _ network: EmulatedNetwork, for page: inout PageRun, withEvents: Bool, capture: CaptureRequest?,
        linkLog: CaptureRequest?
    ) throws {
        let schedule = withEvents ? try emulatorSchedule(network) : []
        try network.start(schedule: schedule, capture: capture, linkLog: linkLog)
        page.eventsOrigin = Instant.now()
        try resetPaths(network)
        if withEvents { page.networkEvents = try clientChanges(network) }
        page.expectsTrouble = withEvents && (profile.hasPathEvents || !(profile.outages ?? []).isEmpty)
        page.recoveryRateBitsPerSecond = recoveryRate(network)
    }

    /// netbench's own client for a run of this block (repeat views carry TLS sessions and QUIC tickets).
    private func builtinLoad(_ context: PageLoadContext) -> PageRun {
        var page = PageRun(context: context, keyLogFile: keyLogFile, tlsVersion: server.tlsVersion, quic: quic)
        page.tcpOptions = tcpOptions
        page.clientHelloPadding = server.clientHelloPadding
        if repeatView {
            page.quicResumption = quicResumption
            page.sharedTLSContext = try? sharedTLSContext(for: context.transport)
        }
        return page
    }

    /// Starts the profile's cross traffic; on failure the block's network and servers are removed
    /// before the error is thrown.
    private func startBackgroundTraffic(_ net: EmulatedNetwork, _ factory: BackgroundTrafficFactory?) throws {
        guard let flows = profile.crossTraffic, !flows.isEmpty else { return }
        do {
            guard let factory else { throw BenchError.run("no cross-traffic workload was given to the testbed") }
            // Sockets given no congestion control get the namespaces' default, EmulatedNetwork's cubic.
            backgroundTraffic = try factory.start(
                flows: flows, network: net, credentials: credentials, quic: quic,
                tcpCongestionControl: server.tcpCongestionControl ?? "cubic")
        } catch {
            servers.stop()
            net.teardown()
            throw BenchError.run("profile '\(profile.name)': cannot start its cross traffic: \(error)")
        }
    }
}

extension ProfileTestbed {
    /// The server's TCP sender statistics of a run's h1/h2 connections, by the client's address
    /// (the server's peer), once the server has seen each close: within a round trip and a margin
    /// of the client closing them. A browser's connections are not known by address: none.
    func takeServerTCP(_ connections: [ConnectionRecord]) -> [String: TCPSenderStatistics] {
        let peers = Set(connections.compactMap { $0.transport == .h3 ? nil : $0.localAddress })
        let patience = Nanoseconds.milliseconds((rttMs ?? 0) + 200)
        return servers.takeSenderStatistics(for: peers, patience: patience)
    }

    /// The emulator's part of the profile's events (`ProfileSchedule.events`).
    func emulatorSchedule(_ network: EmulatedNetwork) throws -> [PathEvent] {
        ProfileSchedule.events(of: profile, firstPath: network.paths[0].name)
    }

    /// The client's part: what its operating system (or its NAT) does to it, and when.
    func clientChanges(_ network: EmulatedNetwork) throws -> [PageRun.ScheduledChange] {
        var active = network.paths[0]
        let abort = (profile.tcpMigration ?? .abort) == .abort
        var out: [PageRun.ScheduledChange] = []
        for e in (profile.events ?? []).sorted(by: { $0.at.nanoseconds < $1.at.nanoseconds }) {
            switch e.type {
            case .switch:
                guard let to = e.to, let next = network.path(named: to) else { continue }
                out.append(
                    .init(
                        at: e.at.nanoseconds,
                        change: NetworkChange(kind: .switchPath, localAddress: next.address, abortTCP: abort),
                        type: e.type.rawValue, from: active.name, to: next.name,
                        detail: abort ? "TCP sockets on \(active.name) aborted" : "TCP left to its timers"))
                active = next
            case .rebindPort:
                // The emulator's NAT changes the mapping; the client is not told (nor is it in life).
                out.append(
                    .init(
                        at: e.at.nanoseconds, change: nil, type: e.type.rawValue, from: active.name, to: active.name,
                        detail: "NAT maps the client to a new port"))
            case .rebindAddr:
                out.append(
                    .init(
                        at: e.at.nanoseconds, change: nil, type: e.type.rawValue, from: active.name, to: active.name,
                        detail: "NAT maps the client to a new address"))
            case .outage:
                out.append(
                    .init(
                        at: e.at.nanoseconds, change: nil, type: e.type.rawValue, from: active.name, to: active.name,
                        detail: "no path for \(e.duration?.description ?? "?")"))
            }
        }
        return out
    }

    /// One TLS client context per TCP transport for the whole block, so sessions resume.
    func sharedTLSContext(for transport: TransportKind) throws -> TLSClientContext? {
        guard transport != .h3 else { return nil }
        if let c = tlsContexts[transport] { return c }
        var cfg = TLSClientConfiguration(
            trustedRootsPEM: credentials.caPEM, alpn: [transport == .h1 ? "http/1.1" : "h2"])
        if let v = server.tlsVersion { cfg.force(v) }
        cfg.keyLogFile = keyLogFile
        cfg.resumption = true
        cfg.clientHelloPadding = server.clientHelloPadding
        let c = try TLSClientContext(cfg)
        tlsContexts[transport] = c
        return c
    }

    /// Every run starts on the first path with every path up.
    func resetPaths(_ network: EmulatedNetwork) throws {
        for p in network.paths { try network.setPath(p.name, up: true) }
        if network.activePath != network.paths[0].name { try network.activate(path: network.paths[0].name) }
    }

    var tcpOptions: Socket.TCPOptions {
        var o = Socket.TCPOptions()
        o.congestionControl = server.tcpCongestionControl
        // With path events, TCP probes its connections every second (keepalive): a receiving
        // connection whose NAT mapping changed sends nothing and would otherwise wait forever; its
        // probe reaches the server under the new mapping and comes back as RST.
        if profile.hasPathEvents { o.keepAliveSeconds = 1 }
        if profile.tcpMigration == .timeout {
            o.userTimeoutMs = UInt32((profile.tcpUserTimeout?.nanoseconds ?? .seconds(10)) / 1_000_000)
            // A downloading client has nothing in flight: keepalive probes give the timeout work.
            o.keepAliveSeconds = 1
        }
        return o
    }

    /// Each run's stop waits for its closing packets (FIN, ACK, close_notify, CONNECTION_CLOSE) to
    /// cross the links, so that no packet of one run is resent into the next: until the links are
    /// empty and quiet for 100 ms or one RTT (a delayed ACK's time), at most 2 s + 2 RTT. Not
    /// with cross traffic, whose flows never fall quiet.
    var drainAtStop: Drain? {
        guard backgroundTraffic == nil else { return nil }
        let rtt = profile.rtt?.nanoseconds ?? 0
        return Drain(quiet: max(.milliseconds(100), rtt), timeout: .seconds(2) + 2 * rtt)
    }

    /// The downlink rate of the path the client ends on (for the recovery time).
    func recoveryRate(_ network: EmulatedNetwork) -> Double? {
        let last = (profile.events ?? []).last { $0.type == .switch }?.to
        let p = last.flatMap { network.path(named: $0) } ?? network.paths[0]
        return p.configuration.downlink.rate.meanBitsPerSecond
    }

    func emulatorRecord(_ report: EmulatorReport, _ network: EmulatedNetwork) -> EmulatorRecord {
        var e = EmulatorRecord(report, profile: profile, timerFloor: timerFloor)
        e.tcpCongestionControl = servers.tcpCongestionControl
        return e
    }
}

extension ProfileTestbed {
    /// Where a run's packets go with `--pcap`; nil without it, or once a capture of this block failed.
    func captureRequest(_ run: RunSpec) -> CaptureRequest? {
        guard let pcapDirectory else { return nil }
        return CaptureRequest(directory: pcapDirectory, label: captureLabel(run))
    }

    /// Names a run in its pcap files: scenario, profile, transport, client and run index (warm-ups
    /// `warmup1`, `warmup2`, …; migration baselines and filmstrip runs marked), characters other
    /// than letters, digits, `.` and `_` replaced by `_`.
    func captureLabel(_ run: RunSpec) -> String {
        var index = run.index < 0 ? "warmup\(-run.index)" : "run\(run.index)"
        if !run.withEvents { index += "-baseline" }
        if run.filmstrip { index += "-filmstrip" }
        let parts = [scenarios[run.scenarioIndex].name, profile.name, run.transport.rawValue, run.client.rawValue]
        let safe = parts.map { part in
            String(part.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_") ? $0 : "_" })
        }
        return (safe + [index]).joined(separator: "-")
    }

    /// Records the run's pcap files; a capture that failed is told once, and the block's later
    /// runs capture nothing (the runs go on).
    func takeCapture(_ report: EmulatorReport, into record: inout RunRecord) {
        if let failure = report.linkLogFailure, linkLogDirectory != nil {
            linkLogDirectory = nil
            StandardError.write(Data("netbench: --link-log: \(failure); later runs are not logged\n".utf8))
        }
        if !report.pcapFiles.isEmpty { record.emulator?.pcapFiles = report.pcapFiles }
        guard let failure = report.captureFailure, pcapDirectory != nil else { return }
        pcapDirectory = nil
        StandardError.write(Data("netbench: --pcap: \(failure); later runs are not captured\n".utf8))
    }
}

extension TCPSenderRecord {
    init(_ s: TCPSenderStatistics) {
        self.init(
            segmentsSent: Int64(s.dataSegmentsSent), segmentsRetransmitted: Int64(s.segmentsRetransmitted),
            bytesSent: Int64(s.bytesSent), bytesRetransmitted: Int64(s.bytesRetransmitted),
            cwndSegments: Int64(s.congestionWindowSegments),
            ssthreshSegments: s.slowStartThresholdSegments.map(Int64.init),
            minRttMs: Double(s.minimumRTTMicroseconds) / 1000, smoothedRttMs: Double(s.smoothedRTTMicroseconds) / 1000)
        ecnNegotiated = s.ecnNegotiated
        deliveredCE = Int64(s.deliveredCE)
    }
}

extension RunRecord {
    /// A client's outcome as the run's records, each h1/h2 connection with the server's TCP sender
    /// statistics of it (by the client's address).
    mutating func take(_ outcome: PageLoadOutcome, serverTCP: [String: TCPSenderStatistics]) {
        pathEvents = outcome.pathEvents
        frames = outcome.frames
        cpuSlowdown = outcome.cpuSlowdown
        deterministicJS = outcome.deterministicJS
        requests = outcome.requests
        notRequested = outcome.notRequested
        connections = outcome.connections.map { c in
            var c = c
            c.serverTCP = c.localAddress.flatMap { serverTCP[$0] }.map(TCPSenderRecord.init)
            return c
        }
        metrics = outcome.metrics
        if let f = outcome.failure {
            status = .failed
            error = f
        }
    }
}

/// What every profile's testbed of a plan shares besides the request: the credentials of the
/// scenarios' origins, the plan's diagnostic files, and the clients and background traffic that
/// plug in. Made once per plan by `TestbedFactory`.
struct TestbedParts {
    var credentials: RunCredentials
    /// qlog and QUIC key-log files for the whole plan; nil when none is asked for.
    var diagnostics: DiagnosticFiles?
    var clients: [RunClient: PageLoadFactory] = [:]
    var background: BackgroundTrafficFactory?
}

extension EmulatorSettings {
    /// The packet loop's scheduling and mode: SCHED_FIFO 10 (the options' default) or the normal
    /// scheduler; precise mode polls from a margin measured against `floor`.
    public func apply(to options: inout EmulatedNetwork.Options, floor: TimerFloor) {
        if scheduling == .normal { options.loopRealtimePriority = nil }
        options.tunOffload = tunOffload
        options.tunNAPIThreads = tunNAPIThreads
        if let releaseWindow { options.releaseWindow = releaseWindow }
        if precise { PreciseMode.enable(&options, floor: floor) }
    }
}
