import HTTPCodec
import XCTest

/// `HTTPHeaders.pairs` hands out the fields as stored (the servers pass them to their handlers
/// per request without a copy): same order, same case, duplicates kept, edits seen.
final class HTTPHeadersPairsTests: XCTestCase {
    func testPairsAreTheFieldsInOrder() {
        var headers = HTTPHeaders([("Accept", "*/*"), ("user-agent", "h2load"), ("accept", "text/html")])
        XCTAssertEqual(headers.pairs.map(\.0), ["Accept", "user-agent", "accept"])
        XCTAssertEqual(headers.pairs.map(\.1), ["*/*", "h2load", "text/html"])
        XCTAssertEqual(headers.map(\.name), headers.pairs.map(\.0), "the labelled view agrees")
        XCTAssertEqual(headers.map(\.value), headers.pairs.map(\.1))

        headers.replaceOrAdd(name: "ACCEPT", value: "image/png")
        XCTAssertEqual(headers.pairs.map(\.0), ["Accept", "user-agent"], "later duplicates removed")
        XCTAssertEqual(headers["accept"], "image/png")
        headers.add(name: "x-a", value: "1")
        headers.remove(name: "User-Agent")
        XCTAssertEqual(headers.pairs.map(\.0), ["Accept", "x-a"])
        XCTAssertEqual(headers.values(for: "X-A"), ["1"])
        XCTAssertEqual(HTTPHeaders().pairs.count, 0)
        XCTAssertEqual(HTTPHeaders(headers.pairs), headers, "a round trip through pairs is the same headers")
    }
}
