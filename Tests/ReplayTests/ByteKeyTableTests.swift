import XCTest
import BenchModel
@testable import Replay

/// The catalog's byte-keyed table (one FNV-1a hash per lookup instead of three SipHash dictionary
/// lookups), and the catalog answering through it exactly as through its dictionaries.
final class ByteKeyTableTests: XCTestCase {
    private func value(_ t: ByteKeyTable, _ key: String) -> Int? {
        Array(key.utf8).withUnsafeBufferPointer { t.value($0) }
    }

    private func value(_ t: ByteKeyTable, _ first: String, _ second: String) -> Int? {
        Array(first.utf8).withUnsafeBufferPointer { f in Array(second.utf8).withUnsafeBufferPointer { t.value(f, $0) } }
    }

    func testFindsEveryKeyAndNothingElse() {
        // More keys than the smallest table has slots, so that probes cross filled slots and wrap.
        let keys = (0..<300).map { "/r/\($0)" } + ["", "/", "/é"]
        let t = ByteKeyTable(keys.enumerated().map { (Array($0.element.utf8), $0.offset) })
        XCTAssertEqual(t.count, keys.count)
        for (i, key) in keys.enumerated() { XCTAssertEqual(value(t, key), i, key) }
        for missing in ["/r/300", "/r/", "/R/1", "/r/1 ", "//", "/e"] { XCTAssertNil(value(t, missing), missing) }
    }

    func testARepeatedKeyKeepsItsFirstValue() {
        let t = ByteKeyTable([(Array("/a".utf8), 1), (Array("/a".utf8), 2), (Array("/b".utf8), 3)])
        XCTAssertEqual(t.count, 2)
        XCTAssertEqual(value(t, "/a"), 1)
        XCTAssertEqual(value(t, "/b"), 3)
    }

    func testTwoPartKeysMatchOnlyTheirOwnSplit() {
        let t = ByteKeyTable([
            (ByteKeyTable.key("a.test", "/x"), 1), (ByteKeyTable.key("b.test", "/x"), 2),
            (ByteKeyTable.key("", "/"), 3),
        ])
        XCTAssertEqual(value(t, "a.test", "/x"), 1)
        XCTAssertEqual(value(t, "b.test", "/x"), 2)
        XCTAssertEqual(value(t, "", "/"), 3)
        XCTAssertNil(value(t, "a.test/", "x"), "same bytes without the separator in place")
        XCTAssertNil(value(t, "a.tes", "t/x"))
        XCTAssertNil(value(t, "a.test", "/y"))
        XCTAssertEqual(value(t, "a.test\u{0}/x"), 1, "the joined key is the same key")
    }

    func testCatalogAnswersAsItsDictionariesDo() {
        let s = Scenario(
            name: "k", origins: [.init(id: "w", host: "www.k.test"), .init(id: "c", host: "CDN.k.test")],
            resources: [
                .init(id: "doc", origin: "w", path: "/", bytes: 100, type: .document),
                .init(id: "w-app", origin: "w", path: "/app.js", bytes: 10, type: .script, parent: "doc"),
                .init(id: "c-app", origin: "c", path: "/app.js", bytes: 20, type: .script, parent: "doc"),
                .init(id: "c-img", origin: "c", path: "/i j.png", bytes: 30, type: .image, parent: "doc"),
                .init(id: "w-q", origin: "w", path: "/s?q=1", bytes: 40, type: .xhr, parent: "doc"),
            ])
        let c = ReplayCatalog(scenario: s)
        let cases: [(host: String, path: String, method: String, id: String?)] = [
            ("www.k.test", "/app.js", "GET", "w-app"), ("cdn.k.test", "/app.js", "GET", "c-app"),
            ("CDN.k.test", "/app.js", "GET", "c-app"), ("cdn.k.test:8443", "/app.js", "HEAD", "c-app"),
            ("10.0.0.1", "/app.js", "GET", "w-app"), ("www.k.test", "/i j.png", "GET", nil),
            ("cdn.k.test", "/i%20j.png", "GET", "c-img"), ("cdn.k.test", "/i j.png", "GET", "c-img"),
            ("www.k.test", "/s?q=1", "GET", "w-q"), ("www.k.test", "/s", "GET", nil),
            ("www.k.test", "/app.js#top", "GET", "w-app"), ("www.k.test", "/app.js", "POST", nil),
            ("www.k.test", "/nothing", "GET", nil), ("other.test", "/nothing", "GET", nil),
        ]
        for x in cases {
            XCTAssertEqual(c.resource(host: x.host, path: x.path, method: x.method)?.id, x.id, "\(x)")
        }
    }
}
