import Foundation
import BenchCore
import BenchModel
import SystemIO
import Transport
import TLS
import QUIC
import LinkModel
import LinkEmulator

/// The network and servers of one profile's block of runs: loopback, or an emulated network whose
/// namespaces and emulator live exactly as long as the block.
final class NetworkBlock {
    let profile: Profile
    let scenarios: [Scenario]
    let credentials: RunCredentials
    let servers: ServerHost
    let tlsVersion: TLSVersion?
    let keyLogFile: String?
    /// The RTT the ideal is computed with: configured (emulated) or measured (loopback), in ms;
    /// nil when the loopback probe failed (the ideal is then unknown, and `rttProblem` says why).
    let rttMs: Double?
    let rttProblem: String?
    let downlinkBitsPerSecond: Double?
    let quic: QUICConfiguration
    /// The emulated network of this block; nil on loopback.
    let network: EmulatedNetwork?
    let clientAddress: UInt32?

    let tcpCongestionControl: String
    let tlsRecords: TLSRecordPolicy
    let lateBinding: LateBinding
    /// The timer floor measured (200 ms) before this block's runs; nil on loopback.
    let timerFloor: TimerFloor?
    /// Repeat views: state carried from run to run within this block, per transport.
    let repeatView: Bool
    private var tlsContexts: [TransportKind: TLSClientContext] = [:]
    private let quicResumption = QUICResumptionCache()

    init(profile: Profile, scenarios: [Scenario], credentials: RunCredentials, withQUIC: Bool,
         tlsVersion: TLSVersion?, keyLogFile: String?, tcpCongestionControl: String, repeatView: Bool = false, quic baseQUIC: QUICConfiguration, seed: UInt64,
         library: Library, emulatorRealtime: Bool = false, renderPages: Bool = false, tlsRecords: TLSRecordPolicy = .dynamic, emulatorPrecise: Bool = false,
         emulatorNormalScheduler: Bool = false, lateBinding: LateBinding = .standard) throws {
        self.profile = profile
        self.scenarios = scenarios
        self.credentials = credentials
        self.tlsVersion = tlsVersion
        self.keyLogFile = keyLogFile
        self.tcpCongestionControl = tcpCongestionControl
        self.repeatView = repeatView
        // ngtcp2 0.12 paces the second handshake flight by cwnd / initial RTT: start from the
        // profile's RTT (a small value on loopback), or handshakes stall for the 333 ms default.
        var quic = baseQUIC
        let pathConfigs = profile.isEmulated ? try ProfileLink.paths(of: profile, library: library) : []
        quic.initialRTT = pathConfigs.first.map { max($0.roundTrip, .milliseconds(1)) } ?? .milliseconds(1)
        self.quic = quic
        var serverOptions = ServerHost.ServerOptions(tlsVersion: tlsVersion, keyLogFile: keyLogFile, quic: quic)
        serverOptions.renderPages = renderPages
        serverOptions.tcpCongestionControl = tcpCongestionControl
        serverOptions.tlsRecords = tlsRecords
        serverOptions.lateBinding = lateBinding
        self.lateBinding = lateBinding
        self.tlsRecords = tlsRecords
        guard profile.isEmulated else {
            network = nil
            clientAddress = nil
            timerFloor = nil
            servers = try ServerHost(scenarios: scenarios, credentials: credentials, address: Endpoint.loopbackAddress, namespace: nil,
                                     withQUIC: withQUIC, options: serverOptions)
            do {
                rttMs = try RTTProbe.tcpConnectMinimum(to: servers.endpoints[0].tcp!, namespace: nil, samples: 20)
                rttProblem = nil
            } catch {
                rttMs = nil
                rttProblem = "RTT unknown (the loopback probe failed: \(error)), so the ideal is unknown"
            }
            downlinkBitsPerSecond = nil
            return
        }
        let privileges = EmulationPrivileges.check()
        guard privileges.isSufficient else { throw BenchError.privilege(privileges.reason) }
        let path = pathConfigs[0]
        let net: EmulatedNetwork
        var options = EmulatedNetwork.Options(seed: seed, activePath: path.name)
        if emulatorRealtime { options.loopRealtimePriority = 10 }
        if emulatorNormalScheduler { options.loopRealtimePriority = nil }
        let floor = TimerFloor.measure(duration: .milliseconds(200))
        timerFloor = floor
        if emulatorPrecise { PreciseMode.enable(&options, floor: floor) }
        do { net = try EmulatedNetwork.create(paths: pathConfigs, options: options) } catch {
            throw BenchError.run("cannot create the emulated network for profile '\(profile.name)': \(error)")
        }
        do {
            servers = try ServerHost(scenarios: scenarios, credentials: credentials, address: net.serverAddress,
                                     namespace: net.serverNamespace, withQUIC: withQUIC, options: serverOptions)
        } catch {
            net.teardown()
            throw error
        }
        network = net
        clientAddress = net.paths[0].address
        rttMs = (profile.rtt?.nanoseconds ?? 0).inMilliseconds
        rttProblem = nil
        downlinkBitsPerSecond = ProfileLink.downlinkBitsPerSecond(path)
    }

