import BenchCore

/// A Mahimahi packet-delivery trace: one integer per line, the millisecond offset of one
/// 1,500-byte delivery opportunity; repeated lines are several opportunities in the same
/// millisecond; offsets never decrease; the trace wraps, its period being the last offset.
/// A file holding just `1` is a 12 Mbit/s link.
public struct MahimahiTrace: Sendable, Equatable {
    public static let bytesPerOpportunity = 1500

    /// Opportunity offsets in milliseconds, non-decreasing, last one > 0.
    public let offsetsMs: [UInt32]

    public init(offsetsMs: [UInt32]) throws {
        guard let last = offsetsMs.last else { throw TraceError(line: 0, value: "", problem: "the trace is empty") }
        guard last > 0 else {
            throw TraceError(
                line: offsetsMs.count, value: "\(last)",
                problem: "the last offset (the trace's period) must be greater than 0")
        }
        self.offsetsMs = offsetsMs
    }

    /// The wrap-around period in milliseconds (the last offset).
    public var periodMs: Int64 { Int64(offsetsMs[offsetsMs.count - 1]) }

    /// Mean rate over one period in bit/s.
    public var meanBitsPerSecond: Double {
        Double(offsetsMs.count * Self.bytesPerOpportunity * 8) / (Double(periodMs) / 1000)
    }

    /// Parses the text of a trace file. Blank lines and trailing whitespace (including CR) are
    /// ignored; anything else that is not a non-negative integer, or an offset smaller than the one
    /// before it, is an error naming the line and the value.
    public static func parse(text: String) throws -> MahimahiTrace {
        var offsets = [UInt32]()
        offsets.reserveCapacity(text.utf8.count / 5)
        var lineNumber = 0
        for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            var lo = line.startIndex, hi = line.endIndex
            while lo < hi, isSpace(line[lo]) { lo = line.index(after: lo) }
            while hi > lo, isSpace(line[line.index(before: hi)]) { hi = line.index(before: hi) }
            if lo == hi { continue }
            var value: UInt64 = 0
            var i = lo
            while i < hi {
                let c = line[i]
                guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9"), value <= UInt64(UInt32.max) else {
                    throw TraceError(
                        line: lineNumber, value: String(decoding: line[lo..<hi], as: UTF8.self),
                        problem: "expected a millisecond offset (a non-negative integer below 2^32)")
                }
                value = value * 10 + UInt64(c - UInt8(ascii: "0"))
                i = line.index(after: i)
            }
            guard value <= UInt64(UInt32.max) else {
                throw TraceError(
                    line: lineNumber, value: String(decoding: line[lo..<hi], as: UTF8.self),
                    problem: "expected a millisecond offset (a non-negative integer below 2^32)")
            }
            if let previous = offsets.last, UInt32(value) < previous {
                throw TraceError(
                    line: lineNumber, value: "\(value)",
                    problem: "offsets must not decrease (the line before holds \(previous))")
            }
            offsets.append(UInt32(value))
        }
        do { return try MahimahiTrace(offsetsMs: offsets) } catch var e as TraceError {
            if e.line == 0 { e.problem = "the trace holds no offsets" }
            throw e
        }
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D }
}

/// A malformed trace: which line, what it held, what was wrong.
public struct TraceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var value: String
    public var problem: String
    public var description: String {
        line == 0
            ? "trace: \(problem)"
            : "trace line \(line): \"\(value.prefix(80).description.escapingControlCharacters)\": \(problem)"
    }
}
