/// The images the replay serves a browser: GIFs whose picture is as large as their bytes suggest,
/// so that a page paints like a page (the largest contentful paint waits for its large images).
///
/// **Size rule.** An image of `n` bytes is a picture of about `pixelsPerByte` × `n` pixels (4 px² a
/// byte: about what a photo compressed as JPEG or WebP costs), 4:3, at most `maxWidth` × `maxHeight`
/// (the content width of headless Chromium's default window: 780 px beside the scrollbar less the
/// body's margins) — 1 KB ≈ 73×55, 10 KB ≈ 230×173, 108 KB and more 760×570. The page draws it at
/// exactly that size, so the browser never upscales it (Chromium's LCP counts an upscaled image by
/// its intrinsic area). A picture whose encoding would not fit its bytes is shrunk until it does
/// (only below about 100 bytes, where the GIF's own 40 bytes weigh too much).
///
/// **Picture.** Four colour bands of two blocks each, LZW-encoded (with clear codes as the table
/// fills), so the image is really W×H pixels, not one pixel stretched; then a comment extension
/// between the colour table and the frame pads it to exactly `n` bytes, so the picture can only
/// be drawn once the last bytes have arrived.
public enum PageImage {
    public static let pixelsPerByte = 4.0
    public static let maxWidth = 760
    public static let maxHeight = 570

    /// The four colours of the palette (RGB).
    static let palette: [UInt8] = [0x2E, 0x6F, 0xB5, 0xE8, 0xB0, 0x3A, 0x4C, 0x9A, 0x52, 0xF2, 0xEE, 0xE4]

    /// Width and height by the size rule, before any shrinking for fit.
    public static func nominalSize(bytes n: Int64) -> (width: Int, height: Int) {
        let area = Double(max(0, n)) * pixelsPerByte
        let w = min(Double(maxWidth), (area * 4 / 3).squareRoot()).rounded()
        let width = max(1, Int(w)), height = max(1, min(maxHeight, Int((Double(width) * 3 / 4).rounded())))
        return (width, height)
    }

    public typealias Picture = (width: Int, height: Int, gif: [UInt8])

    /// The picture's size and its GIF (without padding): the nominal size, shrunk until it fits `n` bytes.
    public static func picture(bytes n: Int64) -> Picture {
        var (w, h) = nominalSize(bytes: n)
        while true {
            let gif = encode(width: w, height: h)
            if Int64(gif.count) <= n || (w == 1 && h == 1) { return (w, h, gif) }
            w = max(1, w * 3 / 4)
            h = max(1, h * 3 / 4)
        }
    }

    /// The GIF of exactly `n` bytes. Under the smallest GIF's size: that GIF cut (nothing smaller decodes).
    public static func gif(bytes n: Int64, picture known: Picture? = nil) -> [UInt8] {
        let gif = (known ?? picture(bytes: n)).gif
        let t = Int(n)
        guard t > gif.count else { return Array(gif.prefix(t)) }
        // A comment extension costs at least 3 bytes, and 4 cannot be one (a sub-block has a length
        // and at least one byte): what cannot be a comment goes after the trailer, where decoders stop.
        let extra = t - gif.count
        let commentBytes = extra < 3 ? 0 : extra == 4 ? 3 : extra
        // The comment goes before the image descriptor: header + screen descriptor + colour table.
        let split = 13 + palette.count
        return Array(gif[..<split]) + comment(bytes: commentBytes) + Array(gif[split...])
            + [UInt8](repeating: 0, count: extra - commentBytes)
    }