    /// Stops the servers and removes the emulated network (namespaces, TUN devices).
    func close() {
        servers.stop()
        network?.teardown()
    }

    func runOnce(scenario: Scenario, scenarioIndex: Int, transport: TransportKind, index: Int, timeout: Nanoseconds?,
                         withEvents: Bool, client: RunClient, register: (StopFlag?) -> Void) -> RunRecord {
        let planned = rttMs.map { IdealPageLoad(rttMs: $0, downlinkBitsPerSecond: downlinkBitsPerSecond, transport: transport,
                                                tls12: tlsVersion == .tls12) }
        let limit = timeout ?? min(.seconds(600), .milliseconds((planned?.pltMs(scenario) ?? 0) * 10) + .seconds(30))
        var page = PageRun(scenario: scenario, scenarioName: scenario.name, transport: transport,
                           serverEndpoints: servers.endpoints[scenarioIndex], credentials: credentials,
                           clientNamespace: network?.clientNamespace, clientAddress: clientAddress, timeout: limit, keyLogFile: keyLogFile, tlsVersion: tlsVersion, quic: quic)
        var record = RunRecord(scenario: scenario.name, profile: profile.name, transport: transport, index: max(index, 0), status: .ok)
        if index < 0 { record.warmup = true }
        record.client = client
        record.server = ServerRecord(tlsRecords: tlsRecords.description)
        if transport == .h2 { record.server?.lateBinding = lateBinding.description }
        _ = servers.takeAcceptedCongestionControls()  // stragglers of earlier runs
        record.startedAt = BenchmarkRunner.utcTimestamp()
        page.tcpOptions = tcpOptions
        if repeatView {
            page.quicResumption = quicResumption
            page.sharedTLSContext = try? sharedTLSContext(for: transport)
        }
        do {
            if let network {
                let schedule = withEvents ? try emulatorSchedule(network) : []
                try network.start(schedule: schedule)
                page.eventsOrigin = Instant.now()
                try resetPaths(network)
                if withEvents { page.networkEvents = try clientChanges(network) }
                page.expectsTrouble = withEvents && (profile.hasPathEvents || !(profile.outages ?? []).isEmpty)
                page.recoveryRateBitsPerSecond = recoveryRate(network)
            }
            let load: PageLoad = client == .chromium
                ? try chromiumRun(scenario: scenario, scenarioIndex: scenarioIndex, transport: transport, limit: limit)
                : page
            let cpuBefore = (client: CPUTime.currentThreadMs(), server: servers.cpuMs, process: CPUTime.processMs())
            let outcome = try load.execute(register: register)
            let clientCPU = client == .builtin ? CPUTime.currentThreadMs() - cpuBefore.client : nil
            let serverCPU = cpuBefore.server.flatMap { before in servers.cpuMs.map { $0 - before } }
            let processCPU = CPUTime.processMs() - cpuBefore.process
            // Before the emulator stops: the client's FINs must still reach the server.
            let serverTCP = takeServerTCP(outcome.connections)
            record.pathEvents = outcome.pathEvents
            if let network {
                let report = try network.stop()
                record.emulator = emulatorRecord(report, network)
                if record.emulator?.flagged == true, record.error == nil {
                    record.error = "emulator fell behind: " + report.flagReasons.joined(separator: "; ")
                }
            }
            record.requests = outcome.requests
            record.connections = outcome.connections.map { c in
                var c = c
                c.serverTCP = c.localAddress.flatMap { serverTCP[$0] }.map(TCPSenderRecord.init)
                return c
            }
            record.metrics = outcome.metrics
            record.metrics.clientCPUMs = clientCPU
            record.metrics.serverCPUMs = serverCPU
            record.metrics.processCPUMs = processCPU
            record.applyLatenessBound(scenario: scenario, transport: transport,
                                      zeroRTT: record.connections.first?.earlyDataAccepted == true,
                                      downlinkBitsPerSecond: downlinkBitsPerSecond)
            if let f = outcome.failure { record.status = .failed; record.error = f }
        } catch {
            if let network, network.isRunning { _ = try? network.stop() }
            record.status = .failed
            record.error = "\(error)"
        }
        let serverCC = servers.takeAcceptedCongestionControls()
        if !serverCC.isEmpty { record.server?.congestionControl = serverCC.joined(separator: ",") }
        setIdeal(&record, scenario)
        if let bulk = scenario.bulk, record.status == .ok, let req = record.requests.first {
            // Download: body bytes over first → last byte. Upload: body bytes over request sent →
            // the server's answer, which leaves only once the last body byte arrived.
            let window = bulk.direction == .download
                ? (req.lastByte ?? 0) - (req.firstByte ?? 0)
                : (req.firstByte ?? 0) - (req.requestSent ?? 0)
            if window > 0 { record.metrics.goodputMbps = Double(bulk.bytes) * 8 / (window / 1000) / 1e6 }
            if bulk.direction == .upload { record.metrics.bytes = bulk.bytes }
        }
        return record
    }
}

