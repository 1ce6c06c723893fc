import BenchCore
import BenchModel

/// Which of a page's requests go out when, and on which connection, as Chromium decides: a child
/// is discovered when its parent has revealed it (after N body bytes, or at the parent's end,
/// unless the parser has not reached its tag); requests leave in the priority order Chromium gives
/// them (`priority(_:parent:)`), at most `maxConnectionsPerOrigin` connections per origin; until
/// the parser reaches the root document's `<body>`, Blink's tight mode holds requests below
/// `net::MEDIUM`, save up to two of the first images Blink boosts to `net::LOW`. Over HTTP/1.1 a
/// request is bound to a connection only when one is ready for it (Chromium's socket pool: a
/// connect job serves whichever request is most urgent when it completes, and a socket freed by a
/// response goes to the most urgent waiting request), so a
/// request never waits for a handshake while another connection of its origin is free; and after
/// the tight mode at most `delayableLimit` requests below `net::MEDIUM` are out at once across all
/// origins (Chromium's network-side `ResourceScheduler` does so for servers not known to support
/// priorities, as over HTTP/1.1).
///
/// A value without sockets or a clock, after the QUIC and link engines: the loader tells it what
/// happened (a body progressed, a request ended or was lost with its connection) and asks it,
/// passing `now`, what to send next; tests drive it the same way on a virtual clock.
struct DispatchPolicy {
    /// A connection the policy decided to open: for which origin, and when.
    struct Connection: Equatable {
        let origin: String
        let openedAt: Instant
    }

    /// What the policy needs to know of an open connection when it decides.
    struct Status {
        var isUsable: Bool
        /// How many more requests it takes now.
        var freeSlots: Int
        /// Its handshake is through. Only late binding (HTTP/1.1) asks: a connection that is not ready
        /// takes no request then, and one being set up is counted against the requests waiting.
        var isReady = true
    }

    /// A decision: send `id` on `connection` (an index into `connections`). When
    /// `opensConnection`, the policy has just added that connection and the caller opens it; with
    /// late binding a new connection is opened without a request (`id` nil), and the most urgent
    /// request waiting then takes it once it is ready.
    struct Send: Equatable {
        let id: String?
        let origin: String
        let connection: Int
        let opensConnection: Bool
    }

    /// Blink's "tight" throttling (`ResourceLoadScheduler`, `kTightLimitForRendererSideResourceScheduler`):
    /// until the parser inserts the root document's `<body>`, at most this many requests below
    /// Blink's "High" (`net::MEDIUM`: images, async scripts, non-blocking stylesheets) are in flight
    /// at once; more urgent ones are not held. Chromium on the 4G profile requests the page's large
    /// images only as its head's scripts and stylesheets arrive, two at a time, and so does this loader.
    static let tightModeLimit = 2
    /// Blink's first-images boost (`kBoostImagePriority`, on by default since Chromium 117): the first
    /// `image_count` (5) images of a document that its preload scanner finds and that are not small
    /// (`image_size`: at most 10,000 px² by the tag's width and height; an image of unknown size is not
    /// small) load at Blink's Medium (`net::LOW`) instead of Low (`net::LOWEST`). Chromium 156's
    /// DevTools report `initialPriority` Medium for exactly the mobile median page's first five images.
    static let boostedImagesPerDocument = 5
    static let smallImageArea = 10_000
    /// `kBoostImagePriorityTightMediumLimit`: in the tight mode a Medium (`net::LOW`) request may start
    /// while fewer than this many Medium ones are in flight, whatever the tight limit says
    /// (`ResourceLoadScheduler::IsRunningThrottleableRequestsLessThanOutStandingLimit`).
    static let tightModeMediumLimit = 2
    /// `ResourceScheduler`'s `kDefaultMaxNumDelayableRequestsPerClient`: requests below
    /// `net::MEDIUM` in flight at once, across all hosts, to servers without request priorities.
    static let http1DelayableLimit = 10
    /// `ResourceScheduler`'s `kMaxNumDelayableRequestsPerHostPerClient`: a delayable request to a
    /// host with this many requests in flight is passed over for the next one.
    static let http1DelayablePerHost = 6

    private struct Request {
        let order: Int
        var revealed = Set<String>()
        var inFlight = false
        var ended = false
        /// A request lost with its connection goes only on a connection opened after the loss (as
        /// browsers retry on a fresh connection): after a NAT rebinding every older one is silently dead.
        var notBefore: Instant?
    }

