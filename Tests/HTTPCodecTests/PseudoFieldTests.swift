import XCTest

@testable import HTTPCodec

/// `HTTP2SessionState.pseudoField` tells the request and response pseudo-fields apart by their
/// bytes, per field of every request: each of the five is recognised, and nothing else is, however
/// close its length and first bytes come.
final class PseudoFieldTests: XCTestCase {
    private func field(_ name: String) -> HTTP2SessionState.PseudoField? {
        Array(name.utf8).withUnsafeBufferPointer { HTTP2SessionState.pseudoField($0) }
    }

    func testTheFivePseudoFieldsAreRecognised() {
        XCTAssertEqual(field(":method"), .method)
        XCTAssertEqual(field(":path"), .path)
        XCTAssertEqual(field(":authority"), .authority)
        XCTAssertEqual(field(":scheme"), .scheme)
        XCTAssertEqual(field(":status"), .status)
    }

    func testNearMissesAndRegularFieldsAreNot() {
        for name in [
            ":pathx", ":patx", ":Path", ":pat", ":methox", ":schemx", ":statux", ":stotus", ":shheme", ":authorita",
            ":authorityx", ":protocol", "method", "x-path", "user-agent", "accept", "", ":", ":m", "p:ath",
        ] {
            XCTAssertNil(field(name), name)
        }
    }
}
