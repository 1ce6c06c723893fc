import BenchCore
import LinkModel

/// The emulator's `LinkObserver` of one link direction: the sojourn histogram and time series every
/// run records, and the Mahimahi-format link log when one was asked for. Confined to the packet
/// loop's thread, like the link it watches; allocates nothing per packet.
final class LinkMonitor: LinkObserver {
    private let start: Instant
    private(set) var sojourn = SojournHistogram()
    private(set) var series = LinkTimeSeries()
    let log: MahimahiLinkLog?

    init(start: Instant, log: MahimahiLinkLog?) {
        self.start = start
        self.log = log
    }

    func arrived(_ packet: Packet, at: Instant) {
        series.arrived(bytes: packet.size, at: at.since(start))
        log?.arrived(bytes: packet.size, at: at)
    }

    func departed(_ packet: Packet) {
        let sojourn = packet.departure.since(packet.arrival)
        self.sojourn.record(sojourn)
        series.departed(bytes: packet.size, at: packet.departure.since(start), sojourn: sojourn)
        log?.departed(bytes: packet.size, arrival: packet.arrival, departure: packet.departure)
    }

    func dropped(_ packet: Packet, cause: LinkVerdict, at: Instant) {
        series.dropped(at: at.since(start))
        log?.dropped(bytes: packet.size, at: at)
    }

    /// Closes the series and the log at the end of the run (`end`: when the loop stopped).
    func finish(at end: Instant, rate: LinkRate) -> LinkQueueing {
        series.finish(duration: end.since(start))
        log?.finish(at: end)
        var bins = series.bins
        bins.capacityBytes = LinkSeries.capacity(of: rate, binWidth: bins.binWidth, bins: bins.offeredBytes.count)
        return LinkQueueing(sojourn: sojourn, series: bins, logFile: log?.path, logFailure: log?.failure)
    }
}

/// What one link direction's queue did during a run: each departed packet's sojourn time in the
/// bottleneck (serialization included), its time series, and its link log file if any.
public struct LinkQueueing: Sendable {
    public var sojourn: SojournHistogram
    public var series: LinkSeries
    public var logFile: String?
    public var logFailure: String?
}
