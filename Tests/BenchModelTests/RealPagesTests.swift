import Foundation
import XCTest
import BenchCore
@testable import BenchModel
import TestSupport

/// The real pages in `Scenarios/pages/real/`: each validates, is what `netbench import-har` makes of
/// its HAR byte for byte, has the shape it was chosen for, and its source and licence are named.
final class RealPagesTests: XCTestCase {
    let real = URL(fileURLWithPath: packageRoot).appendingPathComponent("Scenarios/pages/real")

    /// Scenario name, its HAR in `real/har/`, the least requests and origins it must keep.
    static let pages: [(name: String, har: String, requests: Int, origins: Int)] = [
        ("news-cnn", "cnn-chrome.har", 200, 60),
        ("shop-ferguson", "ferguson.har", 100, 20),
        ("news-aftonbladet", "aftonbladet.se.har", 100, 20),
        ("checkout-mytoys", "mytoys.de.har", 30, 10),
        ("corporate-arcelormittal", "arcelormittal.com.har", 30, 4),
    ]

    func testEveryShippedPageIsListedHere() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: real.path).filter { $0.hasSuffix(".json") }
        XCTAssertEqual(Set(files), Set(Self.pages.map { $0.name + ".json" }), "a new real page needs a row above")
        let hars = try FileManager.default.contentsOfDirectory(atPath: real.appendingPathComponent("har").path)
            .filter { $0.hasSuffix(".har") }
        XCTAssertEqual(Set(hars), Set(Self.pages.map(\.har)))
    }

    func testEachPageValidatesAndIsItsHARImported() throws {
        for page in Self.pages {
            let path = real.appendingPathComponent(page.name + ".json").path
            let s = try Scenario.load(from: path)
            XCTAssertEqual(s.name, page.name)
            XCTAssertGreaterThanOrEqual(s.resources.count, page.requests, page.name)
            XCTAssertGreaterThanOrEqual(s.origins.count, page.origins, page.name)
            XCTAssertEqual(s.queryMatch, .closest, page.name)
            // `netbench import-har har/F.har --name NAME -o NAME.json` writes the committed file.
            var options = HARImporter.Options(name: page.name, bodiesDirectory: page.name + ".bodies")
            options.gzipAsRecorded = false
            let imported = try HARImporter.load(
                path: real.appendingPathComponent("har/" + page.har).path, options: options)
            XCTAssertTrue(imported.bodies.isEmpty, "\(page.har) records no content")
            XCTAssertEqual(
                try JSONFile.encode(imported.scenario), FileManager.default.contents(atPath: path),
                "\(page.name).json differs from 'netbench import-har har/\(page.har) --name \(page.name)'")
        }
    }

    func testSourcesAndLicencesAreNamed() throws {
        let readme = try String(
            contentsOf: URL(fileURLWithPath: packageRoot).appendingPathComponent("Scenarios/README.md"),
            encoding: .utf8)
        for page in Self.pages {
            XCTAssertTrue(readme.contains("`real/\(page.name).json`"), "Scenarios/README.md lacks \(page.name)")
            XCTAssertTrue(readme.contains("`\(page.har)`"), "Scenarios/README.md lacks the source of \(page.har)")
        }
        for licence in ["LICENSE-pagexray.txt", "LICENSE-haralyzer.txt"] {
            let text = try String(contentsOf: real.appendingPathComponent("har/" + licence), encoding: .utf8)
            XCTAssertTrue(text.hasPrefix("The MIT License"), licence)
            XCTAssertTrue(readme.contains(licence), "Scenarios/README.md does not name \(licence)")
        }
    }
}
