import Foundation
import XCTest
import BenchModel
@testable import Replay
import TestSupport

/// The pages a browser is served: exact sizes, every child referenced by its parent (or the nearest
/// ancestor that can), padding that no comment terminator can end early, valid images.
final class PageRendererTests: XCTestCase {
    let port: UInt16 = 44321

    func scenarios() throws -> [Scenario] {
        var out = [try Scenario.load(from: Fixture.path("small-page.json"))]
        for name in ["mobile-median", "desktop-median", "heavy-p90", "image-heavy", "spa-deep-chain", "api-small-json"]
        {
            out.append(try Scenario.load(from: packageRoot + "/Scenarios/pages/\(name).json"))
        }
        return out
    }

    func text(_ b: PageRenderer.Body) -> String { String(decoding: b.bytes, as: UTF8.self) }

    func testEveryBodyHasTheScenarioSizeExactly() throws {
        for s in try scenarios() {
            let bodies = PageRenderer(scenario: s, port: port).renderAll()
            for r in s.resources where PageRenderer.renders(r.type) {
                let b = try XCTUnwrap(bodies[r.id], "\(s.name) \(r.id) not rendered")
                XCTAssertEqual(Int64(b.bytes.count), r.bytes, "\(s.name) \(r.id) (\(r.type.rawValue))")
                XCTAssertEqual(b.overflow, 0, "\(s.name) \(r.id)")
            }
            for r in s.resources where !PageRenderer.renders(r.type) { XCTAssertNil(bodies[r.id]) }
        }
    }

    func testEveryChildIsReferencedByItsParentWithItsAbsoluteURL() throws {
        for s in try scenarios() {
            let renderer = PageRenderer(scenario: s, port: port)
            // Every quoted absolute URL of every page, with the pages that name it.
            var namedBy: [String: [String]] = [:]
            for (id, body) in renderer.renderAll() where s.resources.first(where: { $0.id == id })!.type != .image {
                for (i, token) in text(body).split(separator: "\"", omittingEmptySubsequences: false).enumerated()
                where i % 2 == 1 && token.hasPrefix("https://") {
                    namedBy[String(token), default: []].append(id)
                }
            }
            for r in s.resources {
                let url = renderer.url(of: r)
                XCTAssertTrue(url.hasPrefix("https://\(s.origin(id: r.origin)!.host):\(port)/"), url)
                // Named once, by its parent only: the browser discovers it exactly where the scenario says.
                XCTAssertEqual(namedBy[url] ?? [], r.parent.map { [$0] } ?? [], "\(s.name) \(r.id)")
            }
        }
    }

    func testDocumentTagsEndWhereTheScenarioRevealsThem() throws {
        let s = try Scenario.load(from: packageRoot + "/Scenarios/pages/mobile-median.json")
        let renderer = PageRenderer(scenario: s, port: port)
        let html = text(renderer.render(s.root!)!)
        var lastEnd = 0
        for r in s.children(of: s.root!.id).sorted(by: { ($0.revealAfterBytes ?? .max) < ($1.revealAfterBytes ?? .max) }
        ) {
            let range = try XCTUnwrap(html.range(of: "\"\(renderer.url(of: r))\""), r.id)
            let tagEnd =
                html.utf8.distance(from: html.startIndex, to: html[range.upperBound...].firstIndex(of: ">")!) + 1
            XCTAssertGreaterThanOrEqual(tagEnd, lastEnd, "\(r.id): tags in reveal order")
            lastEnd = tagEnd
            if let reveal = r.revealAfterBytes {
                // The start tag ends at the offset, unless the tags before it already took the room
                // (then it follows the previous one directly, with no padding in between) or the end
                // of the document is too near.
                let tagStart = html.utf8.distance(
                    from: html.startIndex, to: html[..<range.lowerBound].lastIndex(of: "<")!)
                if Int64(tagEnd) != reveal && Int64(tagEnd) < s.root!.bytes - 500 {
                    XCTAssertGreaterThan(Int64(tagEnd), reveal, r.id)
                    let before = String(html.utf8.prefix(tagStart))!
                    XCTAssertFalse(
                        before.hasSuffix("-->") || before.hasSuffix("</p>\n"), "\(r.id) padded past its offset")
                }
            } else {
                XCTAssertGreaterThan(tagEnd, html.utf8.count - 1000, "\(r.id) (revealed at the end) near the end")
            }
        }
    }

