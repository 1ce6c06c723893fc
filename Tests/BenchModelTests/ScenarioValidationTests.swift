import Foundation
import XCTest
import BenchCore
@testable import BenchModel

/// Every check of `Scenario.validate` and of decoding, by the message it gives: the file, the key
/// path and the value at fault.
final class ScenarioValidationTests: XCTestCase {
    /// A valid three-resource page; tests break one thing at a time.
    func page(
        origins: String = #"[{"id": "www", "host": "www.shop.test"}, {"id": "cdn", "host": "cdn.shop.test"}]"#,
        resources: [String]? = nil, version: Int = 1
    ) -> String {
        let r =
            resources ?? [
                #"{"id": "html", "origin": "www", "path": "/", "bytes": 1000, "type": "document"}"#,
                #"{"id": "css", "origin": "cdn", "path": "/a.css", "bytes": 500, "type": "stylesheet", "parent": "#
                    + #""html", "revealAfterBytes": 100}"#,
                #"{"id": "font", "origin": "cdn", "path": "/f.woff2", "bytes": 300, "type": "font", "parent": "css"}"#,
            ]
        return
            #"{"schemaVersion": \#(version), "name": "t", "origins": \#(origins), "resources": "#
                + #"[\#(r.joined(separator: ","))]}"#
    }

    func testValidPageLoads() throws {
        let s = try loadScenario(page())
        XCTAssertEqual(s.resources.count, 3)
        XCTAssertEqual(s.depth, 3)
        XCTAssertEqual(s.root?.id, "html")
    }

    func testDescriptionPathIsReserved() {
        let m = errorMessage {
            _ = try loadScenario(
                page(resources: [
                    #"{"id": "html", "origin": "www", "path": "/", "bytes": 1000, "type": "document"}"#,
                    #"{"id": "x", "origin": "www", "path": "/.well-known/netbench?v=1", "bytes": 5, "type": "xhr", "#
                        + #""parent": "html"}"#,
                ]), file: "page.json")
        }
        XCTAssertEqual(
            m,
            "page.json: resources[1].path: '/.well-known/netbench?v=1' is reserved for netbench serve's description "
                + "(/.well-known/netbench)"
        )
        XCTAssertFalse(ServerDescription.isDescriptionPath("/.well-known/netbench-other"))
        for p in [
            "/.well-known/netbench", "/.well-known/netbench/", "/.well-known/netbench?v=1",
            "/.well-known/netbench/?v=1",
        ] {
            XCTAssertTrue(ServerDescription.isDescriptionPath(p), p)
        }
        for p in ["/", "/.well-known/netbenc", "/.well-known/netbench//", "/x/.well-known/netbench"] {
            XCTAssertFalse(ServerDescription.isDescriptionPath(p), p)
        }
    }

    func testUnknownParent() {
        let m = errorMessage {
            _ = try loadScenario(
                page(resources: [
                    #"{"id": "html", "origin": "www", "path": "/", "bytes": 1000, "type": "document"}"#,
                    #"{"id": "css", "origin": "www", "path": "/a.css", "bytes": 5, "type": "stylesheet", "parent": "#
                        + #""nope"}"#,
                ]), file: "page.json")
        }
        XCTAssertEqual(m, "page.json: resources[1].parent: unknown resource 'nope'")
    }

    func testCycle() {
        let m = errorMessage {
            _ = try loadScenario(
                page(resources: [
                    #"{"id": "html", "origin": "www", "path": "/", "bytes": 1000, "type": "document"}"#,
                    #"{"id": "a", "origin": "www", "path": "/a.js", "bytes": 5, "type": "script", "parent": "b"}"#,
                    #"{"id": "b", "origin": "www", "path": "/b.js", "bytes": 5, "type": "script", "parent": "a"}"#,
                ]))
        }
        assertContains(m, "t.json: resources[1].parent: dependency cycle", "a → b → a")
    }

    func testSelfParentIsACycle() {
        let m = errorMessage {
            _ = try loadScenario(
                page(resources: [
                    #"{"id": "html", "origin": "www", "path": "/", "bytes": 1000, "type": "document"}"#,
                    #"{"id": "a", "origin": "www", "path": "/a.js", "bytes": 5, "type": "script", "parent": "a"}"#,
                ]))
        }
        assertContains(m, "t.json: resources[1].parent: 'a' is the resource itself (a cycle)")
    }

