/// One link direction of one path during a run, as the emulator saw it: each packet's queueing
/// delay in the bottleneck (its sojourn, `departure − arrival`: the wait behind other packets plus
/// its own serialization), the packet counts the pcap files must match, and the time series the
/// report plots. Absent from runs on loopback and from files written before it.
public struct LinkQueueRecord: Codable, Sendable, Hashable {
    public enum Direction: String, Codable, Sendable, Hashable, CaseIterable {
        /// Client → server.
        case up
        /// Server → client.
        case down
    }

    public var path: String
    public var direction: Direction
    /// Packets offered to the link, released by it, and dropped by it (loss, queue, outage); the
    /// pcap files' `-in` and `-out` records are `received` and `forwarded`.
    public var received: Int64
    public var forwarded: Int64
    public var dropped: Int64
    /// `dropped` by cause (the loss model, the queue discipline, an outage), and the packets an AQM
    /// marked Congestion Experienced instead of dropping; nil in files written before them.
    public var droppedByLoss: Int64?
    public var droppedByQueue: Int64?
    public var droppedByOutage: Int64?
    public var markedCE: Int64?
    /// Queueing delay of the packets that left the bottleneck (ms; nearest rank over a log-bucket
    /// histogram with 16 buckets per power of two: a percentile errs high by at most 1/16).
    public var departed: Int64
    public var sojournP50Ms: Double
    public var sojournP90Ms: Double
    public var sojournP99Ms: Double
    public var sojournMaxMs: Double
    /// `run --pcap`: this direction's files (packets into and out of the link model).
    public var pcapIn: String?
    public var pcapOut: String?
    /// `run --link-log`: this direction's Mahimahi-format link log.
    public var linkLog: String?
    public var series: LinkSeriesRecord?

    public init(
        path: String, direction: Direction, received: Int64, forwarded: Int64, dropped: Int64, departed: Int64
    ) {
        self.path = path; self.direction = direction; self.received = received; self.forwarded = forwarded
        self.dropped = dropped; self.departed = departed
        sojournP50Ms = 0; sojournP90Ms = 0; sojournP99Ms = 0; sojournMaxMs = 0
    }
}

/// A link direction over time, column by column: entry i covers [i·binMs, (i+1)·binMs) from the
/// emulator's start. Bins begin at 10 ms and double (neighbours merged) to keep a run within
/// 300 bins. In results files each column is one string of numbers separated by spaces
/// (`"departedBytes": "1500 0 3000"`): a pretty-printed array would take a line per number, five
/// times the bytes of the run's other records.
public struct LinkSeriesRecord: Codable, Sendable, Hashable {
    public var binMs: Double
    /// Bytes offered to the link (arrivals, dropped ones included) and bytes that left its bottleneck.
    public var offeredBytes: [Int64]
    public var departedBytes: [Int64]
    /// Bytes the link could carry: a trace's opportunities × 1,500 B, or rate × bin; absent when
    /// the link is unlimited.
    public var capacityBytes: [Int64]?
    /// Packets dropped (any cause).
    public var drops: [Int64]
    /// Queueing delay of the packets that left in the bin: median (±19%, a coarser histogram per
    /// bin) and maximum, ms; 0 when none left.
    public var delayP50Ms: [Double]
    public var delayMaxMs: [Double]

    public init(
        binMs: Double, offeredBytes: [Int64], departedBytes: [Int64], capacityBytes: [Int64]?, drops: [Int64],
        delayP50Ms: [Double], delayMaxMs: [Double]
    ) {
        self.binMs = binMs; self.offeredBytes = offeredBytes; self.departedBytes = departedBytes
        self.capacityBytes = capacityBytes; self.drops = drops; self.delayP50Ms = delayP50Ms
        self.delayMaxMs = delayMaxMs
    }

    enum CodingKeys: String, CodingKey {
        case binMs, offeredBytes, departedBytes, capacityBytes, drops, delayP50Ms, delayMaxMs
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        binMs = try c.decode(Double.self, forKey: .binMs)
        offeredBytes = try Self.column(c, .offeredBytes)
        departedBytes = try Self.column(c, .departedBytes)
        capacityBytes = try c.contains(.capacityBytes) ? Self.column(c, .capacityBytes) : nil
        drops = try Self.column(c, .drops)
        delayP50Ms = try Self.column(c, .delayP50Ms)
        delayMaxMs = try Self.column(c, .delayMaxMs)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(binMs, forKey: .binMs)
        func text<T>(_ values: [T]) -> String { values.map { "\($0)" }.joined(separator: " ") }
        try c.encode(text(offeredBytes), forKey: .offeredBytes)
        try c.encode(text(departedBytes), forKey: .departedBytes)
        try c.encodeIfPresent(capacityBytes.map(text), forKey: .capacityBytes)
        try c.encode(text(drops), forKey: .drops)
        try c.encode(text(delayP50Ms), forKey: .delayP50Ms)
        try c.encode(text(delayMaxMs), forKey: .delayMaxMs)
    }

    /// A column written as numbers separated by spaces; an error names the key and the value.
    static func column<T: LosslessStringConvertible>(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys)
        throws -> [T]
    {
        let text = try c.decode(String.self, forKey: key)
        return try text.split(separator: " ").map { word in
            guard let v = T(String(word)) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: c, debugDescription: "'\(word)' is not a number (numbers separated by spaces)")
            }
            return v
        }
    }

    /// Throughput of bin `i` in Mbit/s from `bytes` (departed, offered or capacity).
    public func mbps(_ bytes: Int64) -> Double { binMs > 0 ? Double(bytes) * 8 / (binMs * 1000) : 0 }
}