    func testPaddingCannotEndItsCommentEarly() {
        for n in [0, 1, 4, 5, 6, 7, 8, 9, 100, 4096, 70_000] {
            let html = Padding.html(n), block = Padding.block(n)
            XCTAssertEqual(html.count, n)
            XCTAssertEqual(block.count, n)
            let h = String(decoding: html, as: UTF8.self), b = String(decoding: block, as: UTF8.self)
            if n >= 8 {
                XCTAssertTrue(h.hasPrefix("<!--") && h.hasSuffix("-->"))
                XCTAssertEqual(h.components(separatedBy: "-->").count, 2, "one terminator, at the end")
                XCTAssertFalse(h.dropFirst(4).dropLast(3).contains("--"), "no '--' inside an HTML comment")
                XCTAssertFalse(h.contains("--!>"))
            } else {
                XCTAssertTrue(h.allSatisfy(\.isWhitespace))
            }
            if n >= 5 {
                XCTAssertTrue(b.hasPrefix("/*") && b.hasSuffix("*/\n"))
                XCTAssertEqual(b.components(separatedBy: "*/").count, 2, "one terminator, at the end")
            } else {
                XCTAssertTrue(b.allSatisfy(\.isWhitespace))
            }
            XCTAssertFalse(h.contains("</script") || b.contains("</script"))
        }
    }

    func testPagesAreWellFormedAroundThePadding() throws {
        let s = try Scenario.load(from: Fixture.path("small-page.json"))
        let bodies = PageRenderer(scenario: s, port: port).renderAll()
        let doc = text(bodies["doc"]!)
        XCTAssertTrue(doc.hasPrefix("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"))
        XCTAssertTrue(doc.hasSuffix("</body></html>\n"))
        XCTAssertTrue(doc.contains("<link rel=\"stylesheet\" href=\"https://www.shop.test:44321/a.css\" crossorigin>"))
        XCTAssertTrue(doc.contains("<script async src=\"https://cdn.shop.test:44321/app.js\" crossorigin></script>"))
        XCTAssertTrue(doc.contains("<img src=\"https://cdn.shop.test:44321/i1.webp\""))
        // The stylesheet's font needs an element that uses it, in the document that loads the stylesheet.
        let fontIndex = s.resources.firstIndex { $0.id == "font" }!
        XCTAssertTrue(doc.contains("<span id=\"nb\(fontIndex)\">a</span>"))
        let css = text(bodies["css"]!)
        XCTAssertTrue(
            css.contains(
                "@font-face{font-family:\"nbf\(fontIndex)\";src:url(\"https://cdn.shop.test:44321/f.woff2\") "
                    + "format(\"woff2\")}"
            ))
        XCTAssertTrue(css.hasSuffix("*/\n"))
        let js = text(bodies["js"]!)
        XCTAssertTrue(js.contains("x(\"https://www.shop.test:44321/api\");"))
        XCTAssertTrue(js.contains("x(\"https://cdn.shop.test:44321/big.bin\");"))
        XCTAssertTrue(js.contains("function x(u){"))
        XCTAssertFalse(js.contains("function j(u){"), "only the helpers a script uses")
        // The JavaScript before the padding is one expression statement; the padding is a comment.
        let code = js.components(separatedBy: "})();\n")
        XCTAssertEqual(code.count, 2)
        XCTAssertTrue(code[1].hasPrefix("/*"))
    }

    func testContentLargerThanTheScenarioIsServedWholeAndSaysSo() throws {
        var s = try Scenario.load(from: Fixture.path("small-page.json"))
        s.resources[0].bytes = 100
        let b = PageRenderer(scenario: s, port: port).render(s.resources[0])!
        XCTAssertGreaterThan(b.overflow, 0)
        XCTAssertEqual(Int64(b.bytes.count), 100 + b.overflow)
        XCTAssertTrue(text(b).hasSuffix("</body></html>\n"), "never cut")
    }

