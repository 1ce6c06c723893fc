import XCTest
import BenchCore
import Statistics

/// The claim statistic on synthetic pages whose true speedups are known.
final class SpeedupClaimTests: XCTestCase {
    /// Runs of one cell: `median` times multiplicative noise of ±`spread` (deterministic).
    func runs(_ median: Double, _ n: Int, spread: Double, seed: UInt64) -> [Double] {
        var rng = SeededRandom(seed: seed)
        return (0..<n).map { _ in median * (1 + spread * (2 * rng.nextUnit() - 1)) }
    }

    /// `pages` pages × `networks` networks, the candidate `speedup(page)` times faster.
    func cells(
        pages: Int, networks: Int, runsPerCell: Int = 9, spread: Double = 0.05,
        speedup: (Int) -> Double
    ) -> [SpeedupClaim.Cell] {
        var out: [SpeedupClaim.Cell] = []
        for p in 0..<pages {
            for n in 0..<networks {
                let base = 1000.0 * Double(p + 1) * Double(n + 2)
                let s = UInt64(p * 100 + n)
                out.append(
                    .init(
                        page: "p\(p)", network: "n\(n)", baseline: runs(base, runsPerCell, spread: spread, seed: s),
                        candidate: runs(base / speedup(p), runsPerCell, spread: spread, seed: s + 50_000)))
            }
        }
        return out
    }

    func testGeometricMeanOfExactRatios() throws {
        // Constant runs: every ratio is exact, so the point and every replicate are the geometric mean.
        let c = [
            SpeedupClaim.Cell(page: "a", network: "x", baseline: [200, 200], candidate: [100, 100]),
            SpeedupClaim.Cell(page: "b", network: "x", baseline: [100, 100, 100], candidate: [200, 200, 200]),
        ]
        let r = try XCTUnwrap(SpeedupClaim.estimate(c, seed: 1))
        XCTAssertEqual(r.geometricMean, 1, accuracy: 1e-12)  // 2× and ½× cancel: a geometric mean
        XCTAssertEqual(r.cells, 2)
        XCTAssertEqual(r.pages, 2)
        // Resampling pages gives 2, 1 or ½ (both pages of one kind, or one of each).
        XCTAssertEqual(r.interval.low, 0.5, accuracy: 1e-12)
        XCTAssertEqual(r.interval.high, 2, accuracy: 1e-12)
    }

    func testAClearSpeedupIsConfirmedAndTheIntervalCoversIt() throws {
        let c = cells(pages: 5, networks: 2) { 1.30 + 0.02 * Double($0) }  // 1.30 … 1.38
        let r = try XCTUnwrap(SpeedupClaim.estimate(c, seed: 7))
        XCTAssertEqual(r.geometricMean, 1.34, accuracy: 0.03)
        XCTAssertTrue(r.interval.contains(r.geometricMean))
        XCTAssertLessThan(r.interval.high - r.interval.low, 0.12)
        XCTAssertEqual(SpeedupClaim.verdict(r.interval, minSpeedup: 1.15), .confirmed)
        XCTAssertEqual(SpeedupClaim.verdict(r.interval, minSpeedup: 1.60), .refuted)
    }

    func testNoSpeedupRefutesAFifteenPercentClaim() throws {
        let c = cells(pages: 5, networks: 3) { _ in 1.0 }
        let r = try XCTUnwrap(SpeedupClaim.estimate(c, seed: 3))
        XCTAssertEqual(r.geometricMean, 1, accuracy: 0.03)
        XCTAssertLessThan(r.interval.high, 1.1)
        XCTAssertEqual(SpeedupClaim.verdict(r.interval, minSpeedup: 1.15), .refuted)
    }

    func testPagesThatDisagreeLeaveTheClaimUndecided() throws {
        // Half the pages 1.6× faster, half 0.9×: the geometric mean is near 1.2 but the pages spread widely.
        let c = cells(pages: 4, networks: 2) { $0 % 2 == 0 ? 1.6 : 0.9 }
        let r = try XCTUnwrap(SpeedupClaim.estimate(c, seed: 11))
        XCTAssertEqual(r.geometricMean, (1.6 * 0.9).squareRoot(), accuracy: 0.03)
        XCTAssertLessThan(r.interval.low, 1.15)
        XCTAssertGreaterThan(r.interval.high, 1.15)
        XCTAssertEqual(SpeedupClaim.verdict(r.interval, minSpeedup: 1.15), .undecided)
    }

