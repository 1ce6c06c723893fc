import Foundation
import BenchCore
import BenchModel
import Statistics
import Transport

/// `--runs auto`: each cell (scenario × profile × transport × client) runs until the 95% confidence
/// interval of its median PLT (order statistics, `MedianConfidence`) lies within ±`precision` of the
/// median, at least `minRuns` and at most `maxRuns` times; `budget` stops starting new rounds.
public struct AdaptiveRuns: Sendable, Hashable {
    public var precision: Double
    public var minRuns: Int
    public var maxRuns: Int
    public var budget: Nanoseconds?
    public var level: Double

    public init(
        precision: Double = 0.02, minRuns: Int = 5, maxRuns: Int = 30, budget: Nanoseconds? = nil, level: Double = 0.95
    ) {
        self.precision = precision; self.minRuns = minRuns; self.maxRuns = max(maxRuns, minRuns)
        self.budget = budget; self.level = level
    }

    /// Whether a cell that made `attempts` counted runs, with these successful PLTs, needs no more.
    public func isSettled(pltMs: [Double], attempts: Int) -> Bool {
        if attempts >= maxRuns { return true }
        guard attempts >= minRuns, pltMs.count >= minRuns,
            let ci = MedianConfidence.interval(pltMs, level: level)
        else { return false }
        return ci.relativeHalfWidth <= precision
    }
}

/// Decides what runs when: profile blocks in order; in a block, the warm-ups of every cell that has
/// runs left, then round after round the cells interleaved (scenario, transport, client), so slow
/// drift of the machine hits every transport alike. Each run with network events is followed by its
/// baseline without them. Skips other shards' runs and runs already finished (resume); stops
/// between runs when cancelled (an interrupted run is not kept); hands each run on as it ends.
struct Scheduler {
    struct Cell: Hashable { var scenario: Int; var profile: Int; var transport: TransportKind; var client: RunClient }
    struct RunKey: Hashable { var cell: Cell; var index: Int }

    let request: RunRequest
    let factory: PageExecutorFactory
    let runner: BenchmarkRunner
    let host = BenchmarkRunner.hostInfo()
    private var finished: Set<RunKey> = []
    private var attempts: [Cell: Int] = [:]
    private var samples: [Cell: [Double]] = [:]
    private var remaining: [Cell: Int] = [:]
    /// Wall time of each cell's runs (baseline included), seconds: sum and count.
    private var durations: [Cell: (sum: Double, count: Int)] = [:]
    /// Per client, the wall time of its measured runs against their ideal page loads, seconds: a run
    /// takes longer than its ideal (a browser starts, a testbed is set up), and a cell not yet run is
    /// estimated at its ideal times that ratio.
    private var idealScale: [RunClient: (wall: Double, ideal: Double)] = [:]
    private var position = 0
    /// Warm-up runs not yet made of each cell of the current block.
    private var warmupsLeft: [Cell: Int] = [:]
    private var currentProfile = 0
    private let started = Date()

