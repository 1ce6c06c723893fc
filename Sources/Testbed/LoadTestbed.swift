import Foundation
import BenchCore
import BenchModel
import Runner
import SystemIO
import Transport
import QUIC
import LinkModel
import LinkEmulator

/// The emulated network of `netbench load -p PROFILE`: the profile's link made as `run`'s blocks
/// make theirs (`ProfileTestbed.emulatedNetwork`: same paths, timer floor, loop settings, QUIC
/// initial RTT), netbench's replay server in its server namespace; the load generator's sockets go
/// in the client namespace (`clientNamespace`, bound to the first path's address). One load per
/// `start()`/`stop()`, so each transport's load has its own emulator report.
public final class LoadTestbed {
    public let profile: Profile
    public let servers: ServerHost
    public let network: EmulatedNetwork
    /// The first path: the one the load crosses.
    public let path: PathConfiguration
    /// QUIC settings of both ends (the initial RTT from the profile, as `run` sets it).
    public let quic: QUICConfiguration
    public let timerFloor: TimerFloor

    public var clientNamespace: String { network.clientNamespace }
    public var clientAddress: UInt32? { network.paths.first?.address }
    /// The configured round trip (ms): the sum of both directions' fixed delays.
    public var rttMs: Double { Double(path.roundTrip) / 1e6 }
    /// The mean rates of the path's directions (bit/s); nil: unlimited or a trace without a mean.
    public var downlinkBitsPerSecond: Double? { ProfileLink.downlinkBitsPerSecond(path) }
    public var uplinkBitsPerSecond: Double? { path.uplink.rate.meanBitsPerSecond }

    /// Creates the network and starts the servers of `scenarios` in its server namespace; throws
    /// (leaving nothing behind) when the profile is not emulated, privileges are missing, or either fails.
    public init(
        profile: Profile, scenarios: [Scenario], credentials: RunCredentials, withTCP: Bool, withQUIC: Bool,
        library: Library = Library.locate(), emulator: EmulatorSettings = EmulatorSettings(), seed: UInt64 = 1
    ) throws {
        guard profile.isEmulated else {
            throw BenchError.usage("profile '\(profile.name)' is not emulated: load on loopback without -p")
        }
        let privileges = EmulationPrivileges.check()
        guard privileges.isSufficient else { throw BenchError.privilege(privileges.reason) }
        let paths = try ProfileLink.paths(of: profile, library: library)
        self.profile = profile
        path = paths[0]
        quic = ProfileTestbed.quic(ServerSettings(), diagnostics: nil, firstPath: paths[0])
        timerFloor = TimerFloor.measure(duration: .milliseconds(200))
        let net = try ProfileTestbed.emulatedNetwork(
            profile, paths, seed: seed, settings: emulator, floor: timerFloor)
        do {
            servers = try ServerHost(
                scenarios: scenarios, credentials: credentials, address: net.serverAddress,
                namespace: net.serverNamespace, withTCP: withTCP, withQUIC: withQUIC,
                options: ServerHost.ServerOptions(settings: ServerSettings(), quic: quic))
        } catch {
            net.teardown()
            throw error
        }
        network = net
    }

    /// Starts the packet loop (every path up, the first one active).
    public func start() throws {
        try network.start()
        try resetPathsToFirst()
    }

    /// Stops the packet loop once the closing packets crossed (quiet for max(100 ms, RTT), at
    /// most 2 s + 2 RTT, as `run` drains), and returns its report.
    public func stop() throws -> EmulatorReport {
        let rtt = path.roundTrip
        return try network.stop(drain: Drain(quiet: max(.milliseconds(100), rtt), timeout: .seconds(2) + 2 * rtt))
    }

    /// Stops the servers and removes the namespaces and devices.
    public func close() {
        servers.stop()
        if network.isRunning { _ = try? network.stop() }
        network.teardown()
    }

    private func resetPathsToFirst() throws {
        for p in network.paths { try network.setPath(p.name, up: true) }
        if network.activePath != network.paths[0].name { try network.activate(path: network.paths[0].name) }
    }
}
