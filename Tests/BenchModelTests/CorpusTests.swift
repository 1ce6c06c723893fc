import Foundation
import XCTest
import BenchCore
@testable import BenchModel

/// `netbench scenario generate --corpus`: the design, the pages, the manifest, and suites naming a
/// corpus directory.
final class CorpusTests: XCTestCase {
    /// Latin hypercube: with N pages, each of the N strata of each axis holds exactly one page.
    func testDesignPutsOnePagePerStratumOnEachAxis() {
        for (n, seed) in [(50, UInt64(3)), (7, 1), (1, 9)] {
            let d = CorpusDesign(count: n, seed: seed)
            XCTAssertEqual(d.points.count, n)
            XCTAssertEqual(
                d.points.map { Int($0.requestsQuantile * Double(n)) }, Array(0..<n), "request strata in page order")
            XCTAssertEqual(
                d.points.map { Int($0.bytesQuantile * Double(n)) }.sorted(), Array(0..<n), "one page per weight stratum"
            )
            XCTAssertTrue(
                d.points.allSatisfy {
                    $0.requestsQuantile > 0 && $0.requestsQuantile < 1 && $0.bytesQuantile > 0 && $0.bytesQuantile < 1
                })
        }
        XCTAssertEqual(CorpusDesign(count: 20, seed: 4), CorpusDesign(count: 20, seed: 4))
        XCTAssertNotEqual(
            CorpusDesign(count: 20, seed: 4).points.map(\.bytesQuantile),
            CorpusDesign(count: 20, seed: 5).points.map(\.bytesQuantile))
    }

    /// The request curve goes through the published mobile percentiles (22/39/66/109/170).
    func testRequestsAtQuantileHitsThePublishedPercentiles() {
        let d = PageDistribution.mobile2024
        XCTAssertEqual([0.10, 0.25, 0.50, 0.75, 0.90].map { d.requests(atQuantile: $0) }, [22, 39, 66, 109, 170])
        XCTAssertLessThan(d.requests(atQuantile: 0.01), 22)
        XCTAssertGreaterThan(d.requests(atQuantile: 0.99), 170)
    }

    /// Hazen positions on [1, 2, 4, 8]: q = 0.5 sits half way between 2 and 4 in log space (√8);
    /// beyond the first and last position the weight holds at the smallest and largest draw.
    func testPageWeightInterpolatesInLogSpaceAndHoldsAtTheEnds() {
        let logs = [1.0, 2, 4, 8].map { log($0) }
        XCTAssertEqual(CorpusGenerator.pageWeight(logs, quantile: 0.5), 8.0.squareRoot(), accuracy: 1e-9)
        XCTAssertEqual(CorpusGenerator.pageWeight(logs, quantile: 0.125), 1, accuracy: 1e-9)
        XCTAssertEqual(CorpusGenerator.pageWeight(logs, quantile: 0.01), 1, accuracy: 1e-9)
        XCTAssertEqual(CorpusGenerator.pageWeight(logs, quantile: 0.99), 8, accuracy: 1e-9)
    }

    func testPagesAreValidUniqueAndSpanTheDistribution() throws {
        let (pages, manifest) = try CorpusGenerator(count: 40, seed: 11).generate()
        XCTAssertEqual(pages.count, 40)
        XCTAssertEqual(manifest.pages.map(\.file), (1...40).map { "page-" + String(format: "%04d", $0) + ".json" })
        XCTAssertEqual(Set(pages.map(\.scenario.name)).count, 40)
        var hosts = Set<String>()
        for p in pages {
            try p.scenario.validate(file: p.entry.file)
            XCTAssertEqual(p.entry.requests, p.scenario.resources.count)
            XCTAssertEqual(p.entry.bytes, p.scenario.totalBytes)
            let label = "-p" + p.scenario.name.suffix(4) + "."
            for o in p.scenario.origins {
                XCTAssertTrue(o.host.contains(label) && o.host.hasSuffix(".test"), o.host)
                XCTAssertTrue(hosts.insert(o.host).inserted, "\(o.host) on two pages")
            }
        }
        // Third parties stay third parties: the label goes on the registrable domain.
        let withThirdParty = pages.filter { ScenarioSummary($0.scenario).origins.contains(where: \.thirdParty) }
        XCTAssertGreaterThan(withThirdParty.count, 30)
        // Both tails: 4 pages below the p10 request quantile, 4 above p90, so below 22 and above 170 requests.
        let requests = pages.map(\.entry.requests)
        XCTAssertEqual(requests.prefix(4).filter { $0 <= 22 }.count, 4)
        XCTAssertEqual(requests.suffix(4).filter { $0 >= 170 }.count, 4)
        XCTAssertEqual(requests, requests.sorted(), "pages ordered by request quantile")
        // At one request count, a higher weight quantile is a heavier page (up to the generator's 32-byte floors).
        let weights = Dictionary(grouping: pages, by: \.entry.requests).values.filter { $0.count > 1 }
        for group in weights {
            let byQ = group.sorted { $0.entry.bytesQuantile < $1.entry.bytesQuantile }
            XCTAssertEqual(byQ.map(\.entry.bytes), byQ.map(\.entry.bytes).sorted())
        }
    }

