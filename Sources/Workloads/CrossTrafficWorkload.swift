import Foundation
import BenchCore
import Runner
import BenchModel
import LinkEmulator
import QUIC
import Testbed

/// A profile's cross traffic as the testbed's background traffic: the flows of a
/// `CrossTrafficSession` (their own servers live as long as the block) around every page load.
public final class CrossTrafficWorkload: BackgroundTrafficFactory {
    public init() {}

    public func start(
        flows: [CrossFlowSpec], network: EmulatedNetwork, credentials: RunCredentials,
        quic: QUICConfiguration, tcpCongestionControl: String
    ) throws -> BackgroundTraffic {
        CrossTrafficRun(
            try CrossTrafficSession(
                flows: flows, network: network, credentials: credentials, quic: quic,
                tcpCongestionControl: tcpCongestionControl))
    }
}

/// One block's flows, started before each page and stopped with it.
final class CrossTrafficRun: BackgroundTraffic {
    let session: CrossTrafficSession

    init(_ session: CrossTrafficSession) { self.session = session }

    /// Starts the flows `lead` before the page and returns once the page is due.
    func begin() {
        let navigation = Instant.now() + session.plan.lead
        session.start(navigationStart: navigation)
        let wait = navigation.since(Instant.now())
        if wait > 0 { Thread.sleep(forTimeInterval: Double(wait) / 1e9) }
    }

    /// Stops the flows (those that stop with the page at its last byte) and returns their record,
    /// with times from the page's own navigation start.
    func end(_ outcome: PageLoadOutcome) -> CrossTrafficRecord? {
        let nav = outcome.navigationStart
        let end = nav.flatMap { n in outcome.metrics.pltMs.map { n + .milliseconds($0) } } ?? Instant.now()
        return session.finish(pageEnd: end, pageNavigationStart: nav)
    }

    func abandon() -> CrossTrafficRecord? {
        session.isRunning ? session.finish(pageEnd: Instant.now()) : nil
    }

    func close() { session.close() }
}
