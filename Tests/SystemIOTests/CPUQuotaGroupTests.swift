import Foundation
import XCTest
import BenchCore
import TestSupport
@testable import SystemIO

/// `--cpu-slowdown` for Firefox: a cgroup cpu quota on a process tree. A busy loop in a group made
/// for a slowdown of N gets at most 1/N of one CPU, in short periods; beside it an unthrottled busy
/// loop shows what the machine gave at the time (on a busy machine both get less, so the lower bound
/// is checked only when the free loop got clearly more). The group is gone after `remove()` and its
/// processes are back in the parent group.
final class CPUQuotaGroupTests: XCTestCase {
    func testPeriodAndQuotaOfASlowdown() {
        XCTAssertEqual(CPUQuotaGroup.timing(slowdown: 1).period, 2000)
        XCTAssertEqual(CPUQuotaGroup.timing(slowdown: 1).quota, 2000)
        XCTAssertEqual(CPUQuotaGroup.timing(slowdown: 2).quota, 1000)
        XCTAssertEqual(CPUQuotaGroup.timing(slowdown: 1.5).quota, 1333)
        XCTAssertEqual(CPUQuotaGroup.timing(slowdown: 4).period, 4000, "the kernel's smallest quota is 1 ms")
        XCTAssertEqual(CPUQuotaGroup.timing(slowdown: 4).quota, 1000)
        XCTAssertEqual(CPUQuotaGroup.timing(slowdown: 6).period, 6000)
    }

    /// utime + stime of `pid`, seconds.
    func cpuSeconds(_ pid: Int32) -> Double {
        guard let text = ProcessControl.readSmallFile("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else {
            return 0
        }
        let f = text[text.index(after: close)...].split(separator: " ")
        return (Double(f[11]) ?? 0) / 100 + (Double(f[12]) ?? 0) / 100
    }

    func busyLoop() throws -> BackgroundProcess {
        try BackgroundProcess(
            executable: "/bin/sh", arguments: ["/bin/sh", "-c", "while :; do :; done"], descriptors: [:],
            stderrPath: nil)
    }

    func testABusyLoopGetsAtMostOneNthOfACPU() throws {
        try requireRoot("cgroups need root")
        if case .failure(let why) = CPUQuotaGroup.locate() { try missingPrerequisite(why.message) }
        let n = 5.0
        let group = try CPUQuotaGroup(slowdown: n)
        defer { group.remove() }
        let throttled = try busyLoop()
        defer { ProcessControl.signal(pid: throttled.pid, SIGKILL); throttled.wait() }
        let free = try busyLoop()
        defer { ProcessControl.signal(pid: free.pid, SIGKILL); free.wait() }
        try group.adopt(throttled.pid)
        XCTAssertEqual(group.members, [throttled.pid])
        let (t0, f0, start) = (cpuSeconds(throttled.pid), cpuSeconds(free.pid), Date())
        Thread.sleep(forTimeInterval: 3)
        let wall = Date().timeIntervalSince(start)
        let share = (cpuSeconds(throttled.pid) - t0) / wall, freeShare = (cpuSeconds(free.pid) - f0) / wall
        XCTAssertLessThanOrEqual(share, 1 / n * 1.15 + 0.02, "throttled \(share), free \(freeShare) of a CPU")
        XCTAssertGreaterThan(group.throttledPeriods ?? 0, 0, "the quota held the loop back")
        if freeShare > 2 / n {
            XCTAssertGreaterThan(share, 0.6 / n, "throttled \(share) of a CPU while a free loop got \(freeShare)")
        }
        group.remove()
        XCTAssertFalse(FileManager.default.fileExists(atPath: group.path), "the group is removed")
        let cgroups = ProcessControl.readSmallFile("/proc/\(throttled.pid)/cgroup") ?? ""
        XCTAssertFalse(cgroups.contains(CPUQuotaGroup.prefix), "back in the parent group: \(cgroups)")
    }

    func testGroupsOfAGoneNetbenchAreRemoved() throws {
        try requireRoot("cgroups need root")
        guard case .success(let h) = CPUQuotaGroup.locate() else { try missingPrerequisite("no cpu cgroup") }
        let mount: String
        switch h { case .v1(let m), .v2(let m): mount = m }
        // A PID that is not running: the largest possible is never in use.
        let stale = mount + "/" + CPUQuotaGroup.prefix + "4194304-1"
        try Sys.mkdir(stale)
        defer { _ = try? Sys.rmdir(stale) }
        let group = try CPUQuotaGroup(slowdown: 2)
        defer { group.remove() }
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale))
        XCTAssertTrue(FileManager.default.fileExists(atPath: group.path), "its own group stays")
    }
}
