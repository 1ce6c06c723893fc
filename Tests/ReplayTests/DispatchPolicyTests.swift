import XCTest
import BenchCore
import BenchModel
@testable import Replay

/// `DispatchPolicy` driven in memory on a virtual clock, as the loader drives it: connections are
/// slots (HTTP/1.1 carries one request at a time, HTTP/2 and HTTP/3 many), responses arrive when
/// the test says, and no socket or clock is involved. Connections are ready at once unless
/// `connectsInstantly` is false: then each one is ready when the test calls `connect(_:)`.
struct PolicyDriver {
    struct Connection { var usable = true; var busy = 0; var ready = true }

    var policy: DispatchPolicy
    let multiplexed: Bool
    let byID: [String: Scenario.Resource]
    var now = Instant(nanoseconds: 10_000_000_000)
    var connections: [Connection] = []
    /// The requests sent, in order (connections opened without a request are not among them).
    var sends: [DispatchPolicy.Send] = []
    let connectsInstantly: Bool
    var bodyBytes: [String: Int64] = [:]
    /// Checked on every send: the request was not in flight and has not ended.
    var violations: [String] = []

    init(_ scenario: Scenario, kind: TransportKind, connectsInstantly: Bool = true) {
        policy = .chromium(scenario, kind: kind)
        multiplexed = kind != .h1
        self.connectsInstantly = connectsInstantly
        byID = Dictionary(uniqueKeysWithValues: scenario.resources.map { ($0.id, $0) })
        policy.discover(scenario.root!)
        dispatch()
    }

    var sent: [String] { sends.compactMap(\.id) }
    var inFlight: [String] { byID.keys.filter { policy.isInFlight($0) }.sorted() }
    func connection(of id: String) -> Int? { sends.last { $0.id == id }?.connection }

    mutating func advance(ms: Double) { now = now + .milliseconds(ms) }

    /// Connection `i`'s handshake is through.
    mutating func connect(_ i: Int) {
        connections[i].ready = true
        dispatch()
    }

    /// Sends what the policy lets go: each decision is carried out before the next is asked for.
    mutating func dispatch() {
        while true {
            let conns = connections, multiplexed = multiplexed
            let decision = policy.nextSend(now: now) { i in
                let c = conns[i]
                let free = !c.usable ? 0 : multiplexed ? 1000 : c.busy > 0 ? 0 : 1
                return .init(isUsable: c.usable, freeSlots: free, isReady: c.ready)
            }
            guard let s = decision else { return }
            if s.opensConnection { connections.append(Connection(ready: connectsInstantly)) }
            guard let id = s.id else { continue }
            if sends.contains(where: { $0.id == id }) && !lostSinceSent.contains(id) || policy.hasEnded(id) {
                violations.append(id)
            }
            if !multiplexed && !connections[s.connection].ready {
                violations.append("\(id) before its connection was ready")
            }
            lostSinceSent.remove(id)
            connections[s.connection].busy += 1
            sends.append(s)
        }
    }
    private var lostSinceSent = Set<String>()
    private(set) var lostRequests = 0

    /// `bytes` more body bytes of `id` are in.
    mutating func receive(_ id: String, bytes: Int64) {
        policy.responseBegan(id)
        bodyBytes[id, default: 0] += bytes
        if !policy.reveal(childrenOf: id, bodyBytes: bodyBytes[id]!, final: false).isEmpty { dispatch() }
    }

    /// `id`'s response ends: its remaining bytes are in.
    mutating func finish(_ id: String) {
        bodyBytes[id] = byID[id]!.bytes
        policy.responseBegan(id)
        policy.ended(id)
        if let c = connection(of: id) { connections[c].busy -= 1 }
        _ = policy.reveal(childrenOf: id, bodyBytes: bodyBytes[id]!, final: true)
        let resumed = policy.resumes(after: id)
        if !resumed.isEmpty { dispatch() }
        for parent in resumed {
            let bytes = bodyBytes[parent] ?? 0
            _ = policy.reveal(childrenOf: parent, bodyBytes: bytes, final: policy.hasEnded(parent))
        }
        dispatch()
    }

    /// Connection `i` is lost now with every request on it (as HTTP/2 reports a close: one time
    /// for all); `silently`: it still looks usable (a NAT rebinding).
    mutating func lose(connection i: Int, silently: Bool = false) {
        connections[i].usable = silently
        for id in inFlight where connection(of: id) == i {
            policy.lost(id, at: now)
            lostSinceSent.insert(id)
            connections[i].busy -= 1
            lostRequests += 1
        }
        dispatch()
    }
}

