import BenchCore

/// The physical lower bound of a page load: what an ideal client and server would achieve on a
/// link with this RTT and bottleneck rate, given the page's dependency graph.
///
/// Method: every origin's first request pays the transport's handshake round trips (TCP + TLS 1.3:
/// 3 RTT to the first response byte, resumed too, as no TLS early data is sent; TCP + TLS 1.2:
/// 4 RTT, resumed 3; QUIC: 2 RTT, 0-RTT: 1; a connection already open: 1 RTT per request);
/// a resource can be requested no earlier than its parent revealed it (the reveal offset's share of
/// the parent's serialization, or the parent's end) and its response takes think time plus its
/// serialization at the bottleneck rate (no competition: the bound ignores sharing, so it is a
/// lower bound, never an estimate). The page's ideal load time is the latest finish over the
/// critical paths of the tree.
public struct IdealPageLoad: Sendable {
    public var rttMs: Double
    /// Bottleneck downlink rate; nil: serialization is free (loopback).
    public var downlinkBitsPerSecond: Double?
    public var transport: TransportKind
    public var zeroRTT: Bool
    /// h1/h2 over TLS 1.2: its full handshake takes two round trips, one more than TLS 1.3's.
    public var tls12: Bool
    /// The TLS session was resumed (TLS 1.2's abbreviated handshake takes one round trip).
    public var resumed: Bool
    /// Whether the server waits each resource's `thinkTimeMs` before answering: netbench serve does;
    /// a static server (nginx, caddy, a CDN) answers at once, and a bound that counted think times
    /// would exceed what it measures.
    public var thinkTimes = true
    /// How fast the sender of a bulk download may open its window, when the sender is netbench's
    /// own server (its congestion control known); nil: another server, and the bound is the body's
    /// serialization alone.
    public var slowStart: SlowStart?

    /// The most a sender's window can deliver per round trip while it opens (RFC 5681 and RFC 9002
    /// slow start; HyStart++ and delayed ACKs only open it slower).
    public struct SlowStart: Sendable, Equatable {
        /// Bytes in flight when the body starts: at most Linux's initial window of 10 segments (or
        /// RFC 9002's 14,720 bytes for QUIC) plus 6 packets of handshake the peer acknowledged in
        /// slow start, at 1,500 bytes each, headers counted as body (so it stays a lower bound).
        public static let initialWindowBytes = 16.0 * 1_500
        public var initialWindowBytes: Double
        /// Largest growth of the window in one round trip: 2 for cubic and reno, 3 for BBR (its
        /// startup gain is 2.89) and for a congestion control not known.
        public var growthPerRound: Double

        public init(initialWindowBytes: Double = SlowStart.initialWindowBytes, growthPerRound: Double) {
            self.initialWindowBytes = initialWindowBytes
            self.growthPerRound = growthPerRound
        }

        /// The sender's slow start under `congestionControl` (nil: the system's, not known).
        public static func sender(congestionControl: String?) -> SlowStart {
            SlowStart(growthPerRound: congestionControl == "cubic" || congestionControl == "reno" ? 2 : 3)
        }
    }

    public init(
        rttMs: Double, downlinkBitsPerSecond: Double?, transport: TransportKind, zeroRTT: Bool = false,
        tls12: Bool = false, resumed: Bool = false
    ) {
        self.rttMs = rttMs; self.downlinkBitsPerSecond = downlinkBitsPerSecond
        self.transport = transport; self.zeroRTT = zeroRTT; self.tls12 = tls12; self.resumed = resumed
    }

    /// Round trips from connect to the first byte of the first response on a new connection.
    public var handshakeRoundTrips: Int {
        transport.handshakeRoundTrips(tls12: tls12 && !resumed, zeroRTT: zeroRTT)
    }

    /// Why a bulk transfer has no bound worth comparing with, or nil when it has one: without a
    /// bottleneck rate (loopback) the bound is the handshake alone, which says nothing about a
    /// transfer's duration, so no ratio to it is shown.
    public func missingBound(_ scenario: Scenario) -> String? {
        guard scenario.bulk != nil, downlinkBitsPerSecond == nil else { return nil }
        return "no rate bound: loopback has no bottleneck rate, so a bulk transfer's only bound would be its handshake"
    }

    func serializationMs(_ bytes: Int64) -> Double {
        guard let rate = downlinkBitsPerSecond, rate > 0 else { return 0 }
        return Double(bytes) * 8 / rate * 1000
    }

