import XCTest
import BenchCore
import LinkModel
import LinkEmulator

final class TopologyTests: XCTestCase {
    func testCreatesAndTearsDownEverything() throws {
        try requireEmulationPrivileges()
        let network = try EmulatedNetwork.create(
            paths: [
                .symmetric(name: "wifi", roundTrip: .milliseconds(20)),
                .symmetric(name: "cell", roundTrip: .milliseconds(60)),
            ], options: .init(congestionControl: "cubic"))
        defer { network.teardown() }
        let mine = [network.serverNamespace, network.clientNamespace]
        XCTAssertTrue(mine.allSatisfy { $0.hasPrefix("nb-") })
        XCTAssertEqual(Set(namespaceNames()).intersection(mine).count, 2)
        XCTAssertEqual(network.congestionControl, "cubic")
        XCTAssertFalse(network.namespaceDefaultCongestionControl.isEmpty)
        XCTAssertEqual(network.kernelSettings["net.ipv6.conf.all.disable_ipv6"], "1")
        XCTAssertEqual(network.kernelSettings["net.ipv4.conf.all.rp_filter"], "0")
        XCTAssertEqual(network.paths.map(\.name), ["wifi", "cell"])
        XCTAssertEqual(
            network.paths.map { Endpoint(address: $0.address, port: 0).addressString }, ["198.18.1.2", "198.18.2.2"])
        XCTAssertEqual(network.activePath, "wifi")

        let serverAddrs = ip(network.serverNamespace, ["-4", "addr", "show", "dev", network.serverDevice])
        XCTAssertTrue(serverAddrs.contains("198.18.0.1/32"), serverAddrs)
        XCTAssertTrue(ip(network.serverNamespace, ["route"]).contains("198.18.2.0/24 dev \(network.serverDevice)"))
        let rules = ip(network.clientNamespace, ["rule"])
        XCTAssertTrue(rules.contains("from 198.18.1.2 lookup 100"), rules)
        XCTAssertTrue(rules.contains("from 198.18.2.2 lookup 101"), rules)
        XCTAssertTrue(ip(network.clientNamespace, ["route"]).contains("default dev \(network.paths[0].device)"))
        // No IPv6 on the devices.
        XCTAssertFalse(ip(network.clientNamespace, ["addr"]).contains("inet6"))

        try network.activate(path: "cell")
        XCTAssertEqual(network.activePath, "cell")
        XCTAssertTrue(
            ip(network.clientNamespace, ["route"]).contains(
                "default dev \(network.paths[1].device) scope link src 198.18.2.2"))

        network.teardown()
        network.teardown()  // idempotent
        XCTAssertTrue(Set(namespaceNames()).intersection(mine).isEmpty)
    }

    func testTeardownAfterAnErrorInTheMiddle() throws {
        try requireEmulationPrivileges()
        var names: [String] = []
        func body() throws {
            let network = try EmulatedNetwork.create(paths: [.symmetric(name: "wifi", roundTrip: .milliseconds(10))])
            defer { network.teardown() }
            names = [network.serverNamespace, network.clientNamespace]
            try network.start()
            throw Deliberate()
        }
        XCTAssertThrowsError(try body())
        XCTAssertEqual(names.count, 2)
        XCTAssertTrue(Set(namespaceNames()).intersection(names).isEmpty, "left behind: \(names)")
    }

    func testBadConfigurationCreatesNothing() throws {
        try requireEmulationPrivileges()
        let before = Set(namespaceNames().filter { $0.hasPrefix("nb-\(getpid())-") })
        XCTAssertThrowsError(try EmulatedNetwork.create(paths: [])) {
            XCTAssertEqual(($0 as? BenchError)?.exitCode, .usage)
        }
        XCTAssertThrowsError(
            try EmulatedNetwork.create(paths: [
                .symmetric(name: "a", roundTrip: 0), .symmetric(name: "a", roundTrip: 0),
            ]))
        XCTAssertThrowsError(
            try EmulatedNetwork.create(
                paths: [.symmetric(name: "a", roundTrip: 0)], options: .init(congestionControl: "nosuchcc")))
        XCTAssertEqual(Set(namespaceNames().filter { $0.hasPrefix("nb-\(getpid())-") }), before)
    }

    func testCleanupStaleSparesLiveRuns() throws {
        try requireEmulationPrivileges()
        let network = try EmulatedNetwork.create(paths: [.symmetric(name: "wifi", roundTrip: 0)])
        defer { network.teardown() }
        // This process is alive: its namespaces are not stale.
        let deleted = EmulatedNetwork.cleanupStale(prefix: "nb-\(getpid())-")
        XCTAssertEqual(deleted, [])
        XCTAssertTrue(namespaceNames().contains(network.serverNamespace))
    }

    func testCleanupStaleDeletesNamespacesOfDeadProcesses() throws {
        try requireEmulationPrivileges()
        // A pid no process has: namespaces named after it are leftovers.
        var dead: Int32 = 4_000_000
        while kill(dead, 0) == 0 { dead -= 1 }
        let name = "nb-\(dead)-0bad-srv"
        let add = Process()
        add.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        add.arguments = ["netns", "add", name]
        try add.run()
        add.waitUntilExit()
        defer {
            if namespaceNames().contains(name) {
                try? Process.run(URL(fileURLWithPath: "/usr/sbin/ip"), arguments: ["netns", "delete", name])
                    .waitUntilExit()
            }
        }
        XCTAssertTrue(namespaceNames().contains(name))
        XCTAssertEqual(EmulatedNetwork.cleanupStale(prefix: "nb-\(dead)-"), [name])
        XCTAssertFalse(namespaceNames().contains(name))
    }

    func testPrivilegeCheckGivesAOneLineReason() {
        let p = EmulationPrivileges.check()
        XCTAssertFalse(p.reason.isEmpty)
        XCTAssertFalse(p.reason.contains("\n"))
    }

    func testLatenessHistogramPercentiles() {
        var h = LatenessHistogram()
        for us in 1...100 { h.record(Nanoseconds(us) * 1_000 - 500) }  // 0.5 µs … 99.5 µs
        XCTAssertEqual(h.count, 100)
        XCTAssertEqual(h.percentile(0.5), 50_000)
        XCTAssertEqual(h.percentile(0.99), 99_000)
        h.record(25_000_000)
        XCTAssertEqual(h.maximum, 25_000_000)
        XCTAssertEqual(h.percentile(1), 25_000_000)
        XCTAssertEqual(LatenessHistogram().percentile(0.99), 0)
    }
}
