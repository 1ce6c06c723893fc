import HTTPCodec
import XCTest

/// A client that sends one request again and again reuses the field list it built for the last
/// one (`submitRequest`): the server still sees each request's own method, authority, path and
/// fields, when the request repeats, when one part changes, and when fields or a body come in
/// between. And a client that reads only the status (`decodesRegularFields = false`) gets each
/// response's status and body with no fields, while one that decodes them gets all of them.
final class HTTP2RepeatedRequestHeadTests: XCTestCase {
    func testEachRequestCarriesItsOwnHead() throws {
        let pair = try HTTP2Pair()
        // method, authority, path, fields, body length
        let plan: [(String, String, String, HTTPHeaders, Int64)] = [
            ("GET", "a", "/x", [:], 0), ("GET", "a", "/x", [:], 0), ("GET", "b", "/x", [:], 0),
            ("GET", "b", "/y", [:], 0), ("HEAD", "b", "/y", [:], 0), ("GET", "b", "/y", ["accept": "*/*"], 0),
            ("GET", "b", "/y", [:], 0), ("POST", "b", "/y", [:], 5), ("POST", "b", "/y", [:], 0),
            ("GET", "b", "/y", [:], 0),
        ]
        var order: [Int32: Int] = [:]
        for (i, (method, authority, path, fields, body)) in plan.enumerated() {
            order[
                try pair.client.submitRequest(
                    method: method, authority: authority, path: path, headers: fields, bodyLength: body)] = i
        }
        var seen: [Int32: HTTPRequestHead] = [:]
        try pair.run(
            client: { _ in },
            server: { event in
                guard case let .request(stream, head, _) = event else { return }
                seen[stream] = head
                try pair.server.submitResponse(stream: stream, status: 204, bodyLength: 0)
            })
        XCTAssertEqual(seen.count, plan.count)
        for (stream, i) in order {
            let (method, authority, path, fields, body) = plan[i]
            let head = try XCTUnwrap(seen[stream], "request \(i)")
            XCTAssertEqual(head.method, method, "request \(i)")
            XCTAssertEqual(head.authority, authority, "request \(i)")
            XCTAssertEqual(head.target, path, "request \(i)")
            XCTAssertEqual(head.headers["accept"], fields["accept"], "request \(i)")
            XCTAssertEqual(head.headers["content-length"], body > 0 ? String(body) : nil, "request \(i)")
        }
    }

    func testResponseFieldsSkippedOnlyWhenAsked() throws {
        for decodes in [true, false] {
            let pair = try HTTP2Pair()
            pair.client.decodesRegularFields = decodes
            let stream = try pair.client.submitRequest(authority: "a", path: "/")
            var head: (status: Int, headers: HTTPHeaders)?
            var logs: [Int32: StreamLog] = [:]
            try pair.run(
                client: { event in
                    if case let .response(_, status, headers, _) = event { head = (status, headers) }
                    StreamLog.record(event, into: &logs)
                },
                server: { event in
                    guard case let .request(id, _, _) = event else { return }
                    try pair.server.submitResponse(
                        stream: id, status: 203, headers: ["content-type": "text/plain", "x-a": "1"], bodyLength: 7)
                })
            XCTAssertEqual(head?.status, 203, "decodes: \(decodes)")
            XCTAssertEqual(logs[stream]?.bytes, 7, "decodes: \(decodes)")
            if decodes {
                XCTAssertEqual(head?.headers["content-type"], "text/plain")
                XCTAssertEqual(head?.headers["x-a"], "1")
                XCTAssertEqual(head?.headers["content-length"], "7")
            } else {
                XCTAssertEqual(head?.headers.count, 0)
            }
        }
    }
}
