import Foundation
import BenchCore
import BenchModel
import SystemIO
import Transport
import TLS
import QUIC

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

    init(profile: Profile, scenarios: [Scenario], credentials: RunCredentials, withQUIC: Bool,
         tlsVersion: TLSVersion?, keyLogFile: String?, quic baseQUIC: QUICConfiguration) throws {
        self.profile = profile
        self.scenarios = scenarios
        self.credentials = credentials
        self.tlsVersion = tlsVersion
        self.keyLogFile = keyLogFile
        guard !profile.isEmulated else {
            throw BenchError.run("profile '\(profile.name)' needs the link emulator, which is not in this build yet")
        }
        // ngtcp2 0.12 paces the second handshake flight by cwnd / initial RTT: start from the
        // profile's RTT (a small value on loopback), or handshakes stall for the 333 ms default.
        var quic = baseQUIC
        quic.initialRTT = profile.rtt?.nanoseconds ?? .milliseconds(1)
        self.quic = quic
        servers = try ServerHost(scenarios: scenarios, credentials: credentials, address: 0x7F00_0001, namespace: nil,
                                 withQUIC: withQUIC, options: .init(tlsVersion: tlsVersion, keyLogFile: keyLogFile, quic: quic))
        rttMs = (try? RTTProbe.tcpConnectMedian(to: servers.endpoints[0].tcp!, namespace: nil, samples: 20)) ?? 0.05
        downlinkBitsPerSecond = nil
    }

    func close() { servers.stop() }

    func run(scenario: Scenario, scenarioIndex: Int, transport: TransportKind, index: Int, timeout: Nanoseconds?,
             register: (StopFlag?) -> Void) -> RunRecord {
        let ideal = IdealPageLoad(rttMs: rttMs, downlinkBitsPerSecond: downlinkBitsPerSecond, transport: transport)
        let idealPlt = ideal.pltMs(scenario)
        let limit = timeout ?? min(.seconds(600), .milliseconds(idealPlt * 10) + .seconds(30))
        let page = PageRun(scenario: scenario, scenarioName: scenario.name, transport: transport,
                           serverEndpoints: servers.endpoints[scenarioIndex], credentials: credentials,
                           clientNamespace: nil, clientAddress: nil, timeout: limit, keyLogFile: keyLogFile, tlsVersion: tlsVersion, quic: quic)
        var record = RunRecord(scenario: scenario.name, profile: profile.name, transport: transport, index: max(index, 0), status: .ok)
        if index < 0 { record.warmup = true }
        record.client = "builtin"
        record.startedAt = BenchmarkRunner.utcTimestamp()
        do {
            let outcome = try page.execute(register: register)
            record.requests = outcome.requests
            record.connections = outcome.connections
            record.metrics = outcome.metrics
            if let f = outcome.failure { record.status = .failed; record.error = f }
        } catch {
            record.status = .failed
            record.error = "\(error)"
        }
        record.metrics.idealPltMs = idealPlt
        record.metrics.idealTtfbMs = ideal.ttfbMs(scenario)
        record.metrics.rttMs = rttMs
        if let bulk = scenario.bulk, let plt = record.metrics.pltMs, let ttfb = record.metrics.ttfbMs, plt > ttfb {
            record.metrics.goodputMbps = Double(bulk.bytes) * 8 / ((plt - ttfb) / 1000) / 1e6
        }
        return record
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