extension NetworkBlock {
    /// The server's TCP sender statistics of a run's h1/h2 connections, by the client's address
    /// (the server's peer), once the server has seen each close: within a round trip and a margin
    /// of the client closing them. A browser's connections are not known by address: none.
    func takeServerTCP(_ connections: [ConnectionRecord]) -> [String: TCPSenderStatistics] {
        let peers = Set(connections.compactMap { $0.transport == .h3 ? nil : $0.localAddress })
        let patience = Nanoseconds.milliseconds((rttMs ?? 0) + 200)
        return servers.takeSenderStatistics(for: peers, patience: patience)
    }

    /// The emulator's part of the profile's events: a switch activates the new path and takes the
    /// old one down; an outage takes the active path down and up again.
    func emulatorSchedule(_ network: EmulatedNetwork) throws -> [PathEvent] {
        var active = network.paths[0].name
        var out: [PathEvent] = []
        for e in (profile.events ?? []).sorted(by: { $0.at.nanoseconds < $1.at.nanoseconds }) {
            switch e.type {
            case .switch:
                guard let to = e.to else { continue }
                out.append(PathEvent(at: e.at.nanoseconds, path: to, action: .activate))
                out.append(PathEvent(at: e.at.nanoseconds, path: active, action: .down))
                active = to
            case .outage:
                let end = e.at.nanoseconds + (e.duration?.nanoseconds ?? 0)
                out.append(PathEvent(at: e.at.nanoseconds, path: active, action: .down))
                out.append(PathEvent(at: end, path: active, action: .up))
            case .rebindPort:
                out.append(PathEvent(at: e.at.nanoseconds, path: active, action: .rebindPort))
            case .rebindAddr:
                out.append(PathEvent(at: e.at.nanoseconds, path: active, action: .rebindAddress))
            }
        }
        return out
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
                out.append(.init(at: e.at.nanoseconds, change: NetworkChange(kind: .switchPath, localAddress: next.address, abortTCP: abort),
                                 type: e.type.rawValue, from: active.name, to: next.name,
                                 detail: abort ? "TCP sockets on \(active.name) aborted" : "TCP left to its timers"))
                active = next
            case .rebindPort:
                // The emulator's NAT changes the mapping; the client is not told (nor is it in life).
                out.append(.init(at: e.at.nanoseconds, change: nil, type: e.type.rawValue, from: active.name, to: active.name,
                                 detail: "NAT maps the client to a new port"))
            case .rebindAddr:
                out.append(.init(at: e.at.nanoseconds, change: nil, type: e.type.rawValue, from: active.name, to: active.name,
                                 detail: "NAT maps the client to a new address"))
            case .outage:
                out.append(.init(at: e.at.nanoseconds, change: nil, type: e.type.rawValue, from: active.name, to: active.name,
                                 detail: "no path for \(e.duration?.description ?? "?")"))
            }
        }
        return out
    }

    /// One TLS client context per TCP transport for the whole block, so sessions resume.
    func sharedTLSContext(for transport: TransportKind) throws -> TLSClientContext? {
        guard transport != .h3 else { return nil }
        if let c = tlsContexts[transport] { return c }
        var cfg = TLSClientConfiguration(trustedRootsPEM: credentials.caPEM, alpn: [transport == .h1 ? "http/1.1" : "h2"])
        if let v = tlsVersion { cfg.force(v) }
        cfg.keyLogFile = keyLogFile
        cfg.resumption = true
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
        o.congestionControl = tcpCongestionControl
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

    /// The downlink rate of the path the client ends on (for the recovery time).
    func recoveryRate(_ network: EmulatedNetwork) -> Double? {
        let last = (profile.events ?? []).last { $0.type == .switch }?.to
        let p = last.flatMap { network.path(named: $0) } ?? network.paths[0]
        return p.configuration.downlink.rate.meanBitsPerSecond
    }

    func emulatorRecord(_ report: EmulatorReport, _ network: EmulatedNetwork) -> EmulatorRecord {
        var e = EmulatorRecord(profile: profile.name, configured: profile.summary, flagged: !report.flagReasons.isEmpty)
        e.releaseLatenessP50Us = Double(report.latenessP50) / 1000
        e.releaseLatenessP99Us = Double(report.latenessP99) / 1000
        e.tunDrops = report.devices.reduce(0) { $0 + Int64($1.after.txDropped - $1.before.txDropped) }
        e.packetsForwarded = report.releasedPackets
        e.packetsDroppedLoss = report.paths.reduce(0) { $0 + Int64($1.uplink.droppedByLoss.packets + $1.downlink.droppedByLoss.packets) }
        e.packetsDroppedQueue = report.paths.reduce(0) { $0 + Int64($1.uplink.droppedByQueue.packets + $1.downlink.droppedByQueue.packets) }
        e.tcpCongestionControl = servers.tcpCongestionControl
        e.record(report, timerFloor: timerFloor)
        return e
    }
}

