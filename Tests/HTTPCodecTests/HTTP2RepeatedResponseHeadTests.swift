import HTTPCodec
import XCTest

/// A server that answers with one resource's field array again and again reuses the head it built
/// for the last response (`submitResponse(fields:)`): each response still carries exactly its own
/// status, length and fields, when the array repeats, when a copy of it was changed, and when the
/// status, the length or the kind of call in between differ.
final class HTTP2RepeatedResponseHeadTests: XCTestCase {
    func testEachResponseCarriesItsOwnHead() throws {
        let pair = try HTTP2Pair()
        let shared: [(String, String)] = [("content-type", "text/html"), ("cache-control", "no-store")]
        var changed = shared
        changed[0].1 = "image/png"
        // Per request: status, fields, body length, and whether to use the HTTPHeaders variant.
        let plan: [(Int, [(String, String)], Int64, Bool)] = [
            (200, shared, 10, false), (200, shared, 10, false), (200, changed, 10, false),
            (200, shared, 10, false), (200, shared, 11, false), (404, shared, 11, false),
            (200, shared, 11, true), (200, shared, 11, false), (200, [("content-length", "5")], 5, false),
            (200, shared, 11, false),
        ]
        var paths: [Int32: Int] = [:]
        for i in plan.indices {
            paths[try pair.client.submitRequest(authority: "a", path: "/\(i)")] = i
        }
        var heads: [Int32: (status: Int, headers: HTTPHeaders)] = [:]
        var logs: [Int32: StreamLog] = [:]
        try pair.run(
            client: { event in
                if case let .response(stream, status, headers, _) = event { heads[stream] = (status, headers) }
                StreamLog.record(event, into: &logs)
            },
            server: { event in
                guard case let .request(stream, head, _) = event else { return }
                let (status, fields, length, viaHeaders) = plan[Int(head.target.dropFirst())!]
                if viaHeaders {
                    try pair.server.submitResponse(
                        stream: stream, status: status, headers: HTTPHeaders(fields), bodyLength: length)
                } else {
                    try pair.server.submitResponse(stream: stream, status: status, fields: fields, bodyLength: length)
                }
            })
        XCTAssertEqual(heads.count, plan.count)
        for (stream, i) in paths {
            let (status, fields, length, _) = plan[i]
            let head = try XCTUnwrap(heads[stream], "response \(i)")
            XCTAssertEqual(head.status, status, "response \(i)")
            XCTAssertEqual(head.headers["content-length"], String(length), "response \(i)")
            XCTAssertEqual(head.headers.values(for: "content-length").count, 1, "response \(i)")
            for (name, value) in fields {
                XCTAssertEqual(head.headers[name], value, "response \(i): \(name)")
            }
            XCTAssertEqual(head.headers.count, fields.count + (fields.contains { $0.0 == "content-length" } ? 0 : 1))
            XCTAssertEqual(logs[stream]?.bytes, Int(length), "response \(i)")
        }
    }
}