    func testRunNoiseWidensTheIntervalOfASinglePage() throws {
        let quiet = try XCTUnwrap(
            SpeedupClaim.estimate(cells(pages: 1, networks: 1, spread: 0.01) { _ in 1.2 }, seed: 5))
        let noisy = try XCTUnwrap(
            SpeedupClaim.estimate(cells(pages: 1, networks: 1, spread: 0.30) { _ in 1.2 }, seed: 5))
        XCTAssertEqual(quiet.pages, 1)
        XCTAssertGreaterThan(noisy.interval.high - noisy.interval.low, 3 * (quiet.interval.high - quiet.interval.low))
        XCTAssertTrue(quiet.interval.contains(1.2))
    }

    func testCellsWithoutBothSidesAreLeftOutAndTheSeedReproduces() throws {
        var c = cells(pages: 3, networks: 1) { _ in 1.25 }
        c.append(.init(page: "p9", network: "n0", baseline: [100, 110], candidate: []))
        let a = try XCTUnwrap(SpeedupClaim.estimate(c, seed: 42))
        XCTAssertEqual(a.cells, 3)
        XCTAssertEqual(a.pages, 3)
        XCTAssertEqual(a, SpeedupClaim.estimate(c, seed: 42))
        XCTAssertNil(SpeedupClaim.estimate([.init(page: "x", network: "y", baseline: [], candidate: [1])], seed: 1))
    }

    /// Pages whose speedups spread across the claim (1.0…1.4, exact runs): no run noise is left to
    /// remove, so the pages-only interval equals the two-level one and holds 1.15: more runs cannot
    /// decide the claim, only more pages.
    func testPagesSpreadAcrossTheClaimCannotBeDecidedByMoreRuns() throws {
        let c = (0..<5).map { p in
            SpeedupClaim.Cell(
                page: "p\(p)", network: "n", baseline: [1000, 1000, 1000],
                candidate: Array(repeating: 1000 / (1.0 + 0.1 * Double(p)), count: 3))
        }
        let r = try XCTUnwrap(SpeedupClaim.estimate(c, seed: 3))
        let pagesOnly = try XCTUnwrap(r.pagesOnly)
        XCTAssertEqual(SpeedupClaim.verdict(r.interval, minSpeedup: 1.15), .undecided)
        XCTAssertEqual(pagesOnly.low, r.interval.low, accuracy: 1e-9)
        XCTAssertEqual(pagesOnly.high, r.interval.high, accuracy: 1e-9)
        XCTAssertFalse(r.runsCanDecide(minSpeedup: 1.15))
        XCTAssertTrue(r.runsCanDecide(minSpeedup: 1.5), "1.5 lies above every page's ratio")
    }

    /// Pages that agree (1.30…1.34) but whose runs scatter (one run in five 3× slow, one 2× fast): the
    /// resampled medians wander, so the two-level interval holds 1.25, while the pages alone lie above
    /// it: more runs may decide.
    func testRunNoiseAloneLeavesTheClaimToMoreRuns() throws {
        let c = (0..<5).map { p -> SpeedupClaim.Cell in
            let s = 1.30 + 0.01 * Double(p)
            return SpeedupClaim.Cell(
                page: "p\(p)", network: "n", baseline: [1000, 1000, 1000, 3000, 500],
                candidate: [1000 / s, 1000 / s, 1000 / s, 3000 / s, 500 / s].reversed())
        }
        let r = try XCTUnwrap(SpeedupClaim.estimate(c, seed: 9))
        let pagesOnly = try XCTUnwrap(r.pagesOnly)
        XCTAssertEqual(SpeedupClaim.verdict(r.interval, minSpeedup: 1.25), .undecided)
        XCTAssertGreaterThan(pagesOnly.low, 1.25)
        XCTAssertTrue(r.runsCanDecide(minSpeedup: 1.25))
        XCTAssertNil(try XCTUnwrap(SpeedupClaim.estimate([c[0]], seed: 1)).pagesOnly, "one page: nothing to resample")
    }
}
