import HTTPCodec
import XCTest

/// A server takes a field whose bytes are the last request's from that request (no new String), and
/// a head whose fields all repeat shares the last head's: each request must still carry exactly the
/// fields, `:path` and `:authority` it was sent with, when all repeat, when one changes, when fewer or
/// more come, after a request without fields, and for values that are not ASCII.
final class HTTP2RepeatedFieldsTests: XCTestCase {
    func testEachRequestCarriesExactlyItsOwnFields() throws {
        let plan: [(authority: String, path: String, fields: [(String, String)])] = [
            ("a", "/x", [("user-agent", "agent/1"), ("accept", "*/*"), ("x-a", "1")]),
            ("a", "/x", [("user-agent", "agent/1"), ("accept", "*/*"), ("x-a", "1")]),
            ("a", "/y", [("user-agent", "agent/1"), ("accept", "text/html")]),
            ("b", "/y", [("user-agent", "agent/1")]),
            ("b", "/y", [("user-agent", "agent/1"), ("accept", "text/html"), ("x-b", "2")]),
            ("b", "/yy", [("user-agent", "agent/2"), ("accept", "*/*")]),
            ("a", "/x", []),
            ("a", "/x", [("user-agent", "agent/2"), ("accept", "*/*")]),
            ("c.test", "/é", [("user-agent", "agent/2"), ("x-name", "Zoë")]),
            ("c.test", "/é", [("user-agent", "agent/2"), ("x-name", "Zoë")]),
            ("c.test", "/é", [("user-agent", "agent/2"), ("x-name", "Zoe")]),
            ("c.test", "/é", [("user-agent", "agent/22"), ("x-name", "Zoe")]),
        ]
        // One connection, one request at a time, so that each request follows the one before it.
        let pair = try HTTP2Pair()
        var seen: [HTTPRequestHead] = []
        for entry in plan {
            _ = try pair.client.submitRequest(
                authority: entry.authority, path: entry.path, headers: HTTPHeaders(entry.fields))
            try pair.run(
                client: { _ in },
                server: { event in
                    guard case let .request(stream, head, _) = event else { return }
                    seen.append(head)
                    try pair.server.submitResponse(stream: stream, status: 204, bodyLength: 0)
                })
        }
        XCTAssertEqual(seen.count, plan.count)  // every request answered (nghttp2 refuses non-ASCII authorities)
        for (i, (entry, head)) in zip(plan, seen).enumerated() {
            XCTAssertEqual(head.authority, entry.authority, "request \(i)")
            XCTAssertEqual(head.target, entry.path, "request \(i)")
            XCTAssertEqual(head.headers.map(\.name), entry.fields.map(\.0), "request \(i)")
            XCTAssertEqual(head.headers.map(\.value), entry.fields.map(\.1), "request \(i)")
        }
    }
}
