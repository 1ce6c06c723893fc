import BenchCore
import BenchModel
import Runner

/// When a browser's page load is over.
///
/// A synthetic page (`PageRenderer`'s HTML) references every resource of its scenario, so the load
/// is over when the load event fired and every resource arrived; a resource missing is an error.
/// A real page (every resource's recorded bytes, as `netbench record` writes) decides itself what it
/// loads: a recording holds
/// responses that this load's HTML may never ask for (a script that picks one of two images, a
/// request made after the load event while recording). Its load is over at the load event plus
/// network quiet: no request in flight for `quietPeriod`. Resources never requested are listed in
/// the run (`runs[].notRequested`), not an error; requests outside the recording get 404s, which
/// the server lists (`runs[].server.notFound`).
enum PageCompletion: Equatable, CustomStringConvertible {
    /// The load event and every scenario resource loaded (synthetic pages).
    case everyResource
    /// The load event, then no request in flight for the given time (real pages).
    case networkQuiet(Nanoseconds)

    /// How long the network must stay quiet after the load event on a real page.
    static let quietPeriod: Nanoseconds = .milliseconds(500)

    /// The rule of a scenario: network quiet when every resource's body was recorded. A page whose
    /// own document is written by hand but whose other resources are synthesized (a test page, a HAR
    /// with only some contents) references them all, as a synthetic page does, and keeps that rule.
    static func rule(for scenario: Scenario) -> PageCompletion {
        guard scenario.root?.body != nil, scenario.resources.allSatisfy({ $0.body != nil }) else {
            return .everyResource
        }
        return .networkQuiet(quietPeriod)
    }

    var isRealPage: Bool { self != .everyResource }

    /// Runs `step` until it returns before `deadline`. On a real page network quiet is a matter of
    /// time passing without events, so `step` gets 50 ms slices and is called again when a slice ends
    /// (`isTimeout` tells its time-out from other errors); a synthetic page's step gets the deadline.
    func wait(until deadline: Instant, isTimeout: (any Error) -> Bool, _ step: (Instant) throws -> Void) throws {
        while true {
            let slice = isRealPage ? min(deadline, Instant.now() + .milliseconds(50)) : deadline
            do {
                try step(slice)
                return
            } catch where slice < deadline && isTimeout(error) {}
        }
    }

    var description: String {
        switch self {
        case .everyResource: return "the load event and every scenario resource loaded"
        case .networkQuiet(let q):
            return "the load event, then no request in flight for \(Units.format(q.inMilliseconds, 0)) ms"
        }
    }

    /// The sentence `run --help` shows.
    static let helpText = """
        A browser run (--client chromium|firefox) of a synthetic page ends at the load event once every \
        scenario resource has arrived (a missing one fails the run). A page whose resources all have recorded \
        bytes ('netbench record', import-har with content) runs its real HTML, which decides what it loads: its \
        run ends at the load event plus network quiet (no request in flight for 500 ms); scenario resources it \
        never requested are listed in the run (runs[].notRequested), requests outside the recording are answered \
        404 and listed (runs[].server.notFound), and pltMs is the last byte of the last resource it loaded.
        """
}

/// The requests a page has in flight and when the network last moved, for `PageCompletion`'s
/// network-quiet rule. Fed by request ids as the browser reports them; `now` is passed in.
struct NetworkQuiet {
    private(set) var inFlight = Set<String>()
    private(set) var lastActivity: Instant?

    mutating func started(_ request: String, at now: Instant) {
        inFlight.insert(request)
        lastActivity = now
    }

    /// Something happened that restarts the quiet period (the load event).
    mutating func moved(at now: Instant) { lastActivity = now }

    mutating func ended(_ request: String, at now: Instant) {
        if inFlight.remove(request) != nil { lastActivity = now }
    }

    /// Nothing in flight, and nothing started or ended for `period` before `now`.
    func isQuiet(for period: Nanoseconds, at now: Instant) -> Bool {
        inFlight.isEmpty && (lastActivity.map { now.since($0) >= period } ?? true)
    }

    /// What a real page was still waiting for when its time ran out.
    func pendingSummary(loadEventFired: Bool, _ completion: PageCompletion) -> String {
        let n = inFlight.count
        return (loadEventFired ? "" : "no load event; ")
            + "\(n) request\(n == 1 ? "" : "s") still in flight (\(completion))"
    }
}

extension RunClient {
    /// When a browser run is over, for `run --help`.
    public static var pageCompletionDocumentation: String { PageCompletion.helpText }
}
