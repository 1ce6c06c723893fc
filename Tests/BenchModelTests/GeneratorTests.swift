import Foundation
import XCTest
import BenchCore
@testable import BenchModel

/// The generator against the figures it is fitted to (HTTP Archive, Web Almanac 2024), over many
/// seeds, and its promises: valid pages, depth ≥ 3, the same JSON for the same seed.
final class GeneratorTests: XCTestCase {
    typealias ResourceType = Scenario.ResourceType
    /// 1,000 pages per distribution: the median of a log-normal with σ ≈ 1.5 (image bytes) has a
    /// sampling error of ~6% at this size (~13% at 200), so the tolerances below are ~3 standard errors.
    static let seeds: [UInt64] = Array(1...1000)

    /// 200 free pages of a distribution (nothing fixed but the seed), generated once per class.
    nonisolated(unsafe) static var cache: [String: [Scenario]] = [:]
    func pages(_ d: PageDistribution) throws -> [Scenario] {
        if let p = Self.cache[d.name] { return p }
        let p = try Self.seeds.map {
            try ScenarioGenerator(.init(name: "g\($0)", distribution: d, seed: $0)).generate()
        }
        Self.cache[d.name] = p
        return p
    }

    func testRequestsPerPageMatchPercentiles() throws {
        for d in PageDistribution.all {
            let n = try pages(d).map { Double($0.resources.count) }
            for q in d.requestQuantiles {
                let got = percentile(n, q.probability)
                // Sampling error of a percentile from 1,000 draws: ~4% at the median, ~8% at the tails.
                let tolerance = q.probability == 0.5 ? 0.08 : 0.15
                XCTAssertEqual(got, q.value, accuracy: q.value * tolerance, "\(d.name) p\(Int(q.probability * 100))")
            }
        }
    }

    func testMedianBytesPerTypeMatchHTTPArchive() throws {
        for d in PageDistribution.all {
            let ps = try pages(d)
            for t: ResourceType in [.document, .stylesheet, .script, .font, .image] {
                let bytes = ps.map { p in Double(p.resources.filter { $0.type == t }.reduce(Int64(0)) { $0 + $1.bytes })
                }
                let want = d.medianBytes[t]!
                XCTAssertEqual(median(bytes), want, accuracy: want * 0.2, "\(d.name) median \(t.rawValue) bytes")
            }
            let totals = ps.map { Double($0.totalBytes) }
            XCTAssertEqual(
                median(totals), d.medianPageBytes, accuracy: d.medianPageBytes * 0.12, "\(d.name) median page weight")
        }
    }

    func testMedianRequestMixMatchesHTTPArchive() throws {
        for d in PageDistribution.all {
            let ps = try pages(d)
            for t: ResourceType in [.stylesheet, .script, .font, .image] {
                let counts = ps.map { p in Double(p.resources.filter { $0.type == t }.count) }
                let want = d.medianCount[t]!
                XCTAssertEqual(
                    median(counts), want, accuracy: max(1.5, want * 0.2), "\(d.name) median \(t.rawValue) requests")
            }
        }
    }

    func testThirdParties() throws {
        let ps = try pages(.mobile2024)
        var withThird = 0
        var thirdRequests = 0
        var thirdScripts = 0
        for p in ps {
            let summary = ScenarioSummary(p)
            let third = Set(summary.origins.filter(\.thirdParty).map(\.id))
            if !third.isEmpty { withThird += 1 }
            let tp = p.resources.filter { third.contains($0.origin) }
            thirdRequests += tp.count
            thirdScripts += tp.filter { $0.type == .script }.count
        }
        // 92% of pages use a third party (HTTP Archive); binomial SE over 1,000 pages ≈ 0.9%.
        XCTAssertEqual(Double(withThird) / Double(ps.count), 0.92, accuracy: 0.03)
        // Scripts are ~30% of third-party requests (HTTP Archive).
        XCTAssertEqual(Double(thirdScripts) / Double(thirdRequests), 0.30, accuracy: 0.08)
    }

    func testEveryPageIsValidAndAtLeastThreeDeep() throws {
        for d in PageDistribution.all {
            for (i, p) in try pages(d).enumerated() {
                XCTAssertNoThrow(try p.validate(file: "seed \(Self.seeds[i])"))
                XCTAssertGreaterThanOrEqual(p.depth, 3, "\(d.name) seed \(Self.seeds[i])")
                XCTAssertEqual(p.root?.type, .document)
                XCTAssertTrue(p.origins.allSatisfy { $0.host.hasSuffix(".test") })
                // Progressive reveal: head stylesheets early in the document, render-blocking.
                XCTAssertTrue(p.resources.contains { $0.parent == p.root?.id && $0.revealAfterBytes != nil })
            }
        }
    }

    func testShapeOfTheTree() throws {
        let ps = try pages(.mobile2024)
        let all = ps.flatMap { p in p.resources.map { (p, $0) } }
        func parentType(_ p: Scenario, _ r: Scenario.Resource) -> ResourceType? {
            r.parent.flatMap { id in p.resources.first { $0.id == id }?.type }
        }
        // Fonts mostly from stylesheets, XHR only from scripts (or the document when there is none).
        let fonts = all.filter { $0.1.type == .font }
        let fontsFromCSS = fonts.filter { parentType($0.0, $0.1) == .stylesheet }.count
        XCTAssertGreaterThan(Double(fontsFromCSS) / Double(fonts.count), 0.7)
        for (p, r) in all where r.type == .xhr {
            XCTAssertTrue([.script, .document].contains(parentType(p, r)), "\(p.name) \(r.id)")
        }
        // Render-blocking only on stylesheets and scripts, and every blocking one is in the head
        // (revealed early) or @imported.
        for (p, r) in all where r.renderBlocking == true {
            XCTAssertTrue([.stylesheet, .script].contains(r.type))
            if r.parent == p.root?.id, let at = r.revealAfterBytes, let root = p.root {
                XCTAssertLessThanOrEqual(Double(at), Double(root.bytes) * 0.12 + 1)
            }
        }
        // Think times on documents and XHR only, modest.
        for (_, r) in all where r.thinkTimeMs != nil {
            XCTAssertTrue([.document, .xhr].contains(r.type))
            XCTAssertLessThanOrEqual(r.thinkTimeMs!, 500)
        }
    }

