import XCTest
import BenchCore
@testable import HTTPCodec

/// Chromium's HTTP/2 dependencies, worked by hand: each stream is the exclusive child of the last
/// open stream of the same or a more urgent priority, weighted by its priority.
final class PriorityChainTests: XCTestCase {
    func testWeightsAreChromiumsSpdyMapping() {
        XCTAssertEqual(RequestPriority.allCases.reversed().map(\.http2Weight), [256, 220, 183, 147, 110])
        XCTAssertEqual(RequestPriority.allCases.reversed().map(\.urgency), [0, 1, 2, 3, 4])
    }

    func testEachStreamHangsBelowTheLastAtLeastAsUrgent() {
        var chain = PriorityChain()
        XCTAssertEqual(
            chain.opening(1, priority: .highest), HTTP2Priority(dependsOn: 0, weight: 256, exclusive: true),
            "first: the root")
        XCTAssertEqual(chain.opening(3, priority: .medium).dependsOn, 1, "below the highest")
        XCTAssertEqual(chain.opening(5, priority: .lowest).dependsOn, 3, "below the medium")
        // A later highest stream goes right below the last highest one, ahead of 3 and 5.
        XCTAssertEqual(chain.opening(7, priority: .highest).dependsOn, 1)
        XCTAssertEqual(chain.opening(9, priority: .medium).dependsOn, 3, "same level: after the last medium")
        XCTAssertEqual(chain.opening(11, priority: .idle), HTTP2Priority(dependsOn: 5, weight: 110, exclusive: true))
        XCTAssertEqual(chain.opening(13, priority: .low).dependsOn, 9, "no low stream: the last medium")
    }

    func testClosedStreamsAreNoLongerParents() {
        var chain = PriorityChain()
        _ = chain.opening(1, priority: .medium)
        _ = chain.opening(3, priority: .medium)
        chain.closed(3)
        XCTAssertEqual(chain.opening(5, priority: .medium).dependsOn, 1)
        chain.closed(1)
        chain.closed(5)
        XCTAssertEqual(chain.opening(7, priority: .lowest).dependsOn, 0, "nothing open: the root")
    }
}