    func testChildrenOfImagesGoToTheNearestAncestorThatCanReferenceThem() throws {
        var s = try Scenario.load(from: Fixture.path("small-page.json"))
        s.resources.append(
            Scenario.Resource(id: "late", origin: "cdn", path: "/late.png", bytes: 500, type: .image, parent: "img1"))
        let renderer = PageRenderer(scenario: s, port: port)
        XCTAssertTrue(text(renderer.render(s.root!)!).contains(renderer.url(of: s.resources.last!)))
        XCTAssertTrue(renderer.notes.contains { $0.hasPrefix("late:") && $0.contains("img1") })
    }

    func testPathsAreEscapedAndTheCatalogFindsThemAgain() throws {
        var s = try Scenario.load(from: Fixture.path("small-page.json"))
        s.resources[1].path = "/a b\"c'd<é>.css"
        let renderer = PageRenderer(scenario: s, port: port)
        let url = renderer.url(of: s.resources[1])
        XCTAssertEqual(url, "https://www.shop.test:44321/a%20b%22c%27d%3C%C3%A9%3E.css")
        let catalog = ReplayCatalog(scenario: s, renderingPagesFor: port)
        XCTAssertEqual(
            catalog.resource(host: "www.shop.test", path: "/a%20b%22c%27d%3C%C3%A9%3E.css")?.id, s.resources[1].id)
    }

    func testCatalogServesPagesToBrowsersAndFillerToNetbench() throws {
        let s = try Scenario.load(from: Fixture.path("small-page.json"))
        let catalog = ReplayCatalog(scenario: s, renderingPagesFor: port)
        let browser = catalog.respond(
            to: ServerRequestFixture.get("/", host: "www.shop.test", userAgent: "Mozilla/5.0 HeadlessChrome"))
        XCTAssertEqual(browser.bodyLength, 30000)
        XCTAssertEqual(browser.prefix.count, 30000)
        XCTAssertTrue(browser.headers.contains { $0.0 == "timing-allow-origin" && $0.1 == "*" })
        XCTAssertTrue(browser.headers.contains { $0.0 == "access-control-allow-origin" && $0.1 == "*" })
        let own = catalog.respond(to: ServerRequestFixture.get("/", host: "www.shop.test", userAgent: nil))
        XCTAssertEqual(own.bodyLength, 30000)
        XCTAssertTrue(own.prefix.isEmpty, "netbench's client keeps its filler bodies")
        let range = catalog.respond(
            to: ServerRequestFixture.get("/", host: "www.shop.test", userAgent: "Mozilla", range: "bytes=29000-"))
        XCTAssertEqual(range.status, 206)
        XCTAssertEqual(range.bodyLength, 1000)
        XCTAssertEqual(range.prefix, Array(browser.prefix[29000...]))
    }
}

import Transport

enum ServerRequestFixture {
    static func get(_ path: String, host: String, userAgent: String?, range: String? = nil) -> ServerRequest {
        var headers: [(String, String)] = []
        if let userAgent { headers.append(("user-agent", userAgent)) }
        if let range { headers.append(("range", range)) }
        return ServerRequest(method: "GET", path: path, authority: host, headers: headers, httpProtocol: "h2")
    }
}

/// Pages that paint like pages: render-blocking markup where the scenario says, visible text,
/// images drawn at their intrinsic size.
final class PagePaintTests: XCTestCase {
    let port: UInt16 = 44321

    func split(_ html: String) throws -> (head: String, body: String) {
        let parts = html.components(separatedBy: "</head><body>\n")
        XCTAssertEqual(parts.count, 2, "one head, one body")
        return (parts[0], try XCTUnwrap(parts.last))
    }

