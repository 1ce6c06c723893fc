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
    /// The RTT the ideal is computed with: configured (emulated) or measured (loopback), in ms.
    let rttMs: Double
    let downlinkBitsPerSecond: Double?
    let quic: QUICConfiguration
    /// The emulated network of this block; nil on loopback.
    let network: EmulatedNetwork?
    let clientAddress: UInt32?

    init(profile: Profile, scenarios: [Scenario], credentials: RunCredentials, withQUIC: Bool,
         tlsVersion: TLSVersion?, keyLogFile: String?, quic baseQUIC: QUICConfiguration, seed: UInt64, renderPages: Bool = false) throws {
        self.profile = profile
        self.scenarios = scenarios
        self.credentials = credentials
        self.tlsVersion = tlsVersion
        self.keyLogFile = keyLogFile
        // ngtcp2 0.12 paces the second handshake flight by cwnd / initial RTT: start from the
        // profile's RTT (a small value on loopback), or handshakes stall for the 333 ms default.
        var quic = baseQUIC
        quic.initialRTT = profile.rtt?.nanoseconds ?? .milliseconds(1)
        self.quic = quic
        var serverOptions = ServerHost.ServerOptions(tlsVersion: tlsVersion, keyLogFile: keyLogFile, quic: quic)
        serverOptions.renderPages = renderPages
        guard profile.isEmulated else {
            network = nil
            clientAddress = nil
            servers = try ServerHost(scenarios: scenarios, credentials: credentials, address: 0x7F00_0001, namespace: nil,
                                     withQUIC: withQUIC, options: serverOptions)
            rttMs = (try? RTTProbe.tcpConnectMedian(to: servers.endpoints[0].tcp!, namespace: nil, samples: 20)) ?? 0.05
            downlinkBitsPerSecond = nil
            return
        }
        let privileges = EmulationPrivileges.check()
        guard privileges.isSufficient else { throw BenchError.privilege(privileges.reason) }
        let path = try ProfileLink.path(named: "wifi", from: profile)
        let net: EmulatedNetwork
        do { net = try EmulatedNetwork.create(paths: [path], options: .init(seed: seed)) } catch {
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
        downlinkBitsPerSecond = ProfileLink.downlinkBitsPerSecond(path)
    }

    /// Stops the servers and removes the emulated network (namespaces, TUN devices).
    func close() {
        servers.stop()
        network?.teardown()
    }

    func run(scenario: Scenario, scenarioIndex: Int, transport: TransportKind, index: Int, timeout: Nanoseconds?,
             client: RunClient = .builtin, register: (StopFlag?) -> Void) -> RunRecord {
        let ideal = IdealPageLoad(rttMs: rttMs, downlinkBitsPerSecond: downlinkBitsPerSecond, transport: transport)
        let idealPlt = ideal.pltMs(scenario)
        let limit = timeout ?? min(.seconds(600), .milliseconds(idealPlt * 10) + .seconds(30))
        let page = PageRun(scenario: scenario, scenarioName: scenario.name, transport: transport,
                           serverEndpoints: servers.endpoints[scenarioIndex], credentials: credentials,
                           clientNamespace: network?.clientNamespace, clientAddress: clientAddress, timeout: limit, keyLogFile: keyLogFile, tlsVersion: tlsVersion, quic: quic)
        var record = RunRecord(scenario: scenario.name, profile: profile.name, transport: transport, index: max(index, 0), status: .ok)
        if index < 0 { record.warmup = true }
        record.client = client.rawValue
        record.startedAt = BenchmarkRunner.utcTimestamp()
        do {
            if let network { try network.start() }
            let outcome = client == .chromium
                ? try chromiumRun(scenario: scenario, scenarioIndex: scenarioIndex, transport: transport, limit: limit).execute(register: register)
                : try page.execute(register: register)
            if let network {
                let report = try network.stop()
                record.emulator = emulatorRecord(report, network)
                if record.emulator?.flagged == true, record.error == nil {
                    record.error = "emulator fell behind: " + report.flagReasons.joined(separator: "; ")
                }
            }
            record.requests = outcome.requests
            record.connections = outcome.connections
            record.metrics = outcome.metrics
            if let f = outcome.failure { record.status = .failed; record.error = f }
        } catch {
            if let network, network.isRunning { _ = try? network.stop() }
            record.status = .failed
            record.error = "\(error)"
        }
        record.metrics.idealPltMs = idealPlt
        record.metrics.idealTtfbMs = ideal.ttfbMs(scenario)
        record.metrics.rttMs = rttMs
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
    func emulatorRecord(_ report: EmulatorReport, _ network: EmulatedNetwork) -> EmulatorRecord {
        var e = EmulatorRecord(profile: profile.name, configured: profile.summary, flagged: !report.flagReasons.isEmpty)
        e.releaseLatenessP50Us = Double(report.latenessP50) / 1000
        e.releaseLatenessP99Us = Double(report.latenessP99) / 1000
        e.tunDrops = report.devices.reduce(0) { $0 + Int64($1.after.txDropped - $1.before.txDropped) }
        e.packetsForwarded = report.releasedPackets
        e.packetsDroppedLoss = report.paths.reduce(0) { $0 + Int64($1.uplink.droppedByLoss.packets + $1.downlink.droppedByLoss.packets) }
        e.packetsDroppedQueue = report.paths.reduce(0) { $0 + Int64($1.uplink.droppedByQueue.packets + $1.downlink.droppedByQueue.packets) }
        e.tcpCongestionControl = network.congestionControl
        return e
    }
}

/// Measures round-trip time as the median time of TCP connects (SYN → SYN-ACK = one round trip).
enum RTTProbe {
    static func tcpConnectMedian(to remote: Endpoint, namespace: String?, samples: Int) throws -> Double {
        let loop = try EventLoop()
        var times: [Double] = []
        for _ in 0..<samples {
            let start = Instant.now()
            let fd = try NetworkNamespace.with(namespace) { try Socket.connectTCP(to: remote) }
            var done = false
            try loop.register(fd, .write) { _ in done = true }
            try loop.run(until: start + .seconds(5)) { done }
            loop.unregister(fd)
            Socket.close(fd)
            if done { times.append(Instant.now().milliseconds(since: start)) }
        }
        times.sort()
        guard !times.isEmpty else { throw BenchError.run("RTT probe: no connection to \(remote) completed") }
        return times[times.count / 2]
    }
}
