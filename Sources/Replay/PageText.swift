/// What fills a document's body to its exact size: visible text — paragraphs (`<p>…</p>`) of
/// ordinary words, one byte in eight of the filler (`textShare`: most of a real page's HTML is
/// markup, not text) — then a comment. So a browser has text to paint (its first contentful paint)
/// in proportion to the document's bytes, without so much of it that the images the scenario
/// reveals later fall below the fold (the largest contentful paint only counts what is in view).
/// Nothing in the text is markup or a character reference.
enum PageText {
    /// About the length of a paragraph of an article (bytes, markup included).
    static let paragraphBytes = 600

    private static let words = Array(
        ("""
        The page you are reading was rendered by netbench so that a browser paints it the way it \
        paints a real page. Its text arrives with the document and is drawn as soon as the styles \
        that block rendering have loaded, while its images grow with their bytes and appear when \
        their last byte has come in. Every body keeps the size the scenario gives it, so the \
        network carries exactly what the built-in client measures, and the timings of the two \
        clients can be compared resource by resource over the same emulated link.
        """ + " ").utf8)

    /// The share of the filler that is visible text.
    static let textShare = 8

    /// Exactly `n` bytes: `n / textShare` bytes of paragraphs (none when that is under 40 bytes),
    /// then a comment (`Padding.html`).
    static func html(_ n: Int, from offset: Int = 0) -> [UInt8] {
        let text = n / textShare >= 40 ? n / textShare : 0
        return paragraphs(text, from: offset) + Padding.html(n - text)
    }

    /// Exactly `n` bytes: paragraphs of at most about `paragraphBytes`, or spaces when `n` < 9.
    static func paragraphs(_ n: Int, from offset: Int = 0) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(max(0, n))
        var left = n, at = offset
        while left >= 9 {
            // Never leave a remainder too small for a paragraph of its own.
            var p = min(left, paragraphBytes)
            if left - p < 9 { p = left }
            out += Array("<p>".utf8)
            appendWords(p - 8, from: at, to: &out)
            out += Array("</p>\n".utf8)
            at += p - 8
            left -= p
        }
        out += Padding.spaces(left)
        return out
    }

    private static func appendWords(_ n: Int, from offset: Int, to out: inout [UInt8]) {
        var left = n, at = offset % words.count
        while left > 0 {
            let k = min(left, words.count - at)
            out += words[at..<(at + k)]
            left -= k
            at = 0
        }
    }
}
