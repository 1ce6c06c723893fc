/// Shapes a generated page's dependency tree the way browsers discover resources (HTTP Archive
/// initiator data, summarised; the probabilities are assumptions):
///
/// - The document reveals its children progressively: head items (stylesheets, head scripts,
///   preloads) within its first 12% of bytes, body items (images, async scripts, frames)
///   anywhere after that, deferred scripts at its end (`revealAfterBytes` nil).
/// - Stylesheets: 90% in the head (render-blocking, unless one in ten is `media=print`-style
///   non-blocking); the rest `@import`ed by an earlier stylesheet.
/// - Scripts: 60% from the document — a third of those synchronous in the head (render-blocking),
///   a quarter async in the head, the rest in the body or deferred — and 40% loaded by an earlier
///   script (tag managers, loaders, code splitting), favouring one of the same party.
/// - Fonts from a stylesheet (85%, same party first), else preloaded in the head.
/// - Images: 65% from the document body, 15% from a stylesheet (backgrounds), 12% from a script
///   (lazy loading, pixels), 8% from a frame.
/// - XHR from a script (same party first), or from the document if the page has none.
/// - Other (manifest, icons, media): 60% from the document, 40% from a script.
/// - Frames (extra documents): 60% from the document body, 40% from a third-party script.
/// - A forced script chain (single-page apps): script k+1 is loaded by script k.
/// Finally, a page of three or more requests gets at least one grandchild (depth ≥ 3).
struct PageTreeBuilder {
    typealias ResourceType = Scenario.ResourceType
    let scriptChain: Int

    func build(_ drafts: inout [DraftResource], _ rng: inout GeneratorRandom) {
        guard !drafts.isEmpty else { return }
        var shaper = Shaper(d: drafts, rng: rng, scriptChain: scriptChain)
        shaper.run()
        drafts = shaper.d
        rng = shaper.rng
    }
}

/// The tree being shaped and the random stream shaping it.
private struct Shaper {
    typealias ResourceType = Scenario.ResourceType
    enum Placement { case head, body, end }

    var d: [DraftResource]
    var rng: GeneratorRandom
    let scriptChain: Int
    var chainPosition = 0

    mutating func run() {
        for i in d.indices.dropFirst() {
            let roll = rng.unit()
            switch d[i].type {
            case .stylesheet: placeStylesheet(i, roll)
            case .script: placeScript(i, roll)
            case .document:
                let scripts = earlier(.script, before: i) { self.d[$0].thirdParty }
                if !scripts.isEmpty && roll < 0.4 { attach(i, to: rng.pick(scripts)) } else { place(i, .body) }
            case .font:
                let sheets = earlier(.stylesheet, before: i)
                if !sheets.isEmpty && roll < 0.85 {
                    attach(i, to: choose(sheets, for: i, sameParty: 0.9))
                } else {
                    place(i, .head)
                }
            case .image: placeImage(i, roll)
            case .xhr:
                let scripts = earlier(.script, before: i)
                if scripts.isEmpty { place(i, .end) } else { attach(i, to: chainEnd() ?? choose(scripts, for: i)) }
            case .other:
                let scripts = earlier(.script, before: i)
                if roll < 0.6 || scripts.isEmpty {
                    place(i, rng.chance(0.5) ? .head : .body)
                } else {
                    attach(i, to: choose(scripts, for: i))
                }
            }
        }
        if scriptChain > 0 { pointImagesAtChainEnd() }
        ensureGrandchild()
    }

    mutating func placeStylesheet(_ i: Int, _ roll: Double) {
        let importers = earlier(.stylesheet, before: i) { self.d[$0].parent == 0 }
        if !importers.isEmpty && roll < 0.1 {
            attach(i, to: choose(importers, for: i))
            d[i].renderBlocking = true
        } else {
            place(i, .head)
            d[i].renderBlocking = rng.unit() >= 0.1
        }
    }

