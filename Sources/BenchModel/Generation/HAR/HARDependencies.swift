/// Which resource revealed which, from a HAR.
///
/// 1. Chrome's `_initiator` (and WebPageTest's): the innermost script on the initiator's stack
///    that the HAR loaded (async parents after), else the initiator's `url` — if that resource
///    started earlier than this one.
/// 2. Otherwise timing: the resource depends on the latest resource that finished before it
///    started, among those that can reveal it (documents and scripts reveal anything; a stylesheet
///    only what CSS loads: stylesheets, fonts, images); the root document if none had finished.
///    A script, XHR or frame under a stylesheet could only be fetched as an image: Chromium would
///    never run it (and ORB cuts a cross-origin script fetched as an image short).
/// A child of a document is revealed progressively: `revealAfterBytes` is the share of the
/// document's body that had arrived when the child started (at first byte: 0; after the last
/// byte: nil, "at the end"). Children of stylesheets and scripts are revealed at their end.
enum HARDependencies {
    struct Node {
        var type: Scenario.ResourceType
        var start: Double
        var firstByte: Double
        var end: Double
        var bytes: Int64
        /// Lookup keys of the initiator's stack frames (innermost first), then of its `url`.
        var initiatorKeys: [String]
    }

    struct Link {
        var parent: Int?
        var revealAfterBytes: Int64?
        var fromInitiator: Bool
    }

    /// `nodes` sorted by start, the root first; `position(key)` finds a node by URL key.
    static func resolve(_ nodes: [Node], position: (String) -> Int?) -> [Link] {
        var links = [Link(parent: nil, revealAfterBytes: nil, fromInitiator: false)]
        for k in nodes.indices.dropFirst() {
            var parent: Int?
            var fromInitiator = false
            for key in nodes[k].initiatorKeys {
                if let j = position(key), j < k { parent = j; fromInitiator = true; break }
            }
            if parent == nil {
                var best: Int?
                for j in 0..<k where canReveal(nodes[j].type, nodes[k].type) && nodes[j].end <= nodes[k].start {
                    if best == nil || nodes[j].end >= nodes[best!].end { best = j }
                }
                parent = best ?? 0
            }
            let p = parent!
            links.append(
                Link(
                    parent: p, revealAfterBytes: reveal(child: nodes[k], parent: nodes[p]), fromInitiator: fromInitiator
                ))
        }
        return links
    }

    /// Whether a resource of type `parent` can make the browser fetch one of type `child`.
    static func canReveal(_ parent: Scenario.ResourceType, _ child: Scenario.ResourceType) -> Bool {
        switch parent {
        case .document, .script: return true
        case .stylesheet: return child == .stylesheet || child == .font || child == .image
        default: return false
        }
    }

    static func reveal(child: Node, parent: Node) -> Int64? {
        guard parent.type == .document else { return nil }
        if child.start <= parent.firstByte { return 0 }
        if child.start >= parent.end || parent.end <= parent.firstByte { return nil }
        let share = (child.start - parent.firstByte) / (parent.end - parent.firstByte)
        return min(parent.bytes, Int64((Double(parent.bytes) * share).rounded(.down)))
    }
}
