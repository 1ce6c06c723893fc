import BenchCore
import LinkModel

/// One link direction over time, in equal bins from the emulator's start: bytes offered
/// (arrivals, drops included), bytes that left the bottleneck, packets dropped, and the queueing
/// delay of the packets that left in each bin.
///
/// Bins start `initialBinWidth` wide; when a run outgrows `maxBins`, neighbouring bins merge in
/// pairs and the width doubles, so a run of any length keeps at most `maxBins` bins and storage is
/// allocated once. Each bin's delays go into a coarse log histogram (4 buckets per power of two,
/// up to ~16 s) for its median.
public struct LinkTimeSeries: Sendable {
    public static let initialBinWidth: Nanoseconds = 10_000_000
    public static let maxBins = 300
    static let delayBuckets = LogBuckets(subBits: 2)
    /// Bucket count per bin: delays from 2^24 µs (~16.8 s) up share the last bucket.
    static let delayBucketCount = (1 << 2) * (24 - 2 + 1)

    public private(set) var binWidth: Nanoseconds = initialBinWidth
    /// Bins in use (the last event's bin + 1, or the run's length once `finish` was called).
    public private(set) var binCount = 0
    private var offered: [Int64]
    private var departed: [Int64]
    private var drops: [Int64]
    private var delayMax: [Nanoseconds]
    private var delayCounts: [UInt32]

    public init() {
        offered = [Int64](repeating: 0, count: Self.maxBins)
        departed = offered
        drops = offered
        delayMax = offered
        delayCounts = [UInt32](repeating: 0, count: Self.maxBins * Self.delayBucketCount)
    }

    /// A packet of `bytes` offered at `offset` from the start.
    @inline(__always)
    public mutating func arrived(bytes: Int32, at offset: Nanoseconds) {
        offered[bin(offset)] += Int64(bytes)
    }

    /// A packet of `bytes` that left the bottleneck at `offset` after `sojourn` in the queue.
    @inline(__always)
    public mutating func departed(bytes: Int32, at offset: Nanoseconds, sojourn: Nanoseconds) {
        let b = bin(offset)
        departed[b] += Int64(bytes)
        let v = max(0, sojourn)
        if v > delayMax[b] { delayMax[b] = v }
        let k = min(Self.delayBuckets.index(ofMicroseconds: v / 1_000), Self.delayBucketCount - 1)
        delayCounts[b * Self.delayBucketCount + k] &+= 1
    }

    @inline(__always)
    public mutating func dropped(at offset: Nanoseconds) {
        drops[bin(offset)] += 1
    }

    /// Extends the series to a run of `duration` (trailing idle bins count).
    public mutating func finish(duration: Nanoseconds) {
        if duration > 0 { _ = bin(duration - 1) }
    }

    @inline(__always)
    private mutating func bin(_ offset: Nanoseconds) -> Int {
        var b = Int(max(0, offset) / binWidth)
        while b >= Self.maxBins {
            halve()
            b = Int(max(0, offset) / binWidth)
        }
        if b >= binCount { binCount = b + 1 }
        return b
    }

    /// Merges bins 2i and 2i+1 into bin i; the width doubles.
    private mutating func halve() {
        let n = Self.delayBucketCount
        for i in 0..<(Self.maxBins / 2) {
            let a = 2 * i, b = 2 * i + 1
            offered[i] = offered[a] + offered[b]
            departed[i] = departed[a] + departed[b]
            drops[i] = drops[a] + drops[b]
            delayMax[i] = max(delayMax[a], delayMax[b])
            for k in 0..<n { delayCounts[i * n + k] = delayCounts[a * n + k] &+ delayCounts[b * n + k] }
        }
        for i in (Self.maxBins / 2)..<Self.maxBins {
            offered[i] = 0; departed[i] = 0; drops[i] = 0; delayMax[i] = 0
            for k in 0..<n { delayCounts[i * n + k] = 0 }
        }
        binWidth *= 2
        binCount = (binCount + 1) / 2
    }

    /// The series as plain figures (bins in use only).
    public var bins: LinkSeries {
        var s = LinkSeries(binWidth: binWidth)
        s.offeredBytes = Array(offered[0..<binCount])
        s.departedBytes = Array(departed[0..<binCount])
        s.drops = Array(drops[0..<binCount])
        s.delayMax = Array(delayMax[0..<binCount])
        s.delayP50 = (0..<binCount).map { median(ofBin: $0) }
        return s
    }

    /// Nearest-rank median of bin `b`'s delays: its bucket's upper edge, capped at the bin's maximum.
    private func median(ofBin b: Int) -> Nanoseconds {
        let n = Self.delayBucketCount
        var total: Int64 = 0
        for k in 0..<n { total += Int64(delayCounts[b * n + k]) }
        guard total > 0 else { return 0 }
        let rank = (total + 1) / 2
        var seen: Int64 = 0
        for k in 0..<n {
            seen += Int64(delayCounts[b * n + k])
            if seen >= rank { return min(delayMax[b], Self.delayBuckets.upperEdge(ofBucket: k) * 1_000) }
        }
        return delayMax[b]
    }
}

/// A finished `LinkTimeSeries`: one entry per bin of `binWidth`, the first starting at the
/// emulator's start. `delayP50`/`delayMax` are 0 in bins nothing left the bottleneck.
public struct LinkSeries: Sendable, Equatable {
    public var binWidth: Nanoseconds
    public var offeredBytes: [Int64] = []
    public var departedBytes: [Int64] = []
    public var drops: [Int64] = []
    public var delayP50: [Nanoseconds] = []
    public var delayMax: [Nanoseconds] = []
    /// Bytes the link could carry in each bin: a trace's opportunities × 1,500 B, or rate × width;
    /// nil for an unlimited link.
    public var capacityBytes: [Int64]?
    public init(binWidth: Nanoseconds) { self.binWidth = binWidth }

    /// The capacity of `rate` per bin of `binWidth` over `bins` bins from the link's start. An
    /// outage is not subtracted (the plot shows it as departures falling to zero).
    public static func capacity(of rate: LinkRate, binWidth: Nanoseconds, bins: Int) -> [Int64]? {
        switch rate {
        case .unlimited:
            return nil
        case .constant(let bps):
            return [Int64](repeating: Int64((bps / 8 * Double(binWidth) / 1e9).rounded()), count: bins)
        case .trace(let trace):
            var out = [Int64](repeating: 0, count: bins)
            let end = Int64(bins) * binWidth
            let n = trace.offsetsMs.count
            var cycle: Int64 = 0
            while cycle * trace.periodMs * 1_000_000 < end {
                for ms in trace.offsetsMs {
                    let t = (cycle * trace.periodMs + Int64(ms)) * 1_000_000
                    guard t < end else { break }
                    out[Int(t / binWidth)] += Int64(MahimahiTrace.bytesPerOpportunity)
                }
                cycle += 1
                if n == 0 { break }
            }
            return out
        }
    }
}
