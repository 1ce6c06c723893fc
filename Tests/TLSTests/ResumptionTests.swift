import XCTest
import TLS

final class ResumptionTests: XCTestCase {
    private func connectTwice(
        version: TLSVersion, tickets: Bool = true,
        resumption: Bool = true
    ) throws -> (first: Bool, second: Bool) {
        let server = try serverContext {
            $0.force(version); $0.sessionTickets = tickets
        }
        let client = try clientContext { $0.resumption = resumption }
        // The first connection is gone (freed without close_notify, as netbench drops connections)
        // before the second starts.
        let firstResumed = try {
            let first = try InMemoryPair(client: client, server: server, serverName: "origin.test")
            try first.handshake()
            return first.client.sessionResumed
        }()
        let second = try InMemoryPair(client: client, server: server, serverName: "origin.test")
        try second.handshake()
        XCTAssertEqual(second.client.negotiatedVersion, version)
        XCTAssertEqual(second.client.sessionResumed, second.server.sessionResumed)
        return (firstResumed, second.client.sessionResumed)
    }

    func testTLS13SecondConnectionResumes() throws {
        let resumed = try connectTwice(version: .tls13)
        XCTAssertFalse(resumed.first)
        XCTAssertTrue(resumed.second)
    }

    func testTLS12SecondConnectionResumes() throws {
        let resumed = try connectTwice(version: .tls12)
        XCTAssertFalse(resumed.first)
        XCTAssertTrue(resumed.second)
    }

    func testNoResumptionWhenServerDisablesTickets() throws {
        XCTAssertFalse(try connectTwice(version: .tls13, tickets: false).second)
        XCTAssertFalse(try connectTwice(version: .tls12, tickets: false).second)
    }

    func testNoResumptionWhenClientDisablesIt() throws {
        XCTAssertFalse(try connectTwice(version: .tls13, resumption: false).second)
    }

    func testSessionsAreKeptPerServerName() throws {
        let server = try serverContext(names: [["a.example", "b.example"]])
        let client = try clientContext()
        try InMemoryPair(client: client, server: server, serverName: "a.example").handshake()
        let other = try InMemoryPair(client: client, server: server, serverName: "b.example")
        try other.handshake()
        XCTAssertFalse(other.client.sessionResumed, "a session for a.example must not be offered to b.example")
        let again = try InMemoryPair(client: client, server: server, serverName: "a.example")
        try again.handshake()
        XCTAssertTrue(again.client.sessionResumed)
        client.forgetSessions()
        let forgotten = try InMemoryPair(client: client, server: server, serverName: "a.example")
        try forgotten.handshake()
        XCTAssertFalse(forgotten.client.sessionResumed)
    }
}