final class DispatchPolicyTests: XCTestCase {
    private func resource(
        _ id: String, _ type: Scenario.ResourceType, at: Int64?, bytes: Int64 = 100,
        blocking: Bool? = nil, origin: String = "o"
    ) -> Scenario.Resource {
        .init(
            id: id, origin: origin, path: "/\(id)", bytes: bytes, type: type, parent: "html",
            revealAfterBytes: at, renderBlocking: blocking)
    }

    private func page(_ children: [Scenario.Resource], origins: [String] = ["o"]) -> Scenario {
        let html = Scenario.Resource(id: "html", origin: origins[0], path: "/", bytes: 10_000, type: .document)
        return Scenario(
            name: "policy", origins: origins.map { .init(id: $0, host: "\($0).test") },
            resources: [html] + children)
    }

    /// A head with a blocking stylesheet and script, then five images.
    private func headAndImages() -> Scenario {
        page(
            [resource("css", .stylesheet, at: 100, blocking: true), resource("js", .script, at: 200, blocking: true)]
                + (1...5).map { resource("img\($0)", .image, at: Int64(1000 * $0)) })
    }

    private func lowInFlight(_ d: PolicyDriver) -> Int {
        d.inFlight.filter { d.policy.priority(of: $0) < .medium }.count
    }

    func testTheTightModeHoldsAtMostTwoRequestsBelowMediumUntilTheHeadIsThrough() {
        var d = PolicyDriver(headAndImages(), kind: .h2)
        XCTAssertEqual(d.sent, ["html"])
        d.receive("html", bytes: 10_000)
        XCTAssertEqual(d.sent, ["html", "css", "js", "img1", "img2"], "the head's resources, then two images")
        XCTAssertEqual(lowInFlight(d), 2)
        d.finish("img1")
        XCTAssertEqual(d.sent.last, "img3", "one image ended, the next one starts")
        XCTAssertEqual(lowInFlight(d), 2)
        d.finish("css")
        XCTAssertEqual(d.sent.count, 6, "the head's script is still out: \(d.sent)")
        d.finish("js")
        XCTAssertEqual(Array(d.sent.suffix(2)), ["img4", "img5"], "the body is reached: every image may go")
        XCTAssertEqual(lowInFlight(d), 4)
        XCTAssertEqual(d.violations, [])
    }

    func testTheTightModeNeverHoldsUrgentRequests() {
        var s = headAndImages()
        s.resources += [resource("font", .font, at: 9_000), resource("api", .xhr, at: 9_500)]
        var d = PolicyDriver(s, kind: .h2)
        d.receive("html", bytes: 10_000)
        XCTAssertEqual(lowInFlight(d), 2)
        XCTAssertTrue(d.sent.contains("font") && d.sent.contains("api"), "highest and medium are not held: \(d.sent)")
        XCTAssertFalse(d.sent.contains("img3"))
    }

    /// The renderer's head ends before the first image: a blocking script after it is in the body
    /// and does not keep the tight mode on.
    func testTheHeadIsTheOneTheRendererWrites() {
        let s = page(
            [
                resource("css", .stylesheet, at: 100, blocking: true), resource("img1", .image, at: 200),
                resource("late", .script, at: 300, blocking: true),
            ]
                + (2...4).map { resource("img\($0)", .image, at: Int64(400 * $0)) })
        XCTAssertEqual(PageRenderer.headResources(of: "html", in: s).map(\.id), ["css"])
        var d = PolicyDriver(s, kind: .h2)
        d.receive("html", bytes: 10_000)
        XCTAssertEqual(d.sent, ["html", "css", "late", "img1", "img2"])
        d.finish("css")
        XCTAssertTrue(d.policy.isInFlight("late"))
        XCTAssertEqual(Array(d.sent.suffix(2)), ["img3", "img4"], "the head is through while `late` is out")
    }

    /// A stylesheet that does not block rendering (`media="print"`) is not preloaded: the parser
    /// asks for it at its tag, after the parser-blocking script before it has arrived.
    func testAParserBlockingScriptDelaysTheStylesheetAfterIt() {
        let s = page([
            resource("css", .stylesheet, at: 100, blocking: true),
            resource("js", .script, at: 200, blocking: true),
            resource("print", .stylesheet, at: 300, blocking: false),
        ])
        var d = PolicyDriver(s, kind: .h2)
        d.receive("html", bytes: 10_000)
        XCTAssertEqual(d.sent, ["html", "css", "js"], "the parser waits for js")
        d.finish("css")
        XCTAssertEqual(d.sent, ["html", "css", "js"])
        d.finish("js")
        XCTAssertEqual(d.sent.last, "print", "the parser moved on")
    }

