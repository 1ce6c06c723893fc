import XCTest
import BenchCore
import LinkModel
@testable import LinkEmulator
import TestSupport

final class HostAccessTests: XCTestCase {
    func testEachNetworkGetsItsOwnSubnetDeviceAndTable() {
        let g = HostGateway.plan(id: "4242-c5048797")
        XCTAssertEqual(g.address, 0xC613_8796)  // 198.19.135.150: the /30 of 0x8794, root end .2
        XCTAssertEqual(g.serverSideAddress, g.address - 1)
        XCTAssertEqual(g.address & 0xFFFF_FFFC, g.serverSideAddress & 0xFFFF_FFFC, "one /30")
        XCTAssertEqual(g.rootDevice, "nbhc5048797")
        XCTAssertLessThanOrEqual(g.rootDevice.utf8.count, 15, "IFNAMSIZ")
        XCTAssertEqual(g.table, "nb_4242_c5048797")
        XCTAssertEqual(HostGateway.networkID(ofTable: g.table), "4242-c5048797")
        XCTAssertNil(HostGateway.networkID(ofTable: "nb_something"))
        XCTAssertNil(HostGateway.networkID(ofTable: "filter"))
        XCTAssertTrue(g.rootRules.contains("iifname \"nbhc5048797\" ip daddr 198.19.135.150 dnat to 127.0.0.1"))
        XCTAssertTrue(g.serverRules.contains("oifname \"nbhost\" masquerade"))
    }

    func testHostAccessGoesWithTeardown() throws {
        try requireEmulationPrivileges()
        try require(ChildProcessProbe.exists("/usr/sbin/nft"), "nft (scripts/bootstrap.sh)")
        let network = try EmulatedNetwork.create(paths: [.symmetric(name: "wifi", roundTrip: .milliseconds(10))])
        let g = try network.openHostAccess()
        XCTAssertTrue(try HostCommand.run("nft", ["list", "tables", "ip"]).contains(g.table))
        XCTAssertTrue(try HostCommand.run("ip", ["-br", "link"]).contains(g.rootDevice))
        XCTAssertEqual(
            try HostCommand.run("sysctl", ["-n", "net.ipv4.conf.\(g.rootDevice).route_localnet"])
                .trimmingCharacters(in: .whitespacesAndNewlines), "1")
        network.teardown()
        XCTAssertFalse(try HostCommand.run("nft", ["list", "tables", "ip"]).contains(g.table))
        XCTAssertFalse(try HostCommand.run("ip", ["-br", "link"]).contains(g.rootDevice))
    }
}

enum ChildProcessProbe {
    static func exists(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }
}
