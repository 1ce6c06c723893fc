import XCTest
import Statistics

final class InferenceTests: XCTestCase {
    func testMannWhitneyMatchesSciPy() throws {
        let ref = try Reference.load()
        for p in ref.pairs {
            let r = try XCTUnwrap(MannWhitney.test(ref.sample(p.a).values, ref.sample(p.b).values))
            XCTAssertEqual(r.u, p.u, accuracy: 1e-9, "\(p.a) vs \(p.b)")
            XCTAssertEqual(r.pValue, p.p, accuracy: 1e-12 + 1e-9 * p.p, "\(p.a) vs \(p.b)")
        }
    }

    func testBootstrapMedianCIMatchesTheBootstrapDistribution() throws {
        for s in try Reference.load().samples {
            let ci = try XCTUnwrap(Bootstrap.medianCI(s.values, seed: 12345))
            XCTAssertEqual(ci.low, s.medianCI.low, accuracy: s.medianCI.lowTolerance + 1e-12, s.name)
            XCTAssertEqual(ci.high, s.medianCI.high, accuracy: s.medianCI.highTolerance + 1e-12, s.name)
        }
    }

    func testBootstrapRelativeDifferenceCIMatchesTheBootstrapDistribution() throws {
        let ref = try Reference.load()
        for p in ref.pairs {
            let (a, b) = (ref.sample(p.a).values, ref.sample(p.b).values)
            let c = try XCTUnwrap(Comparison(baseline: a, candidate: b, seed: 99))
            let ci = try XCTUnwrap(c.interval)
            XCTAssertEqual(try XCTUnwrap(c.relativeChange), p.relativeChange, accuracy: 1e-12, "\(p.a) vs \(p.b)")
            XCTAssertEqual(ci.low, p.relativeCI.low, accuracy: p.relativeCI.lowTolerance + 1e-12, "\(p.a) vs \(p.b)")
            XCTAssertEqual(ci.high, p.relativeCI.high, accuracy: p.relativeCI.highTolerance + 1e-12, "\(p.a) vs \(p.b)")
        }
    }

    func testBootstrapIsReproducibleFromItsSeed() throws {
        let ref = try Reference.load()
        let xs = ref.sample("lognormal31").values
        let ys = ref.sample("even100").values
        XCTAssertEqual(Bootstrap.medianCI(xs, seed: 1), Bootstrap.medianCI(xs, seed: 1))
        // The ratio of two resampled medians takes many values: another seed gives another interval.
        XCTAssertEqual(
            Bootstrap.relativeDifferenceOfMediansCI(baseline: xs, candidate: ys, seed: 1),
            Bootstrap.relativeDifferenceOfMediansCI(baseline: xs, candidate: ys, seed: 1))
        XCTAssertNotEqual(
            Bootstrap.relativeDifferenceOfMediansCI(baseline: xs, candidate: ys, seed: 1),
            Bootstrap.relativeDifferenceOfMediansCI(baseline: xs, candidate: ys, seed: 2))
        XCTAssertEqual(Bootstrap.seed(3, ["a", "b"]), Bootstrap.seed(3, ["a", "b"]))
        XCTAssertNotEqual(Bootstrap.seed(3, ["ab", ""]), Bootstrap.seed(3, ["a", "b"]))
    }

    func testVerdicts() throws {
        let ref = try Reference.load()
        let a = ref.sample("normal30").values
        let slower = try XCTUnwrap(Comparison(baseline: a, candidate: ref.sample("normal30Shifted").values, seed: 5))
        XCTAssertEqual(slower.verdict(higherIsBetter: false), .worse)
        XCTAssertEqual(slower.verdict(higherIsBetter: true), .better)
        XCTAssertTrue(slower.isRegression(beyond: 0.02, higherIsBetter: false))
        XCTAssertFalse(slower.isRegression(beyond: 0.30, higherIsBetter: false))
        let same = try XCTUnwrap(Comparison(baseline: a, candidate: ref.sample("normal30Same").values, seed: 5))
        XCTAssertEqual(same.verdict(higherIsBetter: false), .noSignificantChange)
        XCTAssertFalse(same.isRegression(beyond: 0, higherIsBetter: false))
        // A significant change entirely within the noise band is no change.
        let tiny = try XCTUnwrap(Comparison(baseline: a, candidate: a.map { $0 * 1.01 + 0.001 }, seed: 5))
        XCTAssertEqual(tiny.verdict(higherIsBetter: false, noise: 0.5), .noSignificantChange)
    }
}