    func testDuplicateIDs() {
        let m = errorMessage {
            _ = try loadScenario(
                page(resources: [
                    #"{"id": "html", "origin": "www", "path": "/", "bytes": 1000, "type": "document"}"#,
                    #"{"id": "x", "origin": "www", "path": "/a.js", "bytes": 5, "type": "script", "parent": "html"}"#,
                    #"{"id": "x", "origin": "www", "path": "/b.js", "bytes": 5, "type": "script", "parent": "html"}"#,
                ]))
        }
        XCTAssertEqual(m, "t.json: resources[2].id: duplicate resource id 'x'")
    }

    func testDuplicateOriginIDs() {
        let m = errorMessage {
            _ = try loadScenario(
                page(
                    origins:
                        #"[{"id": "www", "host": "a.test"}, {"id": "www", "host": "b.test"}, {"id": "cdn", "host": "#
                            + #""c.test"}]"#
                ))
        }
        XCTAssertEqual(m, "t.json: origins[1].id: duplicate origin id 'www'")
    }

    func testNegativeSize() {
        let m = errorMessage {
            _ = try loadScenario(
                page(resources: [
                    #"{"id": "html", "origin": "www", "path": "/", "bytes": -5, "type": "document"}"#
                ]))
        }
        XCTAssertEqual(m, "t.json: resources[0].bytes: negative size -5")
    }

    func testUnknownOrigin() {
        let m = errorMessage {
            _ = try loadScenario(
                page(resources: [
                    #"{"id": "html", "origin": "www", "path": "/", "bytes": 10, "type": "document"}"#,
                    #"{"id": "img", "origin": "images", "path": "/i.png", "bytes": 5, "type": "image", "parent": "#
                        + #""html"}"#,
                ]))
        }
        XCTAssertEqual(m, "t.json: resources[1].origin: unknown origin 'images'")
    }

