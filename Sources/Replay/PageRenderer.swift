import BenchModel

/// Renders a scenario's documents, stylesheets and scripts as real HTML, CSS and JavaScript, so a
/// browser discovers the same dependency tree the built-in loader follows: a document references
/// its children with tags placed where the scenario reveals them (`revealAfterBytes`), a stylesheet
/// with `@import`, `@font-face` and `background-image` (on hook elements its document carries), a
/// script by inserting scripts, stylesheets, images and iframes and by `fetch()`.
///
/// The pages paint like pages: render-blocking stylesheets and synchronous scripts in the head
/// (the others `async`, or `media="print"` swapped to `all` once loaded), visible text in the
/// body, images drawn at a size that grows with their bytes (`PageImage`).
///
/// Every body keeps the scenario's exact size: the rendered content is padded with visible text in
/// a document's body (`PageText`: some text, then a comment), elsewhere with a comment (`<!-- … -->`, `/* … */`, a GIF
/// comment extension) of letters and spaces, which can never close the comment early. When
/// the content alone is larger than the scenario's size (a tiny document with many children), the
/// body is the content, unpadded: `Body.overflow` says by how much, nothing is cut.
///
/// What a browser cannot reproduce exactly is listed in `notes` (children of images, fonts or
/// JSON, which cannot reference anything, are referenced by their nearest ancestor that can;
/// stylesheets and scripts reveal their children only once complete).
public struct PageRenderer: Sendable {
    public struct Body: Sendable, Hashable {
        public var bytes: [UInt8]
        /// The size the scenario gives the resource.
        public var scenarioBytes: Int64
        /// Bytes beyond the scenario's size (0 when the content fit).
        public var overflow: Int64 { max(0, Int64(bytes.count) - scenarioBytes) }
    }

    /// One resource as its referencing ancestor names it.
    struct Reference {
        var resource: Scenario.Resource
        /// Index in the scenario's resources: hook element ids and font family names.
        var index: Int
        /// Body offset of the referencing ancestor at which the browser should discover it.
        var revealAt: Int64?
    }

    public let scenario: Scenario
    /// Origin id → "host:port" (or "host" on 443), as URLs carry it.
    private let authorities: [String: String]
    private let references: [String: [Reference]]
    private let ownerDocument: [String: String]
    public let notes: [String]
    /// Each image size's picture, encoded once (the `<img>` tag and the body both need it).
    private let pictures: [Int64: PageImage.Picture]

    /// `port`: the port every origin is served on (the replay server's listener); nil or 443: none in URLs.
    public init(scenario: Scenario, port: UInt16?) {
        self.scenario = scenario
        var auth: [String: String] = [:]
        for o in scenario.origins { auth[o.id] = port == nil || port == 443 ? o.host : "\(o.host):\(port!)" }
        authorities = auth
        (references, ownerDocument, notes) = Self.plan(scenario)
        var pictures: [Int64: PageImage.Picture] = [:]
        for r in scenario.resources where r.type == .image && pictures[r.bytes] == nil {
            pictures[r.bytes] = PageImage.picture(bytes: r.bytes)
        }
        self.pictures = pictures
    }

    /// Whether the renderer writes this type's bodies (the others stay filler).
    public static func renders(_ type: Scenario.ResourceType) -> Bool {
        references(type) || type == .image
    }

    /// Whether a body of this type can reference other resources.
    static func references(_ type: Scenario.ResourceType) -> Bool {
        type == .document || type == .stylesheet || type == .script
    }

    /// The size of the body a browser gets: a recorded body's as recorded (the replay server sends it as
    /// it is, a hand-written document too), else the scenario's, or the rendered content's when larger.
    public func servedBytes(of r: Scenario.Resource) -> Int64 {
        if scenario.recordedBody(of: r) != nil { return r.bytes }
        // Images always fit (`PageImage` shrinks the picture); pages are rendered to know.
        guard Self.references(r.type) else { return r.bytes }
        return render(r).map { Int64($0.bytes.count) } ?? r.bytes
    }