    /// Without a head to wait for: one dispatch sends every revealed request, most urgent first,
    /// then in discovery order.
    func testRequestsLeaveMostUrgentFirstThenInDiscoveryOrder() {
        let s = page([
            resource("imgA", .image, at: 100), resource("font", .font, at: 200),
            resource("api", .xhr, at: 300),
            resource("async", .script, at: 400, blocking: false),
            resource("print", .stylesheet, at: 500, blocking: false),
            resource("imgB", .image, at: 600), resource("sync", .script, at: 700, blocking: true),
        ])
        var d = PolicyDriver(s, kind: .h2)
        d.receive("html", bytes: 10_000)
        XCTAssertEqual(d.sent, ["html", "font", "api", "sync", "imgA", "async", "imgB", "print"])
        XCTAssertEqual(Set(d.sends.map(\.connection)), [0], "HTTP/2: one connection per origin")
    }

    /// Origins take their turn in the order their first waiting request was found, not by name:
    /// the HTML names `zz`'s stylesheet before `aa`'s script, so `zz`'s connection opens first.
    func testOriginsOpenInTheOrderTheirFirstRequestWasFound() {
        let s = page(
            [
                resource("css", .stylesheet, at: 100, blocking: true, origin: "zz"),
                resource("js", .script, at: 200, blocking: true, origin: "aa"),
                resource("img", .image, at: 300, origin: "mm"),
            ], origins: ["o", "aa", "mm", "zz"])
        var d = PolicyDriver(s, kind: .h2)
        d.receive("html", bytes: 10_000)
        XCTAssertEqual(d.policy.connections.map(\.origin), ["o", "zz", "aa", "mm"])
        XCTAssertEqual(d.sent, ["html", "css", "js", "img"])
    }

    /// A head script's end lets three things go: what the script itself asks for, the parser's next
    /// tags and what layout then needs (a stylesheet's font). Blink runs the script first, so over
    /// HTTP/1.1 its request takes the connection the script freed, although the font is more urgent
    /// (Chromium 156, small page on 4G: the script's child leaves 6 ms after the script ends, the font
    /// 200 ms later on the next free connection).
    func testAScriptsOwnRequestsGoBeforeWhatLayoutFindsAfterIt() {
        var s = page(
            [resource("css", .stylesheet, at: 100, blocking: true), resource("js", .script, at: 200, blocking: true)]
                + (1...5).map { resource("api\($0)", .xhr, at: Int64(300 + $0)) })
        s.resources += [
            .init(id: "font", origin: "o", path: "/font", bytes: 100, type: .font, parent: "css"),
            .init(
                id: "dyn", origin: "o", path: "/dyn", bytes: 100, type: .script, parent: "js",
                renderBlocking: false),
        ]
        var d = PolicyDriver(s, kind: .h1)
        d.finish("html")
        XCTAssertEqual(d.sent, ["html", "css", "js", "api1", "api2", "api3", "api4"], "six connections")
        d.finish("css")
        XCTAssertEqual(d.sent.last, "api5")
        d.finish("js")
        XCTAssertEqual(d.sent.last, "dyn", "the script's own request takes the connection it freed: \(d.sent)")
        XCTAssertFalse(d.sent.contains("font"))
        d.finish("api1")
        XCTAssertEqual(d.sent.last, "font", "then the font, on the next free connection")
        XCTAssertEqual(d.violations, [])
    }

    func testHTTP1UsesAtMostSixConnectionsPerOriginEachOneRequestAtATime() throws {
        let s = page(
            (1...9).map { resource("img\($0)", .image, at: 100, origin: "cdn") }
                + [resource("api", .xhr, at: 100)], origins: ["o", "cdn"])
        var d = PolicyDriver(s, kind: .h1)
        d.finish("html")
        XCTAssertEqual(d.policy.connections.filter { $0.origin == "cdn" }.count, 6)
        XCTAssertEqual(
            d.sent, ["html", "img1", "img2", "img3", "img4", "img5", "img6", "api"],
            "origins in id order, 'cdn' before 'o'; img7 and on wait for a free connection")
        XCTAssertEqual(d.connection(of: "api"), 0, "the root's connection is free again")
        let freed = try XCTUnwrap(d.connection(of: "img2"))
        d.finish("img2")
        XCTAssertEqual(d.sends.last, .init(id: "img7", origin: "cdn", connection: freed, opensConnection: false))
        XCTAssertEqual(d.policy.connections.count, 7)
    }