    func testSameSeedSameBytesOtherSeedOtherPages() throws {
        let a = try CorpusGenerator(count: 5, seed: 2).generate()
        let b = try CorpusGenerator(count: 5, seed: 2).generate()
        let c = try CorpusGenerator(count: 5, seed: 3).generate()
        XCTAssertEqual(
            try a.pages.map { try JSONFile.encode($0.scenario) }, try b.pages.map { try JSONFile.encode($0.scenario) })
        XCTAssertEqual(try JSONFile.encode(a.manifest), try JSONFile.encode(b.manifest))
        XCTAssertNotEqual(a.pages.map(\.entry.bytes), c.pages.map(\.entry.bytes))
        XCTAssertThrowsError(try CorpusGenerator(count: 0, seed: 1))
    }

    /// At the median request count (66), the weight model's median page is the published median
    /// page weight, 2,311 KB, within 5% (a 2,000-page corpus, seed 3, came out at 2.32 MB).
    func testWeightModelMedianAtTheMedianRequestCount() {
        let logs = CorpusGenerator.logWeights(.mobile2024, requests: 66)
        XCTAssertEqual(logs.count, 1000)
        XCTAssertEqual(logs, logs.sorted())
        XCTAssertEqual(CorpusGenerator.pageWeight(logs, quantile: 0.5) / 2_311_000, 1, accuracy: 0.05)
        XCTAssertLessThan(
            CorpusGenerator.pageWeight(logs, quantile: 0.1), CorpusGenerator.pageWeight(logs, quantile: 0.9) / 3)
    }

    // MARK: Suites naming a directory

    func write(_ dir: String, _ name: String, _ text: String) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
    }

    func tempDir() -> String {
        let d = NSTemporaryDirectory() + "netbench-corpus-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: d) }
        return d
    }

    func suite(_ scenarios: String) -> String {
        #"{"schemaVersion": 1, "name": "s", "scenarios": \#(scenarios), "profiles": ["loopback"], "transports": "#
            + #"["h2"], "runs": 1}"#
    }

    func testSuiteDirectoryExpandsToTheManifestsPagesInOrder() throws {
        let dir = tempDir()
        let (pages, manifest) = try CorpusGenerator(count: 3, seed: 1).generate()
        for p in pages.reversed() {
            try write(dir + "/corpus", p.entry.file, String(decoding: try JSONFile.encode(p.scenario), as: UTF8.self))
        }
        try write(
            dir + "/corpus", CorpusManifest.fileName, String(decoding: try JSONFile.encode(manifest), as: UTF8.self))
        try write(dir + "/corpus", "notes.json", "{}")  // not in the manifest: not a page
        try write(dir, "suite.json", suite(#"["corpus/", "corpus/page-0002.json"]"#))
        let s = try Suite.load(from: dir + "/suite.json")
        let base = URL(fileURLWithPath: dir + "/corpus").standardizedFileURL.path
        XCTAssertEqual(
            s.scenarios,
            ["page-0001.json", "page-0002.json", "page-0003.json", "page-0002.json"].map { base + "/" + $0 })
        XCTAssertEqual(
            try s.scenarios.map { try Scenario.load(from: $0).name },
            ["corpus-0001", "corpus-0002", "corpus-0003", "corpus-0002"])
    }

    func testSuiteDirectoryWithoutManifestTakesItsJSONFilesSorted() throws {
        let dir = tempDir()
        try write(dir + "/pages", "b.json", "{}")
        try write(dir + "/pages", "a.json", "{}")
        try write(dir + "/pages", "readme.txt", "")
        try write(dir, "suite.json", suite(#"["pages"]"#))
        let base = URL(fileURLWithPath: dir + "/pages").standardizedFileURL.path
        XCTAssertEqual(try Suite.load(from: dir + "/suite.json").scenarios, [base + "/a.json", base + "/b.json"])
    }

    func testSuiteDirectoryErrorsNameSuiteKeyAndValue() throws {
        let dir = tempDir()
        try FileManager.default.createDirectory(atPath: dir + "/empty", withIntermediateDirectories: true)
        try write(dir, "empty.json", suite(#"["page.json", "empty/"]"#))
        assertContains(
            errorMessage { _ = try Suite.load(from: dir + "/empty.json") },
            dir + "/empty.json: scenarios[1]: 'empty/' is a directory without scenario files")
        try write(dir, "missing.json", suite(#"["nowhere/"]"#))
        assertContains(
            errorMessage { _ = try Suite.load(from: dir + "/missing.json") },
            "missing.json: scenarios[0]: 'nowhere/' is not a directory (does not exist)")
        let (_, manifest) = try CorpusGenerator(count: 2, seed: 1).generate()
        try write(
            dir + "/gone", CorpusManifest.fileName, String(decoding: try JSONFile.encode(manifest), as: UTF8.self))
        try write(dir, "gone.json", suite(#"["gone/"]"#))
        assertContains(
            errorMessage { _ = try Suite.load(from: dir + "/gone.json") },
            "gone.json: scenarios[0]: 'gone/'", "corpus.json: pages[0].file: 'page-0001.json' does not exist")
        try write(
            dir + "/bad", CorpusManifest.fileName,
            #"{"schemaVersion": 1, "count": 1, "seed": 1, "distribution": "mobile", "method": "", "pages": [{"file": "#
                + #""../x.json", "name": "x", "requestsQuantile": 0.5, "bytesQuantile": 0.5, "requests": 1, "bytes": "#
                + #"1, "origins": 1, "seed": 1}]}"#
        )
        try write(dir, "bad.json", suite(#"["bad"]"#))
        assertContains(
            errorMessage { _ = try Suite.load(from: dir + "/bad.json") },
            "corpus.json: pages[0].file: '../x.json' must be a file name inside the corpus directory")
    }
}
