import XCTest
@testable import Replay

/// The replay's images are real GIFs: parsed back here by a decoder of our own (header, logical
/// screen, colour table, extensions, image descriptor, LZW data), whose pixels must be the picture
/// `PageImage` meant, at the size its rule gives, in exactly the scenario's bytes.
final class PageImageTests: XCTestCase {
    func testGIFsDecodeToThePictureAtExactlyTheirBytes() throws {
        for n: Int64 in [60, 100, 101, 102, 103, 104, 105, 300, 555, 1_000, 4_007, 20_000, 100_000, 161_203, 502_834] {
            let gif = PageImage.gif(bytes: n)
            XCTAssertEqual(Int64(gif.count), n, "n = \(n)")
            let d = try GIFDecoder.decode(gif)
            let p = PageImage.picture(bytes: n)
            XCTAssertEqual(d.width, p.width, "n = \(n)")
            XCTAssertEqual(d.height, p.height, "n = \(n)")
            XCTAssertEqual(d.frame, [0, 0, p.width, p.height], "one frame covering the logical screen")
            XCTAssertEqual(d.pixels.count, p.width * p.height)
            for (i, c) in d.pixels.enumerated()
            where c != PageImage.colour(x: i % p.width, y: i / p.width, width: p.width, height: p.height) {
                XCTFail("n = \(n): pixel \(i) decodes to \(c)")
                break
            }
            if p.width >= 3 && p.height >= 4 {
                XCTAssertEqual(Set(d.pixels).count, 4, "n = \(n): four colours, not one flat one")
            }
            if n >= 300 { XCTAssertGreaterThan(d.commentBytes, 0, "padded by a comment") }
        }
    }

    func testPictureGrowsWithItsBytesUpToTheViewportWidth() {
        var last = 0
        for n: Int64 in [200, 1_000, 4_000, 10_000, 40_000, 100_000] {
            let p = PageImage.picture(bytes: n)
            XCTAssertGreaterThan(p.width * p.height, last, "n = \(n)")
            last = p.width * p.height
            XCTAssertEqual(
                Double(p.width * p.height), Double(n) * PageImage.pixelsPerByte,
                accuracy: Double(n) * PageImage.pixelsPerByte * 0.05)
            XCTAssertEqual(
                p.width, PageImage.nominalSize(bytes: n).width, "n = \(n): the rule's size fits, nothing shrunk")
        }
        for n: Int64 in [108_400, 200_000, 5_000_000] {
            let p = PageImage.picture(bytes: n)
            XCTAssertEqual(p.width, PageImage.maxWidth)
            XCTAssertEqual(p.height, PageImage.maxHeight)
        }
        XCTAssertEqual(PageImage.nominalSize(bytes: 1_000).width, 73)
    }

    func testEveryNominalSizeFitsItsBytes() {
        // The picture is never shrunk from 100 bytes on (below, the GIF's own 40 bytes weigh too much).
        var n: Int64 = 100
        while n < 130_000 {
            XCTAssertLessThanOrEqual(
                Int64(
                    PageImage.encode(
                        width: PageImage.nominalSize(bytes: n).width,
                        height: PageImage.nominalSize(bytes: n).height
                    ).count), n, "n = \(n)")
            n += n < 2_000 ? 7 : n / 9
        }
    }

    func testClearCodesKeepALargeLZWStreamDecodable() throws {
        // A noisy picture fills the 4096-entry table many times: every clear must land where the decoder expects it.
        var seed: UInt32 = 7
        let pixels = (0..<200_000).map { _ -> UInt8 in
            seed = seed &* 1_103_515_245 &+ 12_345; return UInt8((seed >> 16) & 3)
        }
        let data = LZW.encode(pixelCount: pixels.count, minCodeSize: 2) { pixels[$0] }
        let decoded = try GIFDecoder.lzw(data, minCodeSize: 2)
        XCTAssertEqual(decoded.pixels, pixels)
        XCTAssertGreaterThan(decoded.clears, 3)
    }

    func testTinyBodiesAreTheSmallestGIFCut() {
        for n: Int64 in [0, 1, 10, 30] {
            let gif = PageImage.gif(bytes: n)
            XCTAssertEqual(Int64(gif.count), n)
            XCTAssertEqual(gif, Array(PageImage.encode(width: 1, height: 1).prefix(Int(n))))
        }
    }
}

/// A small GIF decoder, independent of the encoder: enough of GIF89a to read one frame back.
enum GIFDecoder {
    struct Failure: Error, CustomStringConvertible { var description: String }
    struct Decoded {
        var width = 0, height = 0
        var frame: [Int] = []
        var pixels: [UInt8] = []
        var commentBytes = 0
    }

    static func decode(_ b: [UInt8]) throws -> Decoded {
        guard b.count >= 13, Array(b.prefix(6)) == Array("GIF89a".utf8) else {
            throw Failure(description: "no GIF89a header")
        }
        func u16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        var d = Decoded(width: u16(6), height: u16(8))
        var i = 13
        if b[10] & 0x80 != 0 { i += 3 << (Int(b[10] & 7) + 1) }
        while i < b.count {
            switch b[i] {
            case 0x21:
                let label = b[i + 1]
                i += 2
                while b[i] != 0 {
                    if label == 0xFE { d.commentBytes += Int(b[i]) }
                    i += Int(b[i]) + 1
                }
                i += 1
            case 0x2C:
                d.frame = [u16(i + 1), u16(i + 3), u16(i + 5), u16(i + 7)]
                guard b[i + 9] & 0x80 == 0 else { throw Failure(description: "unexpected local colour table") }
                let minCodeSize = Int(b[i + 10])
                i += 11
                var data: [UInt8] = []
                while b[i] != 0 { data += b[(i + 1)...(i + Int(b[i]))]; i += Int(b[i]) + 1 }
                i += 1
                d.pixels = try lzw(data, minCodeSize: minCodeSize).pixels
            case 0x3B:
                return d
            default:
                throw Failure(description: "unexpected block 0x\(String(b[i], radix: 16)) at \(i)")
            }
        }
        throw Failure(description: "no trailer")
    }

    static func lzw(_ data: [UInt8], minCodeSize: Int) throws -> (pixels: [UInt8], clears: Int) {
        let clear = 1 << minCodeSize, end = clear + 1
        var dict: [[UInt8]] = []
        func reset() { dict = (0..<clear).map { [UInt8($0)] } + [[], []] }
        reset()
        var width = minCodeSize + 1, bit = 0, clears = 0
        var out: [UInt8] = [], previous: [UInt8]? = nil
        while true {
            guard bit + width <= data.count * 8 else { throw Failure(description: "LZW data ends without an end code") }
            var code = 0
            for k in 0..<width where data[(bit + k) / 8] & (1 << UInt8((bit + k) % 8)) != 0 { code |= 1 << k }
            bit += width
            if code == clear { reset(); width = minCodeSize + 1; previous = nil; clears += 1; continue }
            if code == end { return (out, clears) }
            guard let prev = previous else {
                guard code < clear else {
                    throw Failure(description: "first code \(code) after a clear is not a literal")
                }
                out += dict[code]; previous = dict[code]; continue
            }
            let entry: [UInt8]
            if code < dict.count {
                entry = dict[code]
            } else if code == dict.count {
                entry = prev + [prev[0]]
            } else {
                throw Failure(description: "code \(code) beyond the table (\(dict.count))")
            }
            if dict.count < 4096 { dict.append(prev + [entry[0]]) }
            out += entry
            previous = entry
            if dict.count == 1 << width, width < 12 { width += 1 }
        }
    }
}