    /// One pass over the waiting requests: origin by origin (`originsInDiscoveryOrder`), each
    /// origin's most urgent first. The allowance of requests below `net::MEDIUM` is fixed when the
    /// pass starts.
    private struct Round {
        let origins: [String]
        let allowed: Set<String>?
        var nextOrigin = 0
        var origin = ""
        var queue: ArraySlice<String> = []
        /// Late binding: the origin's requests of this round that found no ready connection.
        var waiting = 0
    }

    private let maxConnectionsPerOrigin: Int
    /// HTTP/1.1: requests wait for a ready connection instead of being bound to the one opened for them.
    private let bindsLate: Bool
    /// After the tight mode: at most this many requests below `net::MEDIUM` out at once (nil: any).
    private let delayableLimit: Int?
    /// A request below `net::MEDIUM` to an origin with this many requests out (or allowed) is passed
    /// over for the next one, so that a busy origin does not hold the allowance (nil: none).
    private let delayablePerOrigin: Int?
    private let rootID: String?
    private let origins: Set<String>
    private let byID: [String: Scenario.Resource]
    /// Each resource's frame: the nearest document among itself and its ancestors (the root's for
    /// the page's own). Chromium schedules each frame's requests as their own client.
    private let frameOf: [String: String]
    private let childrenOf: [String: [Scenario.Resource]]
    /// Each resource's `priority(_:parent:)`, by id (fixed by the scenario; dispatch sorts by it often).
    private let priorities: [String: RequestPriority]
    /// The render-blocking stylesheets and scripts in the root document's `<head>` as
    /// `PageRenderer` writes it for browsers: the parser reaches `<body>` once they are in.
    private let headBlocking: [String]

    private var requests: [String: Request] = [:]
    /// Origin id → resource ids waiting to be sent.
    private var pending: [String: [String]] = [:]
    /// Every connection the policy opened, in opening order (the index a `Send` names).
    private(set) var connections: [Connection] = []
    private(set) var endedCount = 0
    private var rootResponded = false
    /// Set once the root document's head is through: the tight mode is over.
    private var bodyReached = false
    /// Stylesheets with fonts or images held until the parser reaches the root's `<body>`.
    private var heldForBody = Set<String>()
    private var round: Round?