    mutating func placeScript(_ i: Int, _ roll: Double) {
        d[i].renderBlocking = false
        if chainPosition < scriptChain {
            if chainPosition == 0 { place(i, .head) } else { attach(i, to: i - 1) }
            let names = ["loader", "runtime", "vendor", "app", "router"]
            d[i].nameHint = chainPosition < names.count ? names[chainPosition] : "route-chunk"
            chainPosition += 1
            return
        }
        let loaders = earlier(.script, before: i)
        if !loaders.isEmpty && roll < 0.4 {
            attach(i, to: choose(loaders, for: i))
            return
        }
        let style = rng.unit()
        if style < 1.0 / 3 {
            place(i, .head); d[i].renderBlocking = true
        } else if style < 0.5 {
            place(i, .head)
        } else if style < 0.8 {
            place(i, .body)
        } else {
            place(i, .end)
        }
    }

    mutating func placeImage(_ i: Int, _ roll: Double) {
        let sheets = earlier(.stylesheet, before: i)
        let scripts = earlier(.script, before: i)
        let frames = earlier(.document, before: i)
        if roll < 0.65 {
            place(i, .body)
        } else if roll < 0.80 && !sheets.isEmpty {
            attach(i, to: choose(sheets, for: i))
        } else if roll < 0.92 && !scripts.isEmpty {
            attach(i, to: choose(scripts, for: i))
        } else if !frames.isEmpty {
            place(i, .body, in: rng.pick(frames))
        } else {
            place(i, .body)
        }
    }

    /// A child of a document (the root unless `parent` says otherwise), revealed in its head,
    /// anywhere in its body, or at its end.
    mutating func place(_ i: Int, _ placement: Placement, in parent: Int = 0) {
        d[i].parent = parent
        let size = Double(d[parent].bytes)
        switch placement {
        case .head: d[i].revealAfterBytes = Int64((size * rng.uniform(0.02, 0.12)).rounded(.down))
        case .body: d[i].revealAfterBytes = Int64((size * rng.uniform(0.12, 1.0)).rounded(.down))
        case .end: d[i].revealAfterBytes = nil
        }
    }

    /// A child of a stylesheet or script: revealed when its parent has been processed.
    mutating func attach(_ i: Int, to parent: Int) { d[i].parent = parent; d[i].revealAfterBytes = nil }

    /// Earlier resources of `type` (never the root).
    func earlier(_ type: ResourceType, before i: Int, where extra: (Int) -> Bool = { _ in true }) -> [Int] {
        (0..<i).filter { d[$0].type == type && $0 != 0 && extra($0) }
    }

    /// One of `pool`, of the same party as `i` with probability `sameParty` when there is one.
    mutating func choose(_ pool: [Int], for i: Int, sameParty: Double = 0.8) -> Int {
        let same = pool.filter { d[$0].thirdParty == d[i].thirdParty }
        if !same.isEmpty && rng.chance(sameParty) { return rng.pick(same) }
        return rng.pick(pool)
    }

    /// In a single-page app the data requests come from the last script of the chain.
    func chainEnd() -> Int? {
        guard scriptChain > 0 else { return nil }
        let scripts = d.indices.filter { d[$0].type == .script }
        return scripts.count >= scriptChain ? scripts[scriptChain - 1] : nil
    }

    /// Images of a single-page app are rendered by the chain's last script.
    mutating func pointImagesAtChainEnd() {
        guard let end = chainEnd() else { return }
        for i in d.indices where d[i].type == .image && d[i].parent == 0 { attach(i, to: end) }
    }

    func depth(_ i: Int) -> Int {
        var n = 1
        var cur = d[i].parent
        while let c = cur { n += 1; cur = d[c].parent }
        return n
    }

    /// Depth ≥ 3 for pages of three or more requests: a childless leaf moves under a script
    /// (or a stylesheet, if it is a font, an image or a stylesheet).
    mutating func ensureGrandchild() {
        guard d.count >= 3, !d.indices.contains(where: { depth($0) >= 3 }) else { return }
        let hasChildren = Set(d.compactMap(\.parent))
        let scripts = d.indices.filter { d[$0].type == .script }
        let sheets = d.indices.filter { d[$0].type == .stylesheet }
        for leaf in d.indices.reversed() where leaf > 0 && !hasChildren.contains(leaf) && d[leaf].type != .document {
            let parents =
                scripts.filter { $0 != leaf }
                + ([.font, .image, .stylesheet].contains(d[leaf].type) ? sheets.filter { $0 != leaf } : [])
            guard !parents.isEmpty else { continue }
            attach(leaf, to: rng.pick(parents))
            if d[leaf].type == .stylesheet { d[leaf].renderBlocking = true }
            return
        }
    }
}
