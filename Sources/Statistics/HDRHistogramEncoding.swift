import Foundation
internal import CZlib

/// HdrHistogram's V2 histogram encoding, compressed, as its interval logs carry it (the
/// `Interval_Compressed_Histogram` column), so that HdrHistogram's readers (Java, C, Python
/// `hdrh`) decode what netbench writes.
///
/// Uncompressed form (big-endian): cookie `0x1c849303 | 0x10`, payload length, normalizing index
/// offset (0), significant digits (Int32 each), lowest discernible and highest trackable values
/// (Int64 each), integer-to-double ratio (Double, 1.0); then the counts from index 0 to the last
/// non-zero one, each ZigZag-LEB128 encoded, a run of N > 1 zero counts written as the one value −N.
/// Compressed form: cookie `0x1c849304 | 0x10`, the length of what follows (Int32), then the
/// uncompressed form through zlib's DEFLATE (RFC 1950 framing). Text form: that, in base64.
public enum HDRHistogramEncoding {
    static let encodingCookie: UInt32 = 0x1c84_9303 | 0x10
    static let compressedCookie: UInt32 = 0x1c84_9304 | 0x10
    static let headerSize = 40

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        public var description: String {
            switch self { case .malformed(let why): return "HDR histogram encoding: \(why)" }
        }
    }

    /// The uncompressed V2 encoding.
    public static func encode(_ h: HDRHistogram) -> [UInt8] {
        var payload: [UInt8] = []
        let limit = h.countsLimit
        var i = 0
        while i < limit {
            let c = h.counts[i]
            i += 1
            if c == 0 {
                var zeros: Int64 = 1
                while i < limit && h.counts[i] == 0 { zeros += 1; i += 1 }
                putZigZag(zeros > 1 ? -zeros : 0, into: &payload)
            } else {
                putZigZag(c, into: &payload)
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(headerSize + payload.count)
        put32(encodingCookie, &out)
        put32(UInt32(payload.count), &out)
        put32(0, &out)
        put32(UInt32(h.parameters.significantDigits), &out)
        put64(UInt64(h.parameters.lowestDiscernibleValue), &out)
        put64(UInt64(h.parameters.highestTrackableValue), &out)
        put64((1.0 as Double).bitPattern, &out)
        return out + payload
    }

    /// The compressed encoding (zlib, best compression), base64: a line of an `.hlog` file.
    public static func compressedBase64(_ h: HDRHistogram) throws -> String {
        let plain = encode(h)
        let packed = try deflate(plain)
        var out: [UInt8] = []
        put32(compressedCookie, &out)
        put32(UInt32(packed.count), &out)
        return Data(out + packed).base64EncodedString()
    }

    /// Reads a base64 compressed encoding back into a histogram of the parameters it names.
    public static func decode(compressedBase64 text: String) throws -> HDRHistogram {
        guard let data = Data(base64Encoded: text) else { throw Failure.malformed("not base64") }
        let bytes = [UInt8](data)
        guard bytes.count >= 8, get32(bytes, 0) == compressedCookie else {
            throw Failure.malformed("no compressed-histogram cookie 0x\(String(compressedCookie, radix: 16))")
        }
        guard Int(get32(bytes, 4)) == bytes.count - 8 else { throw Failure.malformed("length field disagrees") }
        return try decode(inflate(Array(bytes[8...])))
    }

    /// Reads an uncompressed V2 encoding.
    public static func decode(_ b: [UInt8]) throws -> HDRHistogram {
        guard b.count >= headerSize, get32(b, 0) == encodingCookie else {
            throw Failure.malformed("no V2 encoding cookie 0x\(String(encodingCookie, radix: 16))")
        }
        let length = Int(get32(b, 4))
        guard headerSize + length <= b.count else { throw Failure.malformed("payload shorter than its length field") }
        let params = HDRHistogram.Parameters(
            lowestDiscernibleValue: Int64(bitPattern: get64(b, 16)),
            highestTrackableValue: Int64(bitPattern: get64(b, 24)), significantDigits: Int(get32(b, 12)))
        var h = try HDRHistogram(params)
        var counts: [Int64] = []
        var at = headerSize
        while at < headerSize + length {
            let v = try getZigZag(b, &at)
            if v < 0 {
                counts.append(contentsOf: repeatElement(0, count: Int(-v)))
            } else {
                counts.append(v)
            }
            guard counts.count <= h.counts.count else { throw Failure.malformed("more counts than buckets") }
        }
        h.setCounts(counts)
        return h
    }

    static func putZigZag(_ v: Int64, into out: inout [UInt8]) {
        var u = UInt64(bitPattern: (v << 1) ^ (v >> 63))
        while u >= 0x80 {
            out.append(UInt8(u & 0x7f) | 0x80)
            u >>= 7
        }
        out.append(UInt8(u))
    }

    static func getZigZag(_ b: [UInt8], _ at: inout Int) throws -> Int64 {
        var u: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard at < b.count, shift < 64 else { throw Failure.malformed("truncated LEB128 count") }
            let byte = b[at]
            at += 1
            u |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
        }
        return Int64(bitPattern: u >> 1) ^ -Int64(bitPattern: u & 1)
    }

    static func put32(_ v: UInt32, _ out: inout [UInt8]) {
        for s in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: v >> UInt32(s))) }
    }
    static func put64(_ v: UInt64, _ out: inout [UInt8]) {
        for s in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: v >> UInt64(s))) }
    }
    static func get32(_ b: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(b[at + $1]) }
    }
    static func get64(_ b: [UInt8], _ at: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(b[at + $1]) }
    }

    /// zlib's one-shot `compress2` (RFC 1950 stream: header, DEFLATE, Adler-32).
    static func deflate(_ input: [UInt8]) throws -> [UInt8] {
        var size = compressBound(uLong(input.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let rc = compress2(&out, &size, input, uLong(input.count), Z_BEST_COMPRESSION)
        guard rc == Z_OK else { throw Failure.malformed("zlib compress2 failed (\(rc))") }
        return Array(out[..<Int(size)])
    }

    /// zlib's `uncompress`, growing the buffer until the stream fits (at most 64 MiB).
    static func inflate(_ input: [UInt8]) throws -> [UInt8] {
        var capacity = Swift.max(1024, input.count * 8)
        while capacity <= 64 << 20 {
            var size = uLong(capacity)
            var out = [UInt8](repeating: 0, count: capacity)
            let rc = uncompress(&out, &size, input, uLong(input.count))
            if rc == Z_OK { return Array(out[..<Int(size)]) }
            guard rc == Z_BUF_ERROR else { throw Failure.malformed("zlib uncompress failed (\(rc))") }
            capacity *= 4
        }
        throw Failure.malformed("inflates to more than 64 MiB")
    }
}