    /// HTTP/1.1 binds late, as Chromium's socket pool: a request waiting for the handshake of the
    /// connection opened for it goes on a connection of its origin that frees up first, and a
    /// connection that becomes ready serves the most urgent request waiting, not the first discovered.
    func testHTTP1BindsARequestToTheFirstConnectionReadyForIt() {
        let s = page([resource("img", .image, at: 100), resource("css", .stylesheet, at: 200, blocking: true)])
        var d = PolicyDriver(s, kind: .h1, connectsInstantly: false)
        XCTAssertEqual(d.sent, [], "the root waits for its connection's handshake")
        XCTAssertEqual(d.connections.count, 1)
        d.connect(0)
        XCTAssertEqual(d.sends, [.init(id: "html", origin: "o", connection: 0, opensConnection: false)])
        d.receive("html", bytes: 150)
        XCTAssertEqual(d.connections.count, 2, "one connection opened for the image")
        d.receive("html", bytes: 100)
        XCTAssertEqual(d.connections.count, 3, "and one for the stylesheet")
        XCTAssertEqual(d.sent, ["html"])
        d.connect(2)
        XCTAssertEqual(d.sends.last, .init(id: "css", origin: "o", connection: 2, opensConnection: false),
            "the first ready connection serves the most urgent request")
        d.finish("html")
        XCTAssertEqual(d.sends.last, .init(id: "img", origin: "o", connection: 0, opensConnection: false),
            "the root's connection is free before the image's own is ready")
        d.connect(1)
        XCTAssertEqual(d.sent, ["html", "css", "img"], "nothing waits for the last connection")
        XCTAssertEqual(d.violations, [])
    }

    /// At most as many connections are set up as requests wait, and never more than six.
    func testHTTP1OpensNoMoreConnectionsThanRequestsWait() {
        let s = page((1...9).map { resource("img\($0)", .image, at: 100, blocking: nil) })
        var d = PolicyDriver(s, kind: .h1, connectsInstantly: false)
        d.connect(0)
        d.finish("html")
        XCTAssertEqual(d.sent, ["html", "img1"], "the root's connection takes the first image at once")
        XCTAssertEqual(d.connections.count, 6, "five more for the eight waiting, to the limit of six")
        d.finish("img1")
        XCTAssertEqual(d.sent.last, "img2")
        XCTAssertEqual(d.connections.count, 6)
    }

    /// Over HTTP/1.1, after the tight mode, at most ten requests below `net::MEDIUM` are out at once
    /// across all origins (Chromium's `ResourceScheduler`); a more urgent one is never held, and
    /// HTTP/2 holds none.
    func testHTTP1HoldsMoreThanTenDelayableRequestsAcrossOrigins() {
        let images = (1...14).map { resource("img\($0)", .image, at: 100, origin: ["a", "b", "c"][$0 % 3]) }
        let s = page(images + [resource("api", .xhr, at: 100, origin: "a")], origins: ["o", "a", "b", "c"])
        var d = PolicyDriver(s, kind: .h1)
        d.finish("html")
        XCTAssertEqual(lowInFlight(d), 10)
        XCTAssertTrue(d.policy.isInFlight("api"), "the fetch is not delayable")
        let first = d.inFlight.filter { $0.hasPrefix("img") }[0]
        d.finish(first)
        XCTAssertEqual(lowInFlight(d), 10, "one ended, the next one starts")
        XCTAssertEqual(d.sent.filter { $0.hasPrefix("img") }.count, 11)
        var m = PolicyDriver(s, kind: .h2)
        m.finish("html")
        XCTAssertEqual(lowInFlight(m), 14)
    }

    /// A host with six requests out is passed over: its further images do not hold the allowance
    /// that another host's may use (Chromium's `ShouldKeepSearching`).
    func testHTTP1PassesOverAHostWithSixOutForTheNextDelayableRequest() {
        let busy = (1...12).map { resource("a\($0)", .image, at: 100, origin: "a") }
        let other = (1...3).map { resource("b\($0)", .image, at: 200, origin: "b") }
        var d = PolicyDriver(page(busy + other, origins: ["o", "a", "b"]), kind: .h1)
        d.finish("html")
        XCTAssertEqual(d.inFlight.filter { $0.hasPrefix("a") }.count, 6, "six connections to a")
        XCTAssertEqual(Set(d.inFlight.filter { $0.hasPrefix("b") }), ["b1", "b2", "b3"], "b's go beside them")
        XCTAssertEqual(lowInFlight(d), 9)
        d.finish("a1")
        XCTAssertEqual(d.inFlight.filter { $0.hasPrefix("a") }.count, 6, "a's next one takes the freed connection")
        XCTAssertEqual(lowInFlight(d), 9)
    }