    init(request: RunRequest, factory: PageExecutorFactory, runner: BenchmarkRunner) {
        self.request = request
        self.factory = factory
        self.runner = runner
        let scenarioIndex = Dictionary(
            request.scenarios.enumerated().map { ($1.scenario.name, $0) }, uniquingKeysWith: { a, _ in a })
        let profileIndex = Dictionary(
            request.profiles.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        for r in request.finishedRuns where r.warmup != true {
            guard let s = scenarioIndex[r.scenario], let p = profileIndex[r.profile] else { continue }
            let cell = Cell(scenario: s, profile: p, transport: r.transport, client: r.client ?? .builtin)
            guard finished.insert(RunKey(cell: cell, index: r.index)).inserted else { continue }
            count(cell, r)
        }
        for cell in allCells() { remaining[cell] = initialRemaining(cell) }
    }

    var rounds: Int { request.adaptive?.maxRuns ?? request.runs }

    func owns(scenario s: Int, profile p: Int, round: Int) -> Bool {
        guard let shard = request.shard else { return true }
        let blocks = request.scenarios.count * request.profiles.count
        // Adaptive cells decide their run count where the whole block runs: shards get whole blocks.
        if request.adaptive != nil {
            return shard.owns(block: p * request.scenarios.count + s, run: 0, blocks: blocks, runs: 1)
        }
        return shard.owns(block: p * request.scenarios.count + s, run: round, blocks: blocks, runs: request.runs)
    }

    func allCells() -> [Cell] {
        var out: [Cell] = []
        let (profiles, scenarios) = (request.profiles.indices, request.scenarios.indices)
        for p in profiles {
            for s in scenarios {
                for t in request.transports {
                    for c in request.pageLoads.clients {
                        out.append(Cell(scenario: s, profile: p, transport: t, client: c))
                    }
                }
            }
        }
        return out
    }

    private func initialRemaining(_ cell: Cell) -> Int {
        if let a = request.adaptive {
            guard owns(scenario: cell.scenario, profile: cell.profile, round: 0) else { return 0 }
            let done = attempts[cell] ?? 0
            return a.isSettled(pltMs: samples[cell] ?? [], attempts: done) ? 0 : a.maxRuns - done
        }
        return (0..<request.runs).filter {
            owns(scenario: cell.scenario, profile: cell.profile, round: $0)
                && !finished.contains(RunKey(cell: cell, index: $0))
        }.count
    }

    private func isPending(_ cell: Cell, round: Int) -> Bool {
        guard owns(scenario: cell.scenario, profile: cell.profile, round: round),
            !finished.contains(RunKey(cell: cell, index: round))
        else { return false }
        if let a = request.adaptive { return !a.isSettled(pltMs: samples[cell] ?? [], attempts: attempts[cell] ?? 0) }
        return true
    }

    private mutating func count(_ cell: Cell, _ r: RunRecord) {
        attempts[cell, default: 0] += 1
        if r.status == .ok, let plt = r.metrics.pltMs { samples[cell, default: []].append(plt) }
    }

    /// The runs still to make of each cell: counted runs, plus warm-ups (of the current block's cells
    /// as they stand, of a later block's cells all of them).
    private func runsLeft(_ cell: Cell, counted left: Int) -> Int {
        guard left > 0 else { return 0 }
        let warmups =
            cell.profile > currentProfile
            ? request.warmupRuns : cell.profile == currentProfile ? warmupsLeft[cell] ?? 0 : 0
        return left + warmups
    }

    private func remainingCount() -> Int {
        remaining.reduce(0) { $0 + runsLeft($1.key, counted: $1.value) }
    }

    /// Seconds for the remaining runs (warm-ups included): each cell's own mean run time, or its
    /// ideal page load before it ran; nil when a cell has neither. Under `--runs auto` an unsettled
    /// cell counts up to `--max-runs`, and the whole is capped by what `--budget` leaves plus one
    /// round of the current block: an upper bound that narrows as cells stop.
    private func eta() -> Double? {
        var total = 0.0, round = 0.0
        for (cell, left) in remaining where left > 0 {
            guard let perRun = secondsPerRun(cell) else { return nil }
            total += perRun * Double(runsLeft(cell, counted: left))
            if cell.profile == currentProfile { round += perRun }
        }
        if let budget = request.adaptive?.budget {
            let left = max(0, Double(budget) / 1e9 - Date().timeIntervalSince(started))
            total = min(total, left + round)
        }
        return total
    }

    /// A cell's mean run time so far, or its ideal page load (twice with a migration baseline) times
    /// what the same client's measured runs took against their ideals (never less than the ideal).
    private func secondsPerRun(_ cell: Cell) -> Double? {
        if let d = durations[cell], d.count > 0 { return d.sum / Double(d.count) }
        guard let ideal = idealSeconds(cell) else { return nil }
        guard let s = idealScale[cell.client], s.ideal > 0 else { return ideal }
        return ideal * max(1, s.wall / s.ideal)
    }

    private func idealSeconds(_ cell: Cell) -> Double? {
        let profile = request.profiles[cell.profile]
        guard
            let ideal = factory.idealPltMs(
                profile: profile, scenarioIndex: cell.scenario,
                transport: cell.transport)
        else { return nil }
        return ideal / 1000 * (profile.hasPathEvents ? 2 : 1)
    }

    /// Runs the plan's share; returns early (without error) when cancelled.
    mutating func run(
        observer: RunObserver, emit: (RunRecord) throws -> Void,
        filmstrip: (FilmstripRecord) -> Void = { _ in }
    ) throws {
        if let shard = request.shard, remaining.values.allSatisfy({ $0 == 0 }), request.finishedRuns.isEmpty {
            let blocks = request.scenarios.count * request.profiles.count
            observer.notice(
                "shard \(shard) has no runs: the plan has \(blocks) scenario × profile block(s)"
                    + (request.adaptive != nil
                        ? " and --runs auto shards whole blocks only" : " of \(request.runs) run(s)"))
        }
        for (pi, profile) in request.profiles.enumerated() {
            if runner.isCancelled { return }
            let cells = allCells().filter { $0.profile == pi && (remaining[$0] ?? 0) > 0 }
            if cells.isEmpty { continue }
            let executor = try factory.makeExecutor(profile: profile, profileIndex: pi)
            defer { executor.close() }
            observer.blockStarting(
                profile: profile, runs: cells.count * request.warmupRuns + cells.reduce(0) { $0 + remaining[$1]! })
            currentProfile = pi
            warmupsLeft = Dictionary(uniqueKeysWithValues: cells.map { ($0, request.warmupRuns) })
            for w in 0..<request.warmupRuns {
                for cell in cells {
                    warmupsLeft[cell, default: 1] -= 1
                    guard try runOne(executor, cell, index: -(request.warmupRuns - w), observer: observer, emit: emit)
                    else { return }
                }
            }
            for round in 0..<rounds {
                if let budget = request.adaptive?.budget, Date().timeIntervalSince(started) * 1e9 >= Double(budget) {
                    observer.notice("--budget reached: no new rounds started")
                    return
                }
                for cell in cells where isPending(cell, round: round) {
                    guard try runOne(executor, cell, index: round, observer: observer, emit: emit) else { return }
                }
            }
            if request.pageLoads.filmstrip {
                for cell in cells where cell.client == .chromium {
                    if runner.isCancelled { return }
                    filmstrip(filmstripRun(executor, cell, observer: observer))
                }
            }
        }
    }

    /// One more browser load of the cell, capturing its frames; it enters no statistics.
    private func filmstripRun(_ executor: PageExecutor, _ cell: Cell, observer: RunObserver) -> FilmstripRecord {
        let scenario = request.scenarios[cell.scenario].scenario.name, profile = request.profiles[cell.profile].name
        var spec = RunSpec(
            scenarioIndex: cell.scenario, transport: cell.transport, index: 0, client: cell.client,
            timeout: request.pageLoads.timeout)
        spec.filmstrip = true
        let runner = self.runner
        let r = executor.execute(spec) { flag in
            runner.currentLoop.withLock { $0 = flag }
            if flag != nil && runner.isCancelled { flag?.set() }
        }
        var f = FilmstripRecord(
            scenario: scenario, profile: profile, transport: cell.transport, client: cell.client, frames: r.frames ?? []
        )
        f.firstContentfulPaintMs = r.metrics.firstContentfulPaintMs
        f.largestContentfulPaintMs = r.metrics.largestContentfulPaintMs
        f.loadEventMs = r.metrics.loadEventMs
        if r.status != .ok {
            f.error = r.error ?? "failed"
        } else if f.frames.isEmpty {
            f.error = "the browser sent no frames"
        }
        observer.notice(
            "filmstrip \(scenario) · \(profile) · \(cell.transport.rawValue): "
                + (f.error.map { "failed: \($0)" } ?? "\(f.frames.count) frames"))
        return f
    }

    /// What an adaptive cell reached when it stopped.
    private func precisionNote(_ cell: Cell, _ a: AdaptiveRuns) -> String {
        let name =
            "\(request.scenarios[cell.scenario].scenario.name) · \(request.profiles[cell.profile].name) · "
                + "\(cell.transport.rawValue)"
        let n = attempts[cell] ?? 0
        guard let ci = MedianConfidence.interval(samples[cell] ?? [], level: a.level) else {
            return
                "\(name): stopped after \(n) run(s) (--max-runs) with no \(Int(a.level * 100))% interval of the median "
                    + "(\((samples[cell] ?? []).count) successful)"
        }
        let pct = { (x: Double) in String(format: "%.1f%%", x * 100) }
        let reason =
            ci.relativeHalfWidth <= a.precision
            ? "within ±\(pct(a.precision))" : "not within ±\(pct(a.precision)): --max-runs reached"
        return
            "\(name): median PLT \(String(format: "%.1f", ci.median)) ms, \(pct(ci.coverage)) CI "
                + "[\(String(format: "%.1f", ci.low)), \(String(format: "%.1f", ci.high))] = "
                + "±\(pct(ci.relativeHalfWidth)) after \(n) run(s), \(reason)"
    }

    /// One run (and its migration baseline); false when cancelled, the run then not kept.
    private mutating func runOne(
        _ executor: PageExecutor, _ cell: Cell, index: Int, observer: RunObserver,
        emit: (RunRecord) throws -> Void
    ) throws -> Bool {
        let scenario = request.scenarios[cell.scenario].scenario
        let profile = request.profiles[cell.profile]
        position += 1
        let total = position + remainingCount() - (index >= 0 ? 1 : 0)  // the run starting is counted in position
        let who = request.pageLoads.clients == [.builtin] ? "" : "\(cell.client.rawValue) · "
        let what =
            index < 0 ? "warm-up" : (request.adaptive != nil ? "run \(index + 1)" : "run \(index + 1)/\(request.runs)")
        observer.runStarting(
            position: position, total: total,
            label: "\(scenario.name) · \(profile.name) · \(who)\(cell.transport.rawValue) · \(what)")
        let t0 = Date()
        var spec = RunSpec(
            scenarioIndex: cell.scenario, transport: cell.transport, index: index, client: cell.client,
            timeout: request.pageLoads.timeout)
        let runner = self.runner
        let register: (StopFlag?) -> Void = { flag in
            runner.currentLoop.withLock { $0 = flag }
            if flag != nil && runner.isCancelled { flag?.set() }
        }
        var record = executor.execute(spec, register: register)
        if runner.isCancelled { return false }
        if executor.hasPathEvents, record.status == .ok {
            // The same load without the event, right after, for comparison.
            spec.withEvents = false
            let baseline = executor.execute(spec, register: register)
            if runner.isCancelled { return false }
            record.metrics.migration?.baselinePltMs = baseline.status == .ok ? baseline.metrics.pltMs : nil
        }
        record.startedAt = record.startedAt ?? BenchmarkRunner.utcTimestamp()
        record.host = record.host ?? host
        if record.client == nil { record.client = cell.client }
        try emit(record)
        let d = durations[cell] ?? (0, 0), wall = Date().timeIntervalSince(t0)
        durations[cell] = (d.sum + wall, d.count + 1)
        if let ideal = idealSeconds(cell) {
            let s = idealScale[cell.client] ?? (0, 0)
            idealScale[cell.client] = (s.wall + wall, s.ideal + ideal)
        }
        if index >= 0 {
            finished.insert(RunKey(cell: cell, index: index))
            count(cell, record)
            if let a = request.adaptive {
                let settled = a.isSettled(pltMs: samples[cell] ?? [], attempts: attempts[cell] ?? 0)
                remaining[cell] = settled ? 0 : a.maxRuns - (attempts[cell] ?? 0)
                if settled { observer.notice(precisionNote(cell, a)) }
            } else {
                remaining[cell] = max((remaining[cell] ?? 1) - 1, 0)
            }
        }
        observer.runFinished(position: position, total: total, record: record)
        let open = request.adaptive != nil && remaining.values.contains { $0 > 0 }
        observer.progress(
            RunProgress(
                position: position, total: position + remainingCount(), etaSeconds: eta(),
                isUpperBound: open))
        return true
    }
}