    func testRenderBlockingStylesheetsAndScriptsGoInTheHead() throws {
        let s = try Scenario.load(from: packageRoot + "/Scenarios/pages/mobile-median.json")
        let renderer = PageRenderer(scenario: s, port: port)
        let (head, body) = try split(String(decoding: renderer.render(s.root!)!.bytes, as: UTF8.self))
        let children = s.children(of: s.root!.id).filter { $0.revealAfterBytes != nil }
        let firstImage = children.filter { $0.type == .image }.compactMap(\.revealAfterBytes).min()!
        var blockingInHead = 0
        for r in children where r.type == .stylesheet || r.type == .script {
            let u = renderer.url(of: r)
            let blocking = r.renderBlocking == true
            let tag =
                r.type == .stylesheet
                ? (blocking
                    ? "<link rel=\"stylesheet\" href=\"\(u)\" crossorigin>"
                    : "<link rel=\"stylesheet\" href=\"\(u)\" crossorigin media=\"print\" onload=\"this.media='all'\">")
                : (blocking
                    ? "<script src=\"\(u)\" crossorigin></script>" : "<script async src=\"\(u)\" crossorigin></script>")
            XCTAssertTrue(head.contains(tag) || body.contains(tag), "\(r.id): \(tag)")
            if blocking && r.revealAfterBytes! < firstImage {
                XCTAssertTrue(head.contains(tag), "\(r.id): render-blocking, revealed before any image: in the head")
                blockingInHead += 1
            }
        }
        XCTAssertGreaterThan(blockingInHead, 5)
        XCTAssertFalse(head.contains("<p>") || head.contains("<img"), "the head holds no content")
        // No inline content directly in the body: Chromium would count its text (the whitespace
        // between tags) as one text block the size of the page, larger than any image.
        XCTAssertTrue(head.contains("<style>img{display:block}</style>"))
        XCTAssertTrue(body.hasPrefix("<div><div id=\"nb"), "the stylesheets' hook elements in a block of their own")
        for r in children where r.type == .image {
            let p = PageImage.picture(bytes: r.bytes)
            XCTAssertTrue(
                body.contains(
                    "<img src=\"\(renderer.url(of: r))\" alt=\"\" width=\"\(p.width)\" height=\"\(p.height)\" "
                        + "crossorigin>"
                ), r.id)
        }
    }

    func testABlockingStylesheetAfterAnImageStaysInTheBody() throws {
        var s = try Scenario.load(from: Fixture.path("small-page.json"))
        s.resources[3].revealAfterBytes = 1000  // img1 before the stylesheet (2000)
        let renderer = PageRenderer(scenario: s, port: port)
        let (head, body) = try split(String(decoding: renderer.render(s.root!)!.bytes, as: UTF8.self))
        XCTAssertFalse(head.contains("a.css"))
        XCTAssertTrue(
            body.contains("<link rel=\"stylesheet\" href=\"\(renderer.url(of: s.resources[1]))\" crossorigin>"))
    }

    func testDocumentsCarryVisibleTextInProportionToTheirBytes() throws {
        for name in ["mobile-median", "desktop-median"] {
            let s = try Scenario.load(from: packageRoot + "/Scenarios/pages/\(name).json")
            let html = String(decoding: PageRenderer(scenario: s, port: port).render(s.root!)!.bytes, as: UTF8.self)
            let (head, body) = try split(html)
            let paragraphs = body.components(separatedBy: "<p>").dropFirst().map {
                $0.components(separatedBy: "</p>")[0]
            }
            let text = paragraphs.reduce(0) { $0 + $1.utf8.count }
            let bodyBytes = Double(s.root!.bytes - Int64(head.utf8.count))
            XCTAssertGreaterThan(Double(text), 0.08 * bodyBytes, "\(name): about one byte in eight of the body is text")
            XCTAssertLessThan(Double(text), 0.13 * bodyBytes, "\(name): about one byte in eight of the body is text")
            XCTAssertTrue(
                paragraphs.allSatisfy {
                    !$0.contains("<") && !$0.contains("&") && $0.utf8.count <= PageText.paragraphBytes
                }, name)
        }
        for n in [0, 5, 8, 9, 10, 319, 320, 600, 601, 608, 609, 610, 5000] {
            let p = PageText.paragraphs(n), t = PageText.html(n)
            XCTAssertEqual(p.count, n)
            XCTAssertEqual(t.count, n)
            if n >= 9 { XCTAssertTrue(String(decoding: p, as: UTF8.self).hasPrefix("<p>")) }
            XCTAssertEqual(
                String(decoding: t, as: UTF8.self).hasPrefix("<p>"), n >= 320, "n = \(n): text from 40 bytes of it on")
        }
    }
}
