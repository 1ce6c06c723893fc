import Foundation
import BenchCore
import LinkModel
import SystemIO

/// One link direction's log in the format of Mahimahi's `mm-link --uplink-log/--downlink-log`
/// (src/frontend/link_queue.cc), so that `mm-throughput-graph`, `mm-delay-graph` and people's own
/// scripts read it. Header lines start with `#`; `# base timestamp: B` gives the origin. Then one
/// line per event, times in integer milliseconds on the same clock as B (CLOCK_MONOTONIC here):
///
///     T + BYTES          a packet arrived (offered to the link, before any drop decision)
///     T - BYTES DELAY    a packet left the bottleneck; DELAY = its ms in the queue, serialization
///                        included (T − its arrival's T, as Mahimahi computes it)
///     T # 1500           a delivery opportunity of 1,500 bytes
///     T d 1 BYTES        a packet dropped (Mahimahi: `d PACKETS BYTES`)
///
/// Choices where netbench's link differs from Mahimahi's: `#` lines are every opportunity, used or
/// not, as Mahimahi writes them. A trace link's come from its trace; a constant-rate link (which
/// Mahimahi does not have) gets one every 1,500 bytes' serialization time, so that the capacity
/// line of mm-throughput-graph shows the rate; an unlimited link has none. `d` lines cover every
/// drop (loss, queue, outage), where Mahimahi's queue logs only its own. mm-throughput-graph stops
/// at `d` lines, mm-link's own included (mahimahi issue #136); mm-delay-graph reads only `-` lines.
///
/// Lines collect in memory and go to the file in writes of about 1 MB (`flushSize`). The first
/// failed write (a full disk) stops this log (`failure` says why); the run goes on.
final class MahimahiLinkLog {
    static let flushSize = 1 << 20
    let path: String
    private let file: AppendOnlyFile
    private var buffer: [UInt8] = []
    private var opportunities: DeliveryOpportunities?
    private(set) var failure: String?
    /// Lines written per kind (for tests and summaries).
    private(set) var arrivals = 0, departures = 0, drops = 0, opportunityLines = 0

    /// Creates `path` afresh and writes the header. `name` says which link direction this is.
    init(path: String, name: String, rate: LinkRate, start: Instant) throws {
        self.path = path
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        file = try AppendOnlyFile(path: path)
        buffer.reserveCapacity(Self.flushSize + 4096)
        let base = Int64(start.nanoseconds / 1_000_000)
        opportunities = DeliveryOpportunities(rate: rate, start: start)
        let header =
            "# netbench link log (\(name)) [\(Self.describe(rate))] > \(path)\n"
            + "# init timestamp: \(base)\n# base timestamp: \(base)\n"
        buffer.append(contentsOf: Array(header.utf8))
    }

    static func describe(_ rate: LinkRate) -> String {
        switch rate {
        case .unlimited: return "unlimited"
        case .constant(let bps): return "constant \(Int64(bps)) bit/s"
        case .trace(let t): return "trace of \(t.offsetsMs.count) opportunities over \(t.periodMs) ms"
        }
    }

    func arrived(bytes: Int32, at t: Instant) {
        guard failure == nil else { return }
        line(ms(t), UInt8(ascii: "+"), Int64(bytes))
        arrivals += 1
    }

    func departed(bytes: Int32, arrival: Instant, departure: Instant) {
        guard failure == nil else { return }
        let d = ms(departure)
        line(d, UInt8(ascii: "-"), Int64(bytes), d - ms(arrival))
        departures += 1
    }

    func dropped(bytes: Int32, at t: Instant) {
        guard failure == nil else { return }
        line(ms(t), UInt8(ascii: "d"), 1, Int64(bytes))
        drops += 1
    }

    /// Writes the opportunities up to `end` and whatever is buffered (at stop, after the loop ended).
    func finish(at end: Instant) {
        guard failure == nil else { return }
        writeOpportunities(through: Int64(end.nanoseconds / 1_000_000))
        flush()
    }

    @inline(__always)
    private func ms(_ t: Instant) -> Int64 { Int64(t.nanoseconds / 1_000_000) }

    @inline(__always)
    private func line(_ time: Int64, _ kind: UInt8, _ a: Int64, _ b: Int64? = nil) {
        writeOpportunities(through: time)
        append(time)
        buffer.append(0x20)
        buffer.append(kind)
        buffer.append(0x20)
        append(a)
        if let b {
            buffer.append(0x20)
            append(b)
        }
        buffer.append(0x0A)
        if buffer.count >= Self.flushSize { flush() }
    }

    /// `#` lines for every opportunity at or before millisecond `time` not yet written.
    @inline(__always)
    private func writeOpportunities(through time: Int64) {
        guard opportunities != nil else { return }
        while let next = opportunities?.nextMilliseconds, next <= time {
            append(next)
            buffer.append(contentsOf: [0x20, UInt8(ascii: "#"), 0x20])
            append(Int64(MahimahiTrace.bytesPerOpportunity))
            buffer.append(0x0A)
            opportunityLines += 1
            opportunities?.advance()
            if buffer.count >= Self.flushSize { flush() }
        }
    }

    /// Appends the decimal digits of `v` (no allocation).
    @inline(__always)
    private func append(_ v: Int64) {
        if v < 0 { buffer.append(UInt8(ascii: "-")) }
        var m = v.magnitude
        var digits: (UInt64, Int) = (0, 0)  // reversed digits packed 4 bits each, count
        if m == 0 { buffer.append(UInt8(ascii: "0")); return }
        while m > 0 && digits.1 < 16 {
            digits.0 = digits.0 << 4 | (m % 10)
            digits.1 += 1
            m /= 10
        }
        if m > 0 { buffer.append(contentsOf: Array(String(m).utf8)) }
        // The packed digits are most significant last-packed first: emit from the low nibble.
        for _ in 0..<digits.1 {
            buffer.append(UInt8(ascii: "0") + UInt8(digits.0 & 0xF))
            digits.0 >>= 4
        }
    }

    private func flush() {
        guard !buffer.isEmpty, failure == nil else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        do { try file.append(buffer, sync: false) } catch {
            failure = "link log stopped: writing \(path) failed: \(error)"
        }
    }
}

/// The delivery opportunities of a link in time order, as Mahimahi's `#` lines count them.
struct DeliveryOpportunities {
    private let start: Instant
    private let trace: MahimahiTrace?
    /// Constant rate: ns between opportunities (1,500 bytes' serialization time).
    private let interval: Double
    private var k: Int64 = 0
    private(set) var nextMilliseconds: Int64 = 0

    /// nil for an unlimited link (no opportunities to speak of).
    init?(rate: LinkRate, start: Instant) {
        self.start = start
        switch rate {
        case .unlimited: return nil
        case .constant(let bps):
            guard bps > 0 else { return nil }
            trace = nil
            interval = Double(MahimahiTrace.bytesPerOpportunity * 8) / bps * 1e9
        case .trace(let t):
            trace = t
            interval = 0
        }
        nextMilliseconds = time(of: 0)
    }

    mutating func advance() {
        k += 1
        nextMilliseconds = time(of: k)
    }

    private func time(of k: Int64) -> Int64 {
        let startNs = Int64(start.nanoseconds)
        if let trace {
            let n = Int64(trace.offsetsMs.count)
            let offset = Int64(trace.offsetsMs[Int(k % n)]) + (k / n) * trace.periodMs
            return startNs / 1_000_000 + offset
        }
        let elapsed = Int64((Double(k) * interval).rounded(.down))
        return (startNs + elapsed) / 1_000_000
    }
}
