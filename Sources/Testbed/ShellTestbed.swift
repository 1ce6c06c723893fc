import Foundation
import BenchCore
import BenchModel
import Runner
import LinkModel
import LinkEmulator

/// The network of `netbench shell`: a profile's emulated network built as a benchmark run builds
/// it (`ProfileLink`, `ProfileTestbed.emulatedNetwork`, the timer floor measured first), joined to
/// the host's loopback (`HostGateway`), with the profile's events on their schedule from `start`,
/// once or cycle after cycle.
package final class ShellTestbed {
    package let profile: Profile
    package let network: EmulatedNetwork
    package let gateway: HostGateway
    package let timerFloor: TimerFloor
    /// The emulator's part of the profile's events (offsets from `start`).
    package let events: [PathEvent]
    private var loopTimer: DispatchSourceTimer?

    /// Builds the network of an emulated `profile` (throws `.usage` for loopback, `.data` for a bad
    /// trace or path profile); on failure nothing is left behind.
    package init(profile: Profile, library: Library, settings: EmulatorSettings, seed: UInt64) throws {
        guard profile.isEmulated else {
            throw BenchError.usage("profile '\(profile.name)' is not emulated: there is no network to run a shell in")
        }
        let paths = try ProfileLink.paths(of: profile, library: library)
        self.profile = profile
        timerFloor = TimerFloor.measure(duration: .milliseconds(200))
        network = try ProfileTestbed.emulatedNetwork(profile, paths, seed: seed, settings: settings, floor: timerFloor)
        do { gateway = try network.openHostAccess() } catch {
            network.teardown()
            throw error
        }
        events = ProfileSchedule.events(of: profile, firstPath: paths[0].name)
    }

    /// One cycle of `--loop`; nil when the profile has nothing timed (traces wrap by themselves).
    package var loopPeriod: Nanoseconds? {
        ProfileSchedule.loopPeriod(events: events, paths: network.paths.map(\.configuration))
    }

    /// `loopPeriod` of a profile before any network is built (to refuse `--loop` early).
    package static func loopPeriod(of profile: Profile, library: Library) throws -> Nanoseconds? {
        guard profile.isEmulated else { return nil }
        let paths = try ProfileLink.paths(of: profile, library: library)
        let events = ProfileSchedule.events(of: profile, firstPath: paths[0].name)
        return ProfileSchedule.loopPeriod(events: events, paths: paths)
    }

    /// The variables a program in the shell gets: where the host's loopback, the server namespace
    /// and the client are, and the profile's name.
    package var environment: [String: String] {
        [
            "NETBENCH_HOST": Endpoint(address: gateway.address, port: 0).addressString,
            "NETBENCH_SERVER": Endpoint(address: network.serverAddress, port: 0).addressString,
            "NETBENCH_CLIENT": Endpoint(address: network.paths[0].address, port: 0).addressString,
            "NETBENCH_PROFILE": profile.name,
        ]
    }

    /// Starts the emulator: the profile's events count from now; with `loop`, cycle k + 1 is
    /// handed to the emulator as cycle k begins (`ProfileSchedule.cycle`).
    package func start(loop: Bool, capture: CaptureRequest?, linkLog: CaptureRequest? = nil) throws {
        try network.start(schedule: events, capture: capture, linkLog: linkLog)
        guard loop, let period = loopPeriod else { return }
        let paths = network.paths.map(\.configuration), events = self.events, network = self.network
        let timer = DispatchSource.makeTimerSource(queue: .global())
        nonisolated(unsafe) var k = 1
        timer.schedule(deadline: .now(), repeating: .nanoseconds(Int(period)))
        timer.setEventHandler {
            try? network.schedule(ProfileSchedule.cycle(k, period: period, events: events, paths: paths))
            k += 1
        }
        loopTimer = timer
        timer.resume()
    }

    /// Stops the emulator and reports what it did since `start`.
    package func stop() throws -> EmulatorReport {
        loopTimer?.cancel()
        loopTimer = nil
        return try network.stop()
    }

    /// Removes the network, its namespaces, devices and host access.
    package func close() {
        loopTimer?.cancel()
        network.teardown()
    }
}