    /// The absolute URL the browser requests `resource` at.
    public func url(of resource: Scenario.Resource) -> String {
        "https://" + (authorities[resource.origin] ?? resource.origin) + Self.escapedPath(resource.path)
    }

    /// Every rendered body by resource id (documents, stylesheets, scripts and images).
    public func renderAll() -> [String: Body] {
        var out: [String: Body] = [:]
        for r in scenario.resources where Self.renders(r.type) { out[r.id] = render(r) }
        return out
    }

    /// The body of one document, stylesheet, script or image; nil for other types.
    public func render(_ r: Scenario.Resource) -> Body? {
        let refs = references[r.id] ?? []
        switch r.type {
        case .document: return document(r, refs)
        case .stylesheet: return stylesheet(r, refs)
        case .script: return script(r, refs)
        case .image:
            return Body(bytes: PageImage.gif(bytes: r.bytes, picture: pictures[r.bytes]), scenarioBytes: r.bytes)
        default: return nil
        }
    }

    // MARK: Planning

    /// Who references whom: each child by its parent, or, when the parent's type cannot reference
    /// anything, by the nearest ancestor that can (at the parent's own reveal offset).
    static func plan(_ s: Scenario) -> (references: [String: [Reference]], owner: [String: String], notes: [String]) {
        let byID = Dictionary(s.resources.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var refs: [String: [Reference]] = [:]
        var notes: [String] = []
        for (i, r) in s.resources.enumerated() {
            guard let p = r.parent, var holder = byID[p] else { continue }
            var reveal = r.revealAfterBytes
            var hops = 0
            while !references(holder.type), let up = holder.parent.flatMap({ byID[$0] }), hops < s.resources.count {
                reveal = holder.revealAfterBytes
                holder = up
                hops += 1
            }
            guard references(holder.type) else { continue }
            if holder.id != p {
                notes.append(
                    "\(r.id): its parent \(p) (\(byID[p]!.type.rawValue)) cannot reference it; \(holder.id) does")
            } else if holder.type != .document, let n = r.revealAfterBytes, n < holder.bytes {
                notes.append(
                    "\(r.id): revealed by \(holder.id) (\(holder.type.rawValue)) at its end, not after \(n) bytes")
            }
            refs[holder.id, default: []].append(
                Reference(resource: r, index: i, revealAt: holder.type == .document ? reveal : nil))
        }
        // The document whose elements a stylesheet's rules apply to: its nearest document ancestor.
        var owner: [String: String] = [:]
        for r in s.resources where r.type == .stylesheet {
            var cur = r.parent.flatMap { byID[$0] }
            var hops = 0
            while let c = cur, c.type != .document, hops < s.resources.count {
                cur = c.parent.flatMap { byID[$0] }; hops += 1
            }
            if let d = cur, d.type == .document { owner[r.id] = d.id }
        }
        return (refs, owner, notes)
    }

    // MARK: HTML

    /// A document: its `<head>` holds the render-blocking stylesheets and synchronous scripts the
    /// scenario reveals first (with whatever it reveals among them that a head may hold), padded
    /// with comments; its `<body>` the rest, padded with visible text and comments (`PageText`). A render-blocking
    /// stylesheet or script revealed after an image or iframe stays in the body, where Chromium
    /// holds back the content after it.
    private func document(_ r: Scenario.Resource, _ refs: [Reference]) -> Body {
        let title = Self.plainText(r.parent == nil ? scenario.name : r.id)
        let head =
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>\(title)</title><link rel=\"icon\" "
                + "href=\"data:,\">"
            // Images are blocks: no line of inline content around them, whose text (the
            // whitespace between tags) Chromium would count as one text block the size of the page.
            + "<style>img{display:block}</style>\n"
        let bodyStart = Array(("</head><body>\n" + hooks(forDocument: r.id)).utf8)
        let tail = "</body></html>\n"
        let positioned = Self.positioned(refs)
        let inHead = Self.headCount(positioned.map(\.resource))
        let atEnd = refs.filter { $0.revealAt == nil }.map {
            let t = htmlTag($0); return t.start + t.rest
        }.joined()
        let target = r.bytes
        var out = Array(head.utf8)
        // Each start tag (what the parser acts on) ends where the scenario reveals the child, as far
        // as the room left for the rest allows.
        let reserved = Int64(atEnd.utf8.count + tail.utf8.count)
        for (i, ref) in positioned.enumerated() {
            if i == inHead { out += bodyStart }
            let tag = htmlTag(ref)
            let start = Array(tag.start.utf8), rest = Array(tag.rest.utf8)
            let later = reserved + Int64(rest.count) + (i < inHead ? Int64(bodyStart.count) : 0)
            let end = min(ref.revealAt!, target - later)
            let gap = Int(end - Int64(out.count) - Int64(start.count))
            if gap > 0 { out += i < inHead ? Padding.html(gap) : PageText.html(gap, from: out.count) }
            out += start + rest
        }
        if inHead == positioned.count { out += bodyStart }
        let gap = target - Int64(out.count) - reserved
        if gap > 0 { out += PageText.html(Int(gap), from: out.count) }
        out += Array(atEnd.utf8) + Array(tail.utf8)
        return Body(bytes: out, scenarioBytes: target)
    }

    /// A document's references that have a place in its body, in reveal order.
    static func positioned(_ refs: [Reference]) -> [Reference] {
        refs.filter { $0.revealAt != nil }.sorted { $0.revealAt! < $1.revealAt! }
    }

    /// The resources the `<head>` of document `id` references, in order, as `document` writes it.
    static func headResources(of id: String, in s: Scenario) -> [Scenario.Resource] {
        let positioned = Self.positioned(plan(s).references[id] ?? []).map(\.resource)
        return Array(positioned.prefix(headCount(positioned)))
    }

    /// How many of the positioned children (in reveal order) go in the head: up to the last
    /// render-blocking stylesheet or script before the first child a head cannot hold.
    static func headCount(_ children: [Scenario.Resource]) -> Int {
        var n = 0
        for (i, c) in children.enumerated() {
            guard c.type != .image && c.type != .document else { break }
            if (c.type == .stylesheet || c.type == .script) && c.renderBlocking == true { n = i + 1 }
        }
        return n
    }

    /// The markup naming a child: its start tag (the parser discovers the child once that has
    /// arrived) and what follows it.
    private func htmlTag(_ ref: Reference) -> (start: String, rest: String) {
        let u = url(of: ref.resource)
        switch ref.resource.type {
        case .document:
            return ("<iframe src=\"\(u)\" width=\"1\" height=\"1\">", "</iframe>\n")
        case .stylesheet:
            return (
                ref.resource.renderBlocking == false
                    ? "<link rel=\"stylesheet\" href=\"\(u)\" crossorigin media=\"print\" onload=\"this.media='all'\">"
                    : "<link rel=\"stylesheet\" href=\"\(u)\" crossorigin>", "\n"
            )
        case .script:
            return (
                ref.resource.renderBlocking == true
                    ? "<script src=\"\(u)\" crossorigin>" : "<script async src=\"\(u)\" crossorigin>",
                "</script>\n"
            )
        case .image:
            // Drawn at its intrinsic size (`PageImage`): never upscaled.
            let p = pictures[ref.resource.bytes] ?? PageImage.picture(bytes: ref.resource.bytes)
            return ("<img src=\"\(u)\" alt=\"\" width=\"\(p.width)\" height=\"\(p.height)\" crossorigin>", "\n")
        case .font:
            return ("<link rel=\"preload\" href=\"\(u)\" as=\"font\" type=\"font/woff2\" crossorigin>", "\n")
        case .xhr, .other:
            if ref.resource.method != nil {
                // A preload can only GET: a POST (or PUT, …) is a fetch() with its method and body.
                let call = Self.fetchCall(u, ref.resource)
                return ("<script>(window.__nb||(window.__nb=[])).push(" + call + ")", "</script>\n")
            }
            return ("<link rel=\"preload\" href=\"\(u)\" as=\"fetch\" crossorigin>", "\n")
        }
    }

    /// `fetch(url, {method, body, headers})` for a resource requested with another method than GET.
    static func fetchCall(_ url: String, _ r: Scenario.Resource) -> String {
        var options = "method:" + jsString(r.httpMethod)
        if let b = r.requestBody {
            options += ",body:" + jsString(b.text)
            if let t = b.contentType { options += ",headers:{\"content-type\":" + jsString(t) + "}" }
        }
        return "fetch(\"\(url)\",{\(options)}).then(function(r){return r.arrayBuffer()}).catch(function(){})"
    }

    /// `s` as a JavaScript string literal that is also safe inside a `<script>` element and an HTML page:
    /// quotes, backslashes, `<`, `>`, `&`, line terminators and control characters escaped.
    static func jsString(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "<", ">", "&", "\u{2028}", "\u{2029}":
                out += "\\u" + String(u.value, radix: 16).leftPadded(to: 4)
            default:
                if u.value < 0x20 || u.value == 0x7F {
                    out += "\\u" + String(u.value, radix: 16).leftPadded(to: 4)
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    /// The elements the rules of this document's stylesheets style (a background image or a font
    /// only loads for an element that uses it), right after `<body>` so they exist early.
    private func hooks(forDocument id: String) -> String {
        var out = ""
        for s in scenario.resources where s.type == .stylesheet && ownerDocument[s.id] == id {
            for ref in references[s.id] ?? [] where ref.resource.type != .stylesheet {
                out +=
                    ref.resource.type == .font
                    ? "<span id=\"nb\(ref.index)\">a</span>" : "<div id=\"nb\(ref.index)\"></div>"
            }
        }
        return out.isEmpty ? "" : "<div>" + out + "</div>\n"
    }

    // MARK: CSS

    private func stylesheet(_ r: Scenario.Resource, _ refs: [Reference]) -> Body {
        var imports = "", rules = ""
        for ref in refs {
            let u = url(of: ref.resource)
            switch ref.resource.type {
            case .stylesheet:
                imports += "@import url(\"\(u)\");\n"
            case .font:
                rules +=
                    "@font-face{font-family:\"nbf\(ref.index)\";src:url(\"\(u)\") format(\"woff2\")}\n"
                    + "#nb\(ref.index){font-family:\"nbf\(ref.index)\"}\n"
            default:
                // Scripts, documents and data under a stylesheet can only be fetched as images.
                rules += "#nb\(ref.index){mask-image:url(\"\(u)\");width:1px;height:1px}\n"
            }
        }
        // @import must come before every other rule.
        let content = imports + "/* netbench: \(Self.plainText(r.id)) */\n" + rules
        return Self.padded(content, to: r.bytes, comment: Padding.block)
    }

    // MARK: JavaScript

    private func script(_ r: Scenario.Resource, _ refs: [Reference]) -> Body {
        guard !refs.isEmpty else {
            return Self.padded("/* netbench: \(Self.plainText(r.id)) */\n", to: r.bytes, comment: Padding.block)
        }
        var used = Set<Character>()
        var calls = ""
        for ref in refs {
            if ref.resource.method != nil, ref.resource.type == .xhr || ref.resource.type == .other {
                calls += "k.push(" + Self.fetchCall(url(of: ref.resource), ref.resource) + ");\n"
                continue
            }
            let f = Self.jsHelperName(ref.resource.type)
            used.insert(f)
            calls += "\(f)(\"\(url(of: ref.resource))\");\n"
        }
        var js =
            "/* netbench: \(Self.plainText(r.id)) */\n(function(){var d=document,k=window.__nb||(window.__nb=[]);\n"
        for (name, body) in Self.jsHelpers where used.contains(name) { js += "function \(name)(u){\(body)}\n" }
        js += calls + "})();\n"
        return Self.padded(js, to: r.bytes, comment: Padding.block)
    }

    private static func jsHelperName(_ t: Scenario.ResourceType) -> Character {
        switch t {
        case .script: return "j"
        case .stylesheet: return "c"
        case .image: return "i"
        case .font: return "f"
        case .document: return "e"
        case .xhr, .other: return "x"
        }
    }

    /// One small function per kind of load; `k` keeps promises alive until they end; images are
    /// added to the page, where they are drawn at their intrinsic size.
    /// Every load is in CORS mode (`crossorigin`), as fonts and fetches must be: Chromium keeps
    /// requests with and without credentials on separate connections, and a mix would open two
    /// connections to an origin where the built-in client opens one.
    private static let jsHelpers: [(Character, String)] = [
        ("j", "var s=d.createElement(\"script\");s.crossOrigin=\"anonymous\";s.src=u;d.head.appendChild(s)"),
        (
            "c",
            "var l=d.createElement(\"link\");l.rel=\"stylesheet\";l.crossOrigin=\"anonymous\";"
                + "l.href=u;d.head.appendChild(l)"
        ),
        ("i", "var m=new Image();m.crossOrigin=\"anonymous\";m.src=u;(d.body||d.documentElement).appendChild(m)"),
        ("f", "k.push(new FontFace(\"nb\",\"url(\"+u+\")\").load().catch(function(){}))"),
        (
            "e",
            "var f=d.createElement(\"iframe\");f.src=u;f.width=1;f.height=1;(d.body||d.documentElement).appendChild(f)"
        ),
        ("x", "k.push(fetch(u).then(function(r){return r.arrayBuffer()}).catch(function(){}))"),
    ]

    // MARK: Helpers

    static func padded(_ content: String, to target: Int64, comment: (Int) -> [UInt8]) -> Body {
        var out = Array(content.utf8)
        let gap = target - Int64(out.count)
        if gap > 0 { out += comment(Int(gap)) }
        return Body(bytes: out, scenarioBytes: target)
    }

    /// Letters, digits, spaces and `._-` only: safe in a title and inside any comment.
    static func plainText(_ s: String) -> String {
        String(s.map { $0.isASCII && ($0.isLetter || $0.isNumber || " ._-".contains($0)) ? $0 : "_" })
    }

    /// The path with everything that could end a quoted attribute, a CSS `url("…")` or a JavaScript
    /// string, or that a URL parser would take apart, percent-encoded.
    static func escapedPath(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if byte < 0x80, c.isLetter || c.isNumber || "/-._~!$&()*+,;=:@%?[]".contains(c) {
                out.append(c)
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

/// Padding that keeps bodies at their exact size: a comment of letters and spaces (nothing in it
/// can end the comment), or plain whitespace when the gap is too small for a comment.
enum Padding {
    private static let text = Array("netbench padding keeps this body at the size of the scenario ".utf8)

    static func filler(_ n: Int, from offset: Int = 0) -> [UInt8] {
        var out: [UInt8] = []
        appendFiller(n, from: offset, to: &out)
        return out
    }

    static func appendFiller(_ n: Int, from offset: Int, to out: inout [UInt8]) {
        var left = max(0, n), at = offset % text.count
        out.reserveCapacity(out.count + left)
        while left > 0 {
            let k = min(left, text.count - at)
            out += text[at..<(at + k)]
            left -= k
            at = 0
        }
    }

    static func spaces(_ n: Int) -> [UInt8] {
        n <= 0 ? [] : Array(repeating: UInt8(ascii: " "), count: n - 1) + [UInt8(ascii: "\n")]
    }

    /// `<!-- … -->` of exactly `n` bytes (spaces when `n` < 8).
    static func html(_ n: Int) -> [UInt8] {
        n < 8 ? spaces(n) : Array("<!--".utf8) + filler(n - 8) + Array(" -->".utf8)
    }

    /// `/* … */` of exactly `n` bytes (spaces when `n` < 5), for CSS and JavaScript.
    static func block(_ n: Int) -> [UInt8] {
        n < 5 ? spaces(n) : Array("/*".utf8) + filler(n - 5) + Array("*/\n".utf8)
    }
}

extension String {
    func leftPadded(to n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