/// Measures round-trip time as the minimum time of TCP connects (SYN → SYN-ACK = one round trip):
/// a bound wants the path's own delay, and scheduling on a busy machine only ever adds to it.
enum RTTProbe {
    /// No connect of the probe completed; `reason` is the last one's error.
    struct Failure: Error, CustomStringConvertible {
        var remote: Endpoint
        var reason: String
        var description: String { "RTT probe: no connection to \(remote) completed: \(reason)" }
    }

    /// The fastest of `samples` connects in milliseconds; a connect that fails (refused, timed out)
    /// is not a round trip and is left out.
    static func tcpConnectMinimum(to remote: Endpoint, namespace: String?, samples: Int) throws -> Double {
        let loop = try EventLoop()
        var times: [Double] = []
        var lastError = "timed out after 5 s"
        for _ in 0..<samples {
            let start = Instant.now()
            let fd: FileDescriptor
            do { fd = try NetworkNamespace.with(namespace) { try Socket.connectTCP(to: remote) } } catch {
                lastError = "\(error)"
                continue
            }
            var done = false
            try loop.register(fd, .write) { _ in done = true }
            try loop.run(until: start + .seconds(5)) { done }
            let end = Instant.now()
            loop.unregister(fd)
            if done {
                if let err = try? Socket.connectResult(fd) { lastError = "\(err)" } else { times.append(end.milliseconds(since: start)) }
            }
            Socket.close(fd)
        }
        guard let fastest = times.min() else { throw Failure(remote: remote, reason: lastError) }
        return fastest
    }
}

extension NetworkBlock {
    /// The run's bounds, from what its document connection negotiated (read back, not requested):
    /// QUIC 0-RTT accepted: 1 RTT; TLS 1.2: 4 RTT, resumed 3; TLS 1.3: 3 RTT, resumed too (no
    /// TLS early data here). Unknown when the RTT is; no PLT bound for a bulk transfer without a
    /// bottleneck rate (`IdealPageLoad.missingBound`).
    func setIdeal(_ record: inout RunRecord, _ scenario: Scenario) {
        record.metrics.rttMs = rttMs
        guard let rttMs else { record.metrics.idealNote = rttProblem; return }
        let doc = record.requests.first?.connection.flatMap { i in record.connections.first { $0.id == i } }
        let tls12 = doc?.tlsVersion.map { $0.hasSuffix("1.2") } ?? (tlsVersion == .tls12)
        let ideal = IdealPageLoad(rttMs: rttMs, downlinkBitsPerSecond: downlinkBitsPerSecond, transport: record.transport,
                                  zeroRTT: doc?.earlyDataAccepted == true, tls12: tls12, resumed: doc?.resumed == true)
        record.metrics.idealTtfbMs = ideal.ttfbMs(scenario)
        if let missing = ideal.missingBound(scenario) {
            record.metrics.idealNote = missing
        } else {
            record.metrics.idealPltMs = ideal.pltMs(scenario)
        }
    }
}

extension TCPSenderRecord {
    init(_ s: TCPSenderStatistics) {
        self.init(segmentsSent: Int64(s.dataSegmentsSent), segmentsRetransmitted: Int64(s.segmentsRetransmitted),
                  bytesSent: Int64(s.bytesSent), bytesRetransmitted: Int64(s.bytesRetransmitted),
                  cwndSegments: Int64(s.congestionWindowSegments), ssthreshSegments: s.slowStartThresholdSegments.map(Int64.init),
                  minRttMs: Double(s.minimumRTTMicroseconds) / 1000, smoothedRttMs: Double(s.smoothedRTTMicroseconds) / 1000)
    }
}
