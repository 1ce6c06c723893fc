import Foundation
import BenchCore
import Runner
import BenchModel
import Testbed
import QUIC
import LinkEmulator

/// Bulk flows competing on a profile's bottleneck without a page (fairness measurements): builds
/// the profile's emulated network, runs the flows on their planned timings (offsets from the
/// run's start), and returns their record. The flows need explicit stops (`duration` or
/// `stopAfter`): there is no page end.
public struct CompetingFlowsRun {
    public var profile: Profile
    public var flows: [CrossFlowSpec]
    public var library: Library
    public var seed: UInt64
    /// The default for TCP flows that name none.
    public var tcpCongestionControl: String

    public init(
        profile: Profile, flows: [CrossFlowSpec], library: Library = Library.locate(), seed: UInt64 = 1,
        tcpCongestionControl: String = "cubic"
    ) {
        self.profile = profile; self.flows = flows; self.library = library; self.seed = seed
        self.tcpCongestionControl = tcpCongestionControl
    }

    public struct Outcome: Sendable {
        public var record: CrossTrafficRecord
        /// Why the emulator's figures are suspect (fell behind, lost packets outside the model).
        public var emulatorFlags: [String]
    }

    public func execute() throws -> Outcome {
        guard profile.isEmulated else {
            throw BenchError.usage("profile '\(profile.name)' is not emulated: flows need a bottleneck")
        }
        for (i, f) in flows.enumerated() where f.stopAfter == nil && f.duration == nil {
            throw BenchError.usage("flow \(f.displayName(index: i)) needs a duration or stopAfter (no page ends it)")
        }
        let paths = try ProfileLink.paths(of: profile, library: library)
        let network = try EmulatedNetwork.create(paths: paths, options: EmulatedNetwork.Options(seed: seed))
        defer { network.teardown() }
        var quic = QUICConfiguration()
        quic.initialRTT = max(paths[0].roundTrip, .milliseconds(1))
        let credentials = try RunCredentials(hosts: [])
        let session = try CrossTrafficSession(
            flows: flows, network: network, credentials: credentials, quic: quic,
            tcpCongestionControl: tcpCongestionControl)
        defer { session.close() }
        try network.start()
        let start = Instant.now() + session.plan.lead + .milliseconds(5)
        session.start(navigationStart: start)
        let record = session.finish(pageEnd: start)
        let report = try network.stop()
        return Outcome(record: record, emulatorFlags: report.flagReasons)
    }
}
