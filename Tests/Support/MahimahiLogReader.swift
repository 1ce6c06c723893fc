import Foundation

/// Reads a link log as Mahimahi's mm-throughput-graph and mm-delay-graph do (written here from
/// the format those scripts document, not copied): `# base timestamp: N` sets the origin, other
/// `#`-prefixed header lines are skipped until the first event, then every line is
/// `TIME KIND FIELDS…` with KIND one of + - # d, refused as mm-throughput-graph refuses them
/// (a time before the base, a negative delay). Throws on any other line. (mm-throughput-graph
/// itself stops at `d` lines, which mm-link writes too: mahimahi issue #136.)
public struct MahimahiLogReader {
    public struct Departure: Sendable { public var time: Int64; public var bytes: Int64; public var delay: Int64 }
    public var base: Int64 = -1
    /// Arrival sizes, in order.
    public var arrivals: [Int64] = []
    public var departures: [Departure] = []
    public var opportunityTimes: [Int64] = []
    public var drops = 0
    public var droppedBytes: Int64 = 0
    /// Every event line's time, in file order.
    public var times: [Int64] = []
    public var opportunities: Int { opportunityTimes.count }

    public struct Malformed: Error, CustomStringConvertible { public var description: String }

    public init(path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for (n, line) in text.split(separator: "\n").enumerated() {
            if line.hasPrefix("# base timestamp: ") {
                base = try Self.int(line.dropFirst("# base timestamp: ".count), path, n)
                continue
            }
            if line.hasPrefix("#") { continue }
            let f = line.split(separator: " ")
            guard f.count >= 3 else { throw Malformed(description: "\(path):\(n + 1): \(line)") }
            let t = try Self.int(f[0], path, n), a = try Self.int(f[2], path, n)
            // What mm-throughput-graph refuses: an event before the base timestamp is declared,
            // negative fields, a departure that arrived before the base.
            guard base >= 0, t >= base, a >= 0 else {
                throw Malformed(description: "\(path):\(n + 1): before the base timestamp or negative: \(line)")
            }
            times.append(t)
            switch (f[1], f.count) {
            case ("+", 3): arrivals.append(a)
            case ("-", 4):
                let delay = try Self.int(f[3], path, n)
                guard delay >= 0, t - delay >= base else {
                    throw Malformed(description: "\(path):\(n + 1): invalid delay: \(line)")
                }
                departures.append(Departure(time: t, bytes: a, delay: delay))
            case ("#", 3): opportunityTimes.append(t)
            case ("d", 4):
                drops += Int(a)
                droppedBytes += try Self.int(f[3], path, n)
            default: throw Malformed(description: "\(path):\(n + 1): unknown event: \(line)")
            }
        }
        guard base >= 0 else { throw Malformed(description: "\(path): no '# base timestamp:' line") }
    }

    static func int(_ s: Substring, _ path: String, _ n: Int) throws -> Int64 {
        guard let v = Int64(s) else { throw Malformed(description: "\(path):\(n + 1): not an integer: \(s)") }
        return v
    }
}