    /// Each frame is its own client of Chromium's scheduler: an iframe's images do not wait for
    /// ten of the page's own to end.
    func testHTTP1CountsEachFramesDelayableRequestsApart() {
        let mine = (1...10).map { resource("m\($0)", .image, at: 100, origin: ["a", "b"][$0 % 2]) }
        let frame = resource("frame", .document, at: 100, origin: "f")
        let theirs = (1...4).map {
            Scenario.Resource(
                id: "t\($0)", origin: "g", path: "/t\($0)", bytes: 100, type: .image, parent: "frame",
                revealAfterBytes: 10)
        }
        var d = PolicyDriver(page(mine + [frame] + theirs, origins: ["o", "a", "b", "f", "g"]), kind: .h1)
        d.finish("html")
        XCTAssertEqual(lowInFlight(d), 10)
        d.finish("frame")
        XCTAssertEqual(Set(d.inFlight.filter { $0.hasPrefix("t") }), ["t1", "t2", "t3", "t4"], "\(d.inFlight)")
        XCTAssertEqual(lowInFlight(d), 14)
    }

    /// A request lost with its connection goes only on a connection opened after the loss: after
    /// a NAT rebinding, an older connection that still looks usable is dead.
    func testALostRequestGoesOnlyOnAConnectionOpenedAfterTheLoss() {
        var d = PolicyDriver(page([resource("api", .xhr, at: 100)]), kind: .h2)
        d.advance(ms: 50)
        d.lose(connection: 0, silently: true)
        XCTAssertEqual(d.sends.last, .init(id: "html", origin: "o", connection: 1, opensConnection: true))
        XCTAssertEqual(d.policy.connections.map(\.openedAt), [Instant(nanoseconds: 10_000_000_000), d.now])
        d.receive("html", bytes: 500)
        XCTAssertEqual(
            d.sends.last, .init(id: "api", origin: "o", connection: 0, opensConnection: false),
            "a request that was never lost takes the first usable connection")
    }

    /// Random arrivals, ends and lost connections over a generated page: no request is sent while
    /// in flight or after its end, each is sent once plus once per loss, and the load completes.
    func testARequestIsNeverSentTwice() throws {
        let runs: [(UInt64, TransportKind, Bool)] = [
            (1, .h1, true), (2, .h2, true), (3, .h3, true), (4, .h1, true), (5, .h1, false), (6, .h2, false),
        ]
        for (seed, kind, instantly) in runs {
            let s = try ScenarioGenerator(.init(requests: 60, origins: 4, seed: seed)).generate()
            var d = PolicyDriver(s, kind: kind, connectsInstantly: instantly)
            var rng = SeededRandom(seed: seed)
            var losses = 0
            for _ in 0..<10_000 {
                d.advance(ms: Double(rng.next() % 20))
                if let i = d.connections.indices.first(where: { !d.connections[$0].ready }), rng.next() % 2 == 0 {
                    d.connect(i)
                    continue
                }
                if d.inFlight.isEmpty {
                    guard let i = d.connections.indices.first(where: { !d.connections[$0].ready }) else { break }
                    d.connect(i)
                    continue
                }
                let id = d.inFlight[Int(rng.next() % UInt64(d.inFlight.count))]
                switch rng.next() % 10 {
                case 0 where losses < 5:
                    losses += 1
                    d.lose(connection: d.connection(of: id)!)
                case 1...4: d.receive(id, bytes: max(1, d.byID[id]!.bytes / 4))
                default: d.finish(id)
                }
            }
            XCTAssertEqual(d.violations, [], "seed \(seed)")
            XCTAssertEqual(d.policy.endedCount, s.resources.count, "seed \(seed): the load completes")
            XCTAssertGreaterThan(d.lostRequests, 0, "seed \(seed)")
            XCTAssertEqual(d.sends.count, s.resources.count + d.lostRequests, "seed \(seed): once, and once per loss")
            XCTAssertEqual(Set(d.sent).count, s.resources.count, "seed \(seed): every request was sent")
        }
    }
}