    /// A bulk body's time from its first byte to its last at the receiver: its serialization, or,
    /// with `slowStart`, the round trips the sender's window takes to fill the link (each round
    /// sends at most the window, which grows by `growthPerRound`) and then the rest at the rate.
    func bulkTransferMs(_ bytes: Int64) -> Double {
        guard let rate = downlinkBitsPerSecond, rate > 0 else { return 0 }
        guard let s = slowStart, rttMs > 0, s.initialWindowBytes > 0, s.growthPerRound > 1 else {
            return serializationMs(bytes)
        }
        let bytesPerMs = rate / 8 / 1000
        var left = Double(max(0, bytes)), window = s.initialWindowBytes, rounds = 0.0
        while left > 0 && window / bytesPerMs < rttMs {
            let n = min(window, left)
            left -= n
            rounds += 1
            window *= s.growthPerRound
            if left == 0 { return (rounds - 1) * rttMs + n / bytesPerMs }
        }
        return rounds * rttMs + left / bytesPerMs
    }

    /// Lower bound of TTFB of the document: handshake round trips plus its think time.
    public func ttfbMs(_ scenario: Scenario) -> Double {
        let hs = Double(handshakeRoundTrips) * rttMs
        return hs + think(scenario.root)
    }

    /// Lower bound of the page-load time (ms from navigation start to the last byte).
    public func pltMs(_ scenario: Scenario) -> Double {
        if let bulk = scenario.bulk {
            let transfer = bulk.direction == .download ? bulkTransferMs(bulk.bytes) : serializationMs(bulk.bytes)
            return Double(handshakeRoundTrips) * rttMs + transfer
        }
        let byID = Dictionary(scenario.resources.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var finish: [String: Double] = [:]  // last byte
        var firstByte: [String: Double] = [:]
        var originOpenedAt: [String: Double] = [:]  // earliest time a connection to the origin can exist
        // Parents before children: a topological order by depth.
        let order = scenario.resources.sorted { depth(of: $0, byID) < depth(of: $1, byID) }
        for r in order {
            var discovered = 0.0
            if let p = r.parent, byID[p] != nil, let pFirst = firstByte[p], let pEnd = finish[p] {
                if let after = r.revealAfterBytes {
                    discovered = pFirst + serializationMs(after)
                } else {
                    discovered = pEnd
                }
            }
            // A connection to an origin costs the handshake once; later requests cost one round trip.
            let setup: Double
            if let opened = originOpenedAt[r.origin], opened <= discovered {
                setup = rttMs
            } else {
                let hs = Double(handshakeRoundTrips) * rttMs
                setup = hs
                // The connection (handshake minus the request round trip) is usable from here on.
                originOpenedAt[r.origin] = min(originOpenedAt[r.origin] ?? .infinity, discovered + hs - rttMs)
            }
            let fb = discovered + setup + think(r)
            firstByte[r.id] = fb
            finish[r.id] = fb + serializationMs(r.bytes)
        }
        // Serialization of the whole page at the bottleneck is a bound too.
        let total = serializationMs(scenario.totalBytes) + ttfbMs(scenario)
        return max(finish.values.max() ?? 0, total)
    }

    private func think(_ r: Scenario.Resource?) -> Double { thinkTimes ? (r?.thinkTimeMs ?? 0) : 0 }

    /// Which model the bound follows, as each run records it (`RunMetrics.idealModel`).
    public var modelDescription: String {
        thinkTimes
            ? "critical path with the scenario's server think times"
            : "critical path without server think times (a server that is not netbench serve answers at once)"
    }

    /// The model a run of `scenario` follows: a bulk download says whether the sender's slow start
    /// counts.
    public func modelDescription(for scenario: Scenario) -> String {
        guard let bulk = scenario.bulk, bulk.direction == .download, downlinkBitsPerSecond != nil else {
            return modelDescription
        }
        guard let s = slowStart else {
            return "handshake and the body's serialization (the sender's slow start not counted: its "
                + "initial window is not known)"
        }
        return "handshake, the sender's slow start (from \(Int(s.initialWindowBytes / 1000)) KB in flight, at "
            + "most ×\(Int(s.growthPerRound)) per round trip) and the rest of the body's serialization"
    }

    private func depth(of r: Scenario.Resource, _ byID: [String: Scenario.Resource]) -> Int {
        var d = 0
        var cur = r.parent
        while let c = cur, d <= byID.count { d += 1; cur = byID[c]?.parent }
        return d
    }
}
