import XCTest
@testable import Transport

/// The HTTP/3 `priority` header field as Chromium writes it (RFC 9218), in every form Chromium 156
/// sent to the replay server for the mobile median page.
final class PriorityFieldTests: XCTestCase {
    func testChromiumsForms() {
        XCTAssertEqual(H3ClientConnection.priorityField(urgency: 0, incremental: true), "u=0, i")
        XCTAssertEqual(H3ClientConnection.priorityField(urgency: 0, incremental: false), "u=0")
        XCTAssertEqual(H3ClientConnection.priorityField(urgency: 1, incremental: true), "u=1, i")
        XCTAssertEqual(H3ClientConnection.priorityField(urgency: 2, incremental: true), "u=2, i")
        XCTAssertEqual(H3ClientConnection.priorityField(urgency: 4, incremental: false), "u=4")
        XCTAssertEqual(H3ClientConnection.priorityField(urgency: 3, incremental: true), "i")
        XCTAssertNil(H3ClientConnection.priorityField(urgency: 3, incremental: false), "the default goes unsaid")
    }
}
