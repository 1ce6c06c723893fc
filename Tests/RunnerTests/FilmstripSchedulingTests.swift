import XCTest
import BenchCore
import BenchModel
import Transport
@testable import Runner

/// `run --filmstrip`: after a block's measured runs, one more load per browser cell that captures
/// frames; it goes to the filmstrips, never into the runs or their statistics.
final class FilmstripSchedulingTests: XCTestCase {
    final class Factory: PageExecutorFactory {
        var specs: [RunSpec] = []
        func makeExecutor(profile: Profile, profileIndex: Int) throws -> PageExecutor {
            Executor(factory: self, profile: profile)
        }
        func idealPltMs(profile: Profile, scenarioIndex: Int, transport: TransportKind) -> Double? { nil }
    }

    final class Executor: PageExecutor {
        let factory: Factory, profile: Profile
        init(factory: Factory, profile: Profile) { self.factory = factory; self.profile = profile }
        var hasPathEvents: Bool { false }
        func execute(_ run: RunSpec, register: (StopFlag?) -> Void) -> RunRecord {
            factory.specs.append(run)
            var r = RunRecord(
                scenario: "s\(run.scenarioIndex)", profile: profile.name, transport: run.transport,
                index: max(run.index, 0), status: .ok)
            r.metrics.pltMs = 100
            r.metrics.firstContentfulPaintMs = 40
            if run.filmstrip {
                r.frames = [FilmstripRecord.Frame(ms: 0, jpeg: "AA=="), FilmstripRecord.Frame(ms: 40, jpeg: "BB==")]
            }
            return r
        }
        func close() {}
    }

    func testOneFilmstripLoadPerBrowserCellAfterTheMeasuredRuns() throws {
        var request = try Plans.request(profiles: ["a", "b"], transports: [.h2, .h3], runs: 2)
        request.pageLoads.clients = [.builtin, .chromium]
        request.pageLoads.filmstrip = true
        let factory = Factory()
        var scheduler = Scheduler(
            request: request, factory: factory,
            runner: BenchmarkRunner(
                request: request, netbenchVersion: "test",
                executors: factory))
        var runs: [RunRecord] = [], strips: [FilmstripRecord] = []
        let observer = CollectingObserver()
        try scheduler.run(observer: observer, emit: { runs.append($0) }, filmstrip: { strips.append($0) })
        XCTAssertEqual(runs.count, 2 * 2 * 2 * 2, "the measured runs only")
        XCTAssertTrue(runs.allSatisfy { $0.frames == nil })
        XCTAssertEqual(
            strips.map { "\($0.profile) \($0.transport.rawValue) \($0.client.rawValue)" },
            ["a h2 chromium", "a h3 chromium", "b h2 chromium", "b h3 chromium"])
        XCTAssertEqual(strips[0].frames.map(\.ms), [0, 40])
        XCTAssertEqual(strips[0].firstContentfulPaintMs, 40)
        // Each block: its 8 measured runs, then its 2 filmstrip loads (browser cells only).
        XCTAssertEqual(
            factory.specs.map(\.filmstrip),
            Array(repeating: false, count: 8) + [true, true] + Array(repeating: false, count: 8) + [true, true])
        XCTAssertTrue(factory.specs.filter(\.filmstrip).allSatisfy { $0.client == .chromium })
        XCTAssertEqual(observer.notices.filter { $0.hasPrefix("filmstrip ") }.count, 4)
    }

    func testNoFilmstripUnlessAsked() throws {
        var request = try Plans.request(transports: [.h2], runs: 1)
        request.pageLoads.clients = [.chromium]
        let factory = Factory()
        var scheduler = Scheduler(
            request: request, factory: factory,
            runner: BenchmarkRunner(
                request: request, netbenchVersion: "test",
                executors: factory))
        var strips: [FilmstripRecord] = []
        try scheduler.run(observer: CollectingObserver(), emit: { _ in }, filmstrip: { strips.append($0) })
        XCTAssertEqual(strips.count, 0)
        XCTAssertEqual(factory.specs.count, 1)
    }
}
