import BenchCore

/// Watches one link direction packet by packet: what a link log (Mahimahi's `+ - # d` format),
/// the sojourn-time histogram and the report's time series are made of.
///
/// Calls come on the thread that drives the link, in time order: an arrival at `now` comes after
/// every departure due by `now`. They must not block; `Link` calls none when no observer is set.
public protocol LinkObserver: AnyObject {
    /// A packet offered to the link at `at` (before any drop decision).
    func arrived(_ packet: Packet, at: Instant)
    /// A packet that left the bottleneck at `packet.departure`; its sojourn in the queue
    /// (serialization included) is `packet.departure - packet.arrival`.
    func departed(_ packet: Packet)
    /// A packet the link dropped at `at`, and why (an outage flush drops a queued packet).
    func dropped(_ packet: Packet, cause: LinkVerdict, at: Instant)
    /// A packet the queue discipline marked Congestion Experienced at `at` (it is still forwarded:
    /// `departed` follows, with `ceMarked` set).
    func marked(_ packet: Packet, at: Instant)
    /// A delivery opportunity of `bytes` at `at` that no packet used (trace-driven links).
    func wasted(bytes: Int, at: Instant)
}

extension LinkObserver {
    public func marked(_ packet: Packet, at: Instant) {}
    public func wasted(bytes: Int, at: Instant) {}
}