    init(
        scenario: Scenario, maxConnectionsPerOrigin: Int, bindsLate: Bool = false, delayableLimit: Int? = nil,
        delayablePerOrigin: Int? = nil
    ) {
        self.maxConnectionsPerOrigin = maxConnectionsPerOrigin
        self.bindsLate = bindsLate
        self.delayableLimit = delayableLimit
        self.delayablePerOrigin = delayablePerOrigin
        rootID = scenario.root?.id
        origins = Set(scenario.origins.map(\.id))
        let byID = Dictionary(scenario.resources.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        self.byID = byID
        let frames = byID.mapValues { r in
            var frame = r
            var hops = 0
            while frame.type != .document, let up = frame.parent.flatMap({ byID[$0] }), hops < byID.count {
                frame = up
                hops += 1
            }
            return frame.id
        }
        frameOf = frames
        childrenOf = Dictionary(grouping: scenario.resources.filter { $0.parent != nil }, by: { $0.parent! })
        let boosted = DispatchPolicy.boostedImages(scenario)
        let inView = DispatchPolicy.stylesheetImagesInView(scenario, frameOf: frames)
        priorities = byID.mapValues { r in
            let p = DispatchPolicy.priority(r, parent: r.parent.flatMap { byID[$0] })
            if inView.contains(r.id) { return max(p, .medium) }
            return boosted.contains(r.id) ? max(p, .low) : p
        }
        headBlocking = (scenario.root.map { PageRenderer.headResources(of: $0.id, in: scenario) } ?? [])
            .filter { ($0.type == .stylesheet || $0.type == .script) && $0.renderBlocking == true }.map(\.id)
    }

    /// Chromium's policy for `kind`: over HTTP/1.1 six connections per origin, late binding and at
    /// most ten delayable requests, passing over hosts with six out; over HTTP/2 and HTTP/3 one
    /// connection per origin.
    static func chromium(_ scenario: Scenario, kind: TransportKind) -> DispatchPolicy {
        DispatchPolicy(
            scenario: scenario, maxConnectionsPerOrigin: kind == .h1 ? 6 : 1, bindsLate: kind == .h1,
            delayableLimit: kind == .h1 ? http1DelayableLimit : nil,
            delayablePerOrigin: kind == .h1 ? http1DelayablePerHost : nil)
    }

    /// The priority Chromium gives the resource: `Scenario.Resource.chromiumPriority(parent:)`.
    static func priority(_ r: Scenario.Resource, parent: Scenario.Resource?) -> RequestPriority {
        r.chromiumPriority(parent: parent)
    }

    func priority(of id: String) -> RequestPriority { priorities[id]! }

    /// The images `boostedImagesPerDocument` lifts: per document, its own image children in the order
    /// its HTML names them (`revealAfterBytes`; those without, at its end, in the scenario's order),
    /// the small ones skipped, the first five. A stylesheet's images are not the preload scanner's and
    /// never count. A synthetic page's tag carries `PageImage`'s size; a recorded page's size is unknown.
    static func boostedImages(_ scenario: Scenario) -> Set<String> {
        var boosted = Set<String>()
        let index = Dictionary(scenario.resources.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        for doc in scenario.resources where doc.type == .document {
            let sizeKnown = doc.body == nil
            let images = scenario.resources.filter { $0.parent == doc.id && $0.type == .image }.sorted {
                ($0.revealAfterBytes ?? .max, index[$0.id]!) < ($1.revealAfterBytes ?? .max, index[$1.id]!)
            }
            let notSmall = images.filter { r in
                guard sizeKnown else { return true }
                let (w, h) = PageImage.nominalSize(bytes: r.bytes)
                return w * h > smallImageArea
            }
            boosted.formUnion(notSmall.prefix(boostedImagesPerDocument).map(\.id))
        }
        return boosted
    }

    /// Blink raises an image that layout finds in the viewport to High (`net::MEDIUM`;
    /// `ResourceFetcher::UpdateAllImageResourcePriorities`). `PageRenderer` hangs a stylesheet's
    /// images on 1-pixel elements right after the `<body>`, always in view, and Chromium 156 raises
    /// each of the mobile median page's three (Low to High) in every run; Blink asks for them at Low
    /// and raises them after the same layout, so they are asked for at High here. Only the root
    /// document's stylesheets' images of a synthetic page: a recorded page's elements are not the
    /// renderer's, and a frame's viewport is not modelled.
    /// `frameOf`: each resource's frame (the policy's property of that name).
    static func stylesheetImagesInView(_ scenario: Scenario, frameOf: [String: String]) -> Set<String> {
        guard let root = scenario.root, root.body == nil else { return [] }
        let stylesheets = Set(scenario.resources.filter { $0.type == .stylesheet }.map(\.id))
        return Set(
            scenario.resources.filter { r in
                guard r.type == .image, let parent = r.parent, stylesheets.contains(parent) else { return false }
                return frameOf[parent] == root.id
            }.map(\.id))
    }

    func isInFlight(_ id: String) -> Bool { requests[id]?.inFlight == true }
    func hasEnded(_ id: String) -> Bool { requests[id]?.ended == true }

    // MARK: What happened

    /// `r` is known now and waits to be sent; false if it was known already.
    @discardableResult
    mutating func discover(_ r: Scenario.Resource) -> Bool {
        guard requests[r.id] == nil else { return false }
        requests[r.id] = Request(order: requests.count + 1)
        pending[r.origin, default: []].append(r.id)
        return true
    }

    /// `id`'s body holds `bodyBytes` bytes (`final`: all of it). Its children that are due and
    /// that the parser has reached are discovered; they are returned in the scenario's order.
    mutating func reveal(childrenOf id: String, bodyBytes: Int64, final: Bool) -> [Scenario.Resource] {
        guard let kids = childrenOf[id], requests[id] != nil else { return [] }
        var found: [Scenario.Resource] = []
        for k in kids where !requests[id]!.revealed.contains(k.id) {
            let due = final || (k.revealAfterBytes.map { bodyBytes >= $0 } ?? false)
            guard due else { continue }
            if waitsForBody(k, in: id) {
                heldForBody.insert(id)
                continue
            }
            guard !waitsForParser(k, in: id) else { continue }
            requests[id]!.revealed.insert(k.id)
            if discover(k) { found.append(k) }
        }
        return found
    }

    /// The first bytes of `id`'s response are in (for the root: the tight mode may end).
    mutating func responseBegan(_ id: String) {
        if id == rootID { rootResponded = true }
    }

    /// `id` ended, or failed for good: it leaves the flight.
    mutating func ended(_ id: String) {
        guard let r = requests[id], !r.ended else { return }
        requests[id]!.inFlight = false
        requests[id]!.ended = true
        endedCount += 1
    }

    /// `id` was lost with its connection at `t`: it waits again, for a connection opened after `t`.
    mutating func lost(_ id: String, at t: Instant) {
        guard requests[id]?.inFlight == true, let r = byID[id] else { return }
        requests[id]!.inFlight = false
        requests[id]!.notBefore = t
        pending[r.origin, default: []].append(id)
    }

    /// What `id`'s end lets go on: the resources whose children the parser held back and may be
    /// due now, each to be revealed again — the root, when `id` is one of its parser-blocking
    /// scripts; the stylesheets whose fonts and images waited for the root's `<body>`
    /// (`waitsForBody`), once the parser has reached it, each only once, in discovery order.
    mutating func resumes(after id: String) -> [String] {
        var out: [String] = []
        if let rootID, let r = byID[id], r.parent == rootID, r.type == .script, r.renderBlocking == true,
            requests[rootID] != nil
        {
            out.append(rootID)
        }
        if !heldForBody.isEmpty && parserReachedBody {
            out += heldForBody.sorted { requests[$0]!.order < requests[$1]!.order }
            heldForBody = []
        }
        return out
    }

    // MARK: What to send

    /// The next request to send now, and on which connection (`status` tells how each open one
    /// stands); nil when nothing more may go until something happens. A caller sends each
    /// decision before asking for the next, so that `status` sees the slot taken.
    mutating func nextSend(now: Instant, status: (Int) -> Status) -> Send? {
        if round == nil { round = Round(origins: originsInDiscoveryOrder(), allowed: delayableAllowance()) }
        while let id = nextCandidate() {
            let origin = round!.origin
            if let allowed = round!.allowed, priority(of: id) < .medium, !allowed.contains(id) { continue }
            guard let (index, opens) = connection(for: id, origin: origin, now: now, status: status) else { continue }
            if bindsLate && opens {
                // Only opened: the next pass starts over, so that the most urgent request waiting
                // takes the first connection that is ready.
                round = nil
                return Send(id: nil, origin: origin, connection: index, opensConnection: true)
            }
            requests[id]!.inFlight = true
            if let i = pending[origin]?.firstIndex(of: id) { pending[origin]!.remove(at: i) }
            return Send(id: id, origin: origin, connection: index, opensConnection: opens)
        }
        round = nil
        return nil
    }

    /// The origins with requests waiting, the one whose waiting request was discovered first
    /// first: as Blink hands requests to the network stack in the order it finds them, and each
    /// origin's first one starts its connection (Chromium 156 on the mobile median page opens the
    /// static origin's, whose stylesheet the HTML names first, before the analytics origin's). A
    /// connection opened first is ready first (the server's handshake flights queue on the link in
    /// that order), and its responses lead.
    private func originsInDiscoveryOrder() -> [String] {
        let first = pending.mapValues { ids in ids.lazy.map { requests[$0]!.order }.min() ?? .max }
        return first.keys.sorted { (first[$0]!, $0) < (first[$1]!, $1) }
    }

    /// The round's next waiting request, moving on to the next origin when one is through.
    private mutating func nextCandidate() -> String? {
        while round!.queue.isEmpty {
            guard round!.nextOrigin < round!.origins.count else { return nil }
            let origin = round!.origins[round!.nextOrigin]
            round!.nextOrigin += 1
            round!.origin = origin
            round!.waiting = 0
            round!.queue = (pending[origin] ?? []).sorted(by: sendsBefore)[...]
        }
        return round!.queue.popFirst()
    }

    /// A connection of `origin` with a free slot (for a lost request: one opened after the loss),
    /// or a new one if the per-origin limit allows (a lost request may exceed it by one). With late
    /// binding only a ready connection takes the request, and a new one is opened only while fewer
    /// are being set up than the origin has requests waiting.
    private mutating func connection(
        for id: String, origin: String, now: Instant,
        status: (Int) -> Status
    ) -> (Int, Bool)? {
        let notBefore = requests[id]!.notBefore
        var open = 0, settingUp = 0
        for (i, c) in connections.enumerated() where c.origin == origin {
            let s = status(i)
            guard s.isUsable else { continue }
            open += 1
            let qualifies = notBefore.map { c.openedAt >= $0 } ?? true
            if bindsLate && !s.isReady {
                if qualifies { settingUp += 1 }
                continue
            }
            if s.freeSlots > 0 && qualifies { return (i, false) }
        }
        if bindsLate {
            round!.waiting += 1
            guard settingUp < round!.waiting else { return nil }
        }
        let limit = maxConnectionsPerOrigin + (notBefore == nil ? 0 : 1)
        guard open < limit, origins.contains(origin) else { return nil }
        connections.append(Connection(origin: origin, openedAt: now))
        return (connections.count - 1, true)
    }

    /// The order requests are sent in: the most urgent first, then the earliest discovered.
    private func sendsBefore(_ a: String, _ b: String) -> Bool {
        let pa = priority(of: a), pb = priority(of: b)
        return pa != pb ? pa > pb : requests[a]!.order < requests[b]!.order
    }

    // MARK: The parser

    /// Whether the parser has reached the root document's `<body>`: the root's first bytes are in
    /// and every render-blocking stylesheet and script of its `<head>` (where the parser waits for
    /// each) has been revealed and has ended. Once true it stays true.
    private mutating func leftTightMode() -> Bool {
        if !bodyReached && parserReachedBody { bodyReached = true }
        return bodyReached
    }

    /// `leftTightMode()` without remembering it.
    private var parserReachedBody: Bool {
        bodyReached || (rootResponded && headBlocking.allSatisfy { requests[$0]?.ended == true })
    }

    /// Whether `k`, due in stylesheet `parent`, waits for the root document's `<body>`: a font or an
    /// image a stylesheet names loads only for an element its rules style (Blink asks for a web font
    /// when layout first sets text in it, for a background image when it styles the element), and
    /// those elements come after the `<head>` — `PageRenderer` writes them right after `<body>`. So
    /// until the parser is past the head's render-blocking stylesheets and scripts they are not
    /// asked for, however early the stylesheet arrived (Chromium 156 on the mobile median page asks
    /// for `css-8`'s font 15–18 ms after the head's last script ends, 350–440 ms after `css-8` ends).
    /// An `@import`ed stylesheet is not held; nor are the stylesheets of frames, whose heads are not
    /// modelled.
    private func waitsForBody(_ k: Scenario.Resource, in parent: String) -> Bool {
        guard k.type != .stylesheet, byID[parent]?.type == .stylesheet, frameOf[parent] == rootID else {
            return false
        }
        return !parserReachedBody
    }

    /// Which of the waiting requests below `net::MEDIUM` may start now (nil: all): the most urgent,
    /// then the earliest discovered, across origins, up to the limit less those in flight — the
    /// tight mode's, then `delayableLimit`. Those allowed but waiting for a connection count too.
    /// With `delayablePerOrigin` (HTTP/1.1), as Chromium's `ResourceScheduler` does per client
    /// (one per frame): after the tight mode `delayableLimit` holds per frame, and a request to an
    /// origin with that many of its client's requests out or allowed is passed over for the next
    /// one (a host at `kMaxNumDelayableRequestsPerHostPerClient` keeps the search going).
    private mutating func delayableAllowance() -> Set<String>? {
        let tight = !leftTightMode()
        guard let limit = tight ? DispatchPolicy.tightModeLimit : delayableLimit else { return nil }
        let waiting = pending.values.joined().filter { priority(of: $0) < .medium }.sorted(by: sendsBefore)
        let perOrigin = delayablePerOrigin ?? .max
        // Blink's tight mode counts the page's requests together; after it each frame is a client.
        let frames = frameOf
        let client: (String) -> String = tight ? { _ in "" } : { frames[$0]! }
        var delayableOut: [String: Int] = [:]
        var out: [String: [String: Int]] = [:]
        // The tight mode's Medium (`net::LOW`) requests in flight: the boosted images.
        var mediumOut = 0
        for (id, r) in requests where r.inFlight {
            let frame = client(id)
            out[frame, default: [:]][byID[id]!.origin, default: 0] += 1
            if priority(of: id) < .medium { delayableOut[frame, default: 0] += 1 }
            if priority(of: id) == .low { mediumOut += 1 }
        }
        var allowed = Set<String>()
        for id in waiting {
            let frame = client(id), origin = byID[id]!.origin
            let medium = tight && priority(of: id) == .low && mediumOut < DispatchPolicy.tightModeMediumLimit
            guard medium || delayableOut[frame, default: 0] < limit, out[frame]?[origin] ?? 0 < perOrigin else {
                continue
            }
            out[frame, default: [:]][origin, default: 0] += 1
            delayableOut[frame, default: 0] += 1
            if priority(of: id) == .low { mediumOut += 1 }
            allowed.insert(id)
        }
        return allowed
    }

    /// Whether `k`, due in `parent`'s body, still waits for the parser: a stylesheet that does not
    /// block rendering is written `media="print"`, which Chromium's preload scanner skips (its media
    /// does not match), so it is asked for only when the parser reaches its tag — after every
    /// parser-blocking script of the root document before it has arrived.
    private func waitsForParser(_ k: Scenario.Resource, in parent: String) -> Bool {
        guard parent == rootID, k.type == .stylesheet, k.renderBlocking == false else { return false }
        let at = k.revealAfterBytes ?? .max
        for s in childrenOf[parent] ?? [] where s.type == .script && s.renderBlocking == true {
            if (s.revealAfterBytes ?? .max) < at && requests[s.id]?.ended != true { return true }
        }
        return false
    }
}
