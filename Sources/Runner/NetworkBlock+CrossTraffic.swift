import Foundation
import BenchCore
import BenchModel
import LinkEmulator

extension NetworkBlock {
    /// Builds the profile's cross traffic (its servers live as long as the block); on failure the
    /// block's network and servers are removed before the error is thrown.
    func startCrossTraffic(_ net: EmulatedNetwork) throws {
        guard let flows = profile.crossTraffic, !flows.isEmpty else { return }
        do {
            crossTraffic = try CrossTrafficSession(flows: flows, network: net, credentials: credentials, quic: quic,
                                                   tcpCongestionControl: tcpCongestionControl)
        } catch {
            servers.stop()
            net.teardown()
            throw BenchError.run("profile '\(profile.name)': cannot start its cross traffic: \(error)")
        }
    }

    /// Starts the flows `lead` before the page and returns once the page is due.
    func beginCrossTraffic() {
        guard let cross = crossTraffic else { return }
        let navigation = Instant.now() + cross.plan.lead
        cross.start(navigationStart: navigation)
        let wait = navigation.since(Instant.now())
        if wait > 0 { Thread.sleep(forTimeInterval: Double(wait) / 1e9) }
    }

    /// Stops the flows (those that stop with the page at its last byte) and returns their record,
    /// with times from the page's own navigation start.
    func endCrossTraffic(_ outcome: PageRun.Outcome) -> CrossTrafficRecord? {
        guard let cross = crossTraffic else { return nil }
        let nav = outcome.navigationStart
        let end = nav.flatMap { n in outcome.metrics.pltMs.map { n + .milliseconds($0) } } ?? Instant.now()
        return cross.finish(pageEnd: end, pageNavigationStart: nav)
    }

    /// The page's ideal is the bound on an empty link: say so when flows competed for it.
    func noteCrossTraffic(_ record: inout RunRecord) {
        guard let n = record.crossTraffic?.flows.count, n > 0 else { return }
        let note = "the ideal assumes the whole link; \(n) cross-traffic flow\(n == 1 ? "" : "s") shared it"
        record.metrics.idealNote = record.metrics.idealNote.map { $0 + "; " + note } ?? note
    }
}