    /// A comment extension (0x21 0xFE, sub-blocks of a length 1…255 and that many bytes of text,
    /// 0x00) of exactly `n` bytes; `n` is 3 or at least 5 (nothing when below 3).
    static func comment(bytes n: Int) -> [UInt8] {
        guard n >= 3 else { return [] }
        var out: [UInt8] = [0x21, 0xFE]
        out.reserveCapacity(n)
        var room = n - 3, offset = 0
        while room > 1 {
            // Each sub-block costs its length + 1; never leave a single byte behind.
            var k = min(room, 256)
            if room - k == 1 { k -= 1 }
            out.append(UInt8(k - 1))
            Padding.appendFiller(k - 1, from: offset, to: &out)
            offset += k - 1
            room -= k
        }
        out.append(0)
        return out
    }

    /// The colour index of pixel (x, y): four horizontal bands, each split into a left third and
    /// the rest in another colour.
    static func colour(x: Int, y: Int, width: Int, height: Int) -> UInt8 {
        let band = y * 4 / max(1, height)
        return UInt8(x * 3 < width ? (band + 2) % 4 : band)
    }

    /// The whole GIF89a of the picture: header, logical screen (global colour table of 4),
    /// image descriptor, LZW data in sub-blocks, trailer.
    static func encode(width: Int, height: Int) -> [UInt8] {
        var out = Array("GIF89a".utf8)
        out += le16(width) + le16(height) + [0x81, 0, 0] + palette
        out += [0x2C] + le16(0) + le16(0) + le16(width) + le16(height) + [0]
        let minCodeSize = 2
        out.append(UInt8(minCodeSize))
        let data = LZW.encode(pixelCount: width * height, minCodeSize: minCodeSize) { i in
            colour(x: i % width, y: i / width, width: width, height: height)
        }
        var at = 0
        while at < data.count {
            let k = min(255, data.count - at)
            out.append(UInt8(k))
            out += data[at..<(at + k)]
            at += k
        }
        out += [0, 0x3B]
        return out
    }

    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
}

/// GIF's variable-width LZW (codes LSB first, no early change): a clear code first, a new code
/// for each emitted one, the width growing when the next free code reaches 2^width, and a clear
/// code (table and width reset) when the next free code reaches 4095.
enum LZW {
    static func encode(pixelCount: Int, minCodeSize: Int, pixel: (Int) -> UInt8) -> [UInt8] {
        let clear = 1 << minCodeSize, end = clear + 1, alphabet = clear
        var writer = BitWriter()
        var width = minCodeSize + 1, next = end + 1
        // table[prefix * alphabet + symbol] = code of prefix+symbol, or 0 when absent.
        var table = [UInt16](repeating: 0, count: 4096 * alphabet)
        writer.write(clear, width: width)
        guard pixelCount > 0 else {
            writer.write(end, width: width)
            return writer.flushed
        }
        // After each code: one more code width once the next free code reaches 2^width (the decoder,
        // one entry behind, widens after reading the same code); then a new entry, or a clear.
        func emit(_ code: Int) {
            writer.write(code, width: width)
            if next == 1 << width, width < 12 { width += 1 }
        }
        var prefix = Int(pixel(0))
        for i in 1..<pixelCount {
            let s = Int(pixel(i))
            let known = table[prefix * alphabet + s]
            if known != 0 { prefix = Int(known); continue }
            emit(prefix)
            if next == 4095 {
                writer.write(clear, width: width)
                for j in table.indices { table[j] = 0 }
                width = minCodeSize + 1
                next = end + 1
            } else {
                table[prefix * alphabet + s] = UInt16(next)
                next += 1
            }
            prefix = s
        }
        emit(prefix)
        writer.write(end, width: width)
        return writer.flushed
    }

    struct BitWriter {
        var bytes: [UInt8] = []
        var acc: UInt32 = 0
        var count = 0

        mutating func write(_ code: Int, width: Int) {
            acc |= UInt32(code) << UInt32(count)
            count += width
            while count >= 8 {
                bytes.append(UInt8(acc & 0xFF))
                acc >>= 8
                count -= 8
            }
        }

        var flushed: [UInt8] { count > 0 ? bytes + [UInt8(acc & 0xFF)] : bytes }
    }
}