    func testSameSeedSameBytesDifferentSeedDifferentPage() throws {
        let a = try JSONFile.encode(try ScenarioGenerator(.init(seed: 42)).generate())
        let b = try JSONFile.encode(try ScenarioGenerator(.init(seed: 42)).generate())
        let c = try JSONFile.encode(try ScenarioGenerator(.init(seed: 43)).generate())
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
    }

    func testFixedOptionsAreHonoured() throws {
        for seed: UInt64 in 1...30 {
            let s = try ScenarioGenerator(.init(requests: 50, totalBytes: 1_234_567, origins: 5, seed: seed)).generate()
            XCTAssertEqual(s.resources.count, 50)
            XCTAssertEqual(s.totalBytes, 1_234_567)
            XCTAssertEqual(s.origins.count, 5)
            XCTAssertTrue(s.origins.allSatisfy { o in s.resources.contains { $0.origin == o.id } })
            XCTAssertNoThrow(try s.validate(file: "fixed"))
        }
        let one = try ScenarioGenerator(.init(requests: 3, origins: 1, seed: 1)).generate()
        XCTAssertEqual(one.resources.count, 3)
        XCTAssertEqual(one.origins.count, 1)
        XCTAssertEqual(one.depth, 3)
        let chain = try ScenarioGenerator(.init(requests: 20, seed: 3, scriptChain: 8)).generate()
        XCTAssertGreaterThanOrEqual(chain.depth, 9)
    }

    func testBadOptionsAreUsageErrors() {
        func code(_ o: ScenarioGenerator.Options) -> ExitCode? {
            do { _ = try ScenarioGenerator(o); return nil } catch let e as BenchError { return e.exitCode } catch {
                return nil
            }
        }
        XCTAssertEqual(code(.init(requests: 0)), .usage)
        XCTAssertEqual(code(.init(requests: 5, origins: 6)), .usage)
        XCTAssertEqual(code(.init(requests: 100, totalBytes: 100)), .usage)
        XCTAssertEqual(code(.init(requests: 4, scriptChain: 6)), .usage)
        assertContains(
            errorMessage { _ = try ScenarioGenerator(.init(requests: 5, origins: 6)) },
            "origins 6 must not exceed requests 5")
    }

    func testPresetsHaveTheirFigures() throws {
        func check(_ p: ScenarioPreset, requests: Int, bytes: Int64, origins: Int? = nil, minDepth: Int = 3) throws {
            let s = try p.scenario()
            XCTAssertEqual(s.resources.count, requests, p.rawValue)
            XCTAssertEqual(s.totalBytes, bytes, p.rawValue)
            if let origins { XCTAssertEqual(s.origins.count, origins, p.rawValue) }
            XCTAssertGreaterThanOrEqual(s.depth, minDepth, p.rawValue)
            XCTAssertNoThrow(try s.validate(file: p.rawValue))
        }
        try check(.mobileMedian, requests: 66, bytes: 2_311_000, origins: 8)
        try check(.desktopMedian, requests: 71, bytes: 2_652_000, origins: 9)
        try check(.heavyP90, requests: 170, bytes: 170 * 2_311_000 / 66)
        try check(.spaDeepChain, requests: 40, bytes: 1_800_000, minDepth: 7)
        try check(.imageHeavy, requests: 120, bytes: 6_000_000)
        try check(.apiSmallJSON, requests: 80, bytes: 522_000)
        try check(.smallPage, requests: 12, bytes: 150_000, origins: 2)
        // The median page's request mix is the HTTP Archive median mix.
        let m = try ScenarioPreset.mobileMedian.scenario()
        let mix = Dictionary(grouping: m.resources, by: \.type).mapValues(\.count)
        XCTAssertEqual(mix, [.document: 2, .stylesheet: 8, .script: 22, .font: 3, .image: 16, .xhr: 9, .other: 6])
        let api = try ScenarioPreset.apiSmallJSON.scenario()
        XCTAssertEqual(api.resources.filter { $0.type == .xhr }.count, 70)
        let bulk = try ScenarioPreset.bulk10MBUpload.scenario()
        XCTAssertEqual(bulk.bulk, .init(direction: .upload, bytes: 10_000_000))
    }

    func testNormalQuantile() {
        XCTAssertEqual(normalQuantile(0.5), 0, accuracy: 1e-9)
        XCTAssertEqual(normalQuantile(0.9), 1.2815515655, accuracy: 1e-8)
        XCTAssertEqual(normalQuantile(0.1), -1.2815515655, accuracy: 1e-8)
        XCTAssertEqual(normalQuantile(0.01), -2.3263478740, accuracy: 1e-8)
    }

    func testApportion() {
        XCTAssertEqual(apportion(66, [2, 8, 22, 3, 16, 9, 6]), [2, 8, 22, 3, 16, 9, 6])
        XCTAssertEqual(apportion(10, [1, 1, 1]), [4, 3, 3])
        XCTAssertEqual(apportion(0, [1, 2]), [0, 0])
    }
}