    func testBadHost() {
        let m = errorMessage {
            _ = try loadScenario(
                page(origins: #"[{"id": "www", "host": "www shop.test"}, {"id": "cdn", "host": "-cdn.test"}]"#))
        }
        XCTAssertEqual(
            m,
            """
            t.json: origins[0].host: 'www shop.test' is not a host name
            t.json: origins[1].host: '-cdn.test' is not a host name
            """)
    }

    func testRevealBeyondParent() {
        let m = errorMessage {
            _ = try loadScenario(
                page(resources: [
                    #"{"id": "html", "origin": "www", "path": "/", "bytes": 1000, "type": "document"}"#,
                    #"{"id": "css", "origin": "www", "path": "/a.css", "bytes": 5, "type": "stylesheet", "parent": "#
                        + #""html", "revealAfterBytes": 1001}"#,
                ]))
        }
        XCTAssertEqual(m, "t.json: resources[1].revealAfterBytes: 1001 is beyond the end of parent 'html' (1000 bytes)")
    }

    func testNegativeReveal() {
        let m = errorMessage {
            _ = try loadScenario(
                page(resources: [
                    #"{"id": "html", "origin": "www", "path": "/", "bytes": 1000, "type": "document"}"#,
                    #"{"id": "css", "origin": "www", "path": "/a.css", "bytes": 5, "type": "stylesheet", "parent": "#
                        + #""html", "revealAfterBytes": -1}"#,
                ]))
        }
        XCTAssertEqual(m, "t.json: resources[1].revealAfterBytes: negative offset -1")
    }

    func testTwoRoots() {
        let m = errorMessage {
            _ = try loadScenario(
                page(resources: [
                    #"{"id": "html", "origin": "www", "path": "/", "bytes": 1000, "type": "document"}"#,
                    #"{"id": "other", "origin": "www", "path": "/b.html", "bytes": 5, "type": "document"}"#,
                ]))
        }
        XCTAssertEqual(
            m, "t.json: resources[1].parent: missing: only one root resource is allowed (resources[0] is the root)")
    }

    func testNonDocumentRoot() {
        let m = errorMessage {
            _ = try loadScenario(
                page(resources: [
                    #"{"id": "app", "origin": "www", "path": "/app.js", "bytes": 1000, "type": "script"}"#
                ]))
        }
        XCTAssertEqual(m, "t.json: resources[0].type: the root resource must be a document, not 'script'")
    }

    func testNoRoot() {
        let m = errorMessage {
            _ = try loadScenario(
                page(resources: [
                    #"{"id": "a", "origin": "www", "path": "/a", "bytes": 1, "type": "document", "parent": "b"}"#,
                    #"{"id": "b", "origin": "www", "path": "/b", "bytes": 1, "type": "document", "parent": "a"}"#,
                ]))
        }
        assertContains(m, "t.json: resources: no root resource (one resource must have no parent)")
    }

    func testWrongSchemaVersion() {
        let m = errorMessage { _ = try loadScenario(page(version: 2)) }
        XCTAssertEqual(m, "t.json: schemaVersion: is 2; this netbench reads version 1")
    }

    func testPathAndThinkTimeAndDuplicatePath() {
        let m = errorMessage {
            _ = try loadScenario(
                page(resources: [
                    #"{"id": "html", "origin": "www", "path": "index.html", "bytes": 1000, "type": "document", "#
                        + #""thinkTimeMs": -3}"#,
                    #"{"id": "a", "origin": "www", "path": "/a.js", "bytes": 5, "type": "script", "parent": "html"}"#,
                    #"{"id": "b", "origin": "www", "path": "/a.js", "bytes": 5, "type": "script", "parent": "html"}"#,
                ]))
        }
        assertContains(
            m, "t.json: resources[0].path: 'index.html' must start with '/'",
            "t.json: resources[0].thinkTimeMs: -3.0 must be ≥ 0",
            "t.json: resources[2].path: '/a.js' on origin 'www' is also resources[1].path")
    }

    func testEmptyPageAndBulk() throws {
        let m = errorMessage {
            _ = try loadScenario(#"{"schemaVersion": 1, "name": "", "origins": [], "resources": []}"#)
        }
        assertContains(
            m, "t.json: name: must not be empty", "t.json: origins: must list at least one origin",
            "t.json: resources: must list at least one resource")
        let bulk = try loadScenario(
            #"{"schemaVersion": 1, "name": "b", "origins": [{"id": "o", "host": "b.test"}], "resources": [], "bulk": "#
                + #"{"direction": "upload", "bytes": 10000000}}"#
        )
        XCTAssertEqual(bulk.bulk?.bytes, 10_000_000)
        XCTAssertEqual(
            errorMessage {
                _ = try loadScenario(
                    #"{"schemaVersion": 1, "name": "b", "origins": [{"id": "o", "host": "b.test"}], "resources": [], "#
                        + #""bulk": {"direction": "download", "bytes": 0}}"#
                )
            },
            "t.json: bulk.bytes: 0 must be > 0")
    }

    // MARK: Decoding: key path, expected type, value

    func testWrongTypeNamesKeyPath() {
        let m = errorMessage {
            _ = try loadScenario(
                page(resources: [
                    #"{"id": "html", "origin": "www", "path": "/", "bytes": 1000, "type": "document"}"#,
                    #"{"id": "css", "origin": "www", "path": "/a.css", "bytes": "lots", "type": "stylesheet", "#
                        + #""parent": "html"}"#,
                ]), file: "shop.json")
        }
        assertContains(m, "shop.json: resources[1].bytes: expected an integer")
    }

    func testParentOfWrongType() {
        let m = errorMessage {
            _ = try loadScenario(
                page(resources: [
                    #"{"id": "html", "origin": "www", "path": "/", "bytes": 1000, "type": "document", "parent": 7}"#
                ]))
        }
        assertContains(m, "t.json: resources[0].parent: expected a string")
    }

    func testUnknownResourceTypeNamesTheValue() {
        let m = errorMessage {
            _ = try loadScenario(
                page(resources: [
                    #"{"id": "html", "origin": "www", "path": "/", "bytes": 1000, "type": "video"}"#
                ]))
        }
        assertContains(m, "t.json: resources[0].type:", "video")
    }

    func testMissingKey() {
        let m = errorMessage {
            _ = try loadScenario(
                page(resources: [
                    #"{"id": "html", "origin": "www", "bytes": 1000, "type": "document"}"#
                ]))
        }
        XCTAssertEqual(m, "t.json: resources[0]: missing required key 'path'")
    }

    func testNotJSON() {
        let m = errorMessage { _ = try loadScenario(#"{"schemaVersion": 1, "name": "#) }
        assertContains(m, "t.json: not valid JSON")
    }

    func testMissingFileIsNamed() {
        let m = errorMessage { _ = try Scenario.load(from: "/nonexistent/page.json") }
        XCTAssertEqual(m, "/nonexistent/page.json: does not exist")
    }

    func testSummaryCriticalPath() throws {
        let s = try loadScenario(page())
        let summary = ScenarioSummary(s, rttMs: 100, bitsPerSecond: 8_000_000)  // 1 byte = 1 µs
        XCTAssertEqual(summary.criticalPath, ["html", "css", "font"])
        // html: 100 + 1 ms; css revealed at 100.1 → 200.1 + 0.5; font at 200.6 → 300.6 + 0.3.
        XCTAssertEqual(summary.criticalPathMs, 300.9, accuracy: 1e-9)
        XCTAssertEqual(summary.countByType[.font], 1)
        XCTAssertEqual(summary.bytesByType[.stylesheet], 500)
        XCTAssertEqual(summary.origins.map(\.thirdParty), [false, false])
    }
}
