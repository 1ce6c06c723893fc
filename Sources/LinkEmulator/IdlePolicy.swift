import Foundation
import BenchCore
import SystemIO

/// What this machine's CPUs do when they have nothing to run: the cpuidle driver and, for a KVM
/// guest's `haltpoll` driver, how long an idle vCPU polls before it halts
/// (`/sys/module/haltpoll/parameters/guest_halt_poll_ns`).
///
/// It decides what a sleep costs. A halted vCPU is resumed by the hypervisor when its timer fires
/// or another CPU wakes it, and on some hosts that is dear: on the 2-vCPU guests netbench is
/// developed on (haltpoll with polling set to 0 by the provider), each sleep of 20–200 µs cost the
/// sleeping thread 30–37 µs of CPU, and a wake-up across vCPUs 26–32 µs on each side, against
/// 18 µs and 2.3–2.5 µs with `guest_halt_poll_ns` at 200000 (results/notebook/http3-bulk.md and
/// gigabit.md, 2026-11-29 22:38–22:45). The packet loop sleeps between its release passes, so at
/// 1 Gbit/s that cost is about half of its CPU (`TimerFloor.cpuPerWakeUp` measures it on each machine).
public struct IdlePolicy: Equatable, Sendable {
    /// `/sys/devices/system/cpu/cpuidle/current_driver` (`haltpoll`, `intel_idle`, `acpi_idle`…);
    /// nil when the kernel has no cpuidle or the file is unreadable.
    public var driver: String?
    /// The haltpoll driver's polling limit in ns; nil unless that driver's parameter is readable.
    public var haltPollNs: Int64?

    public static let haltPollParameter = "/sys/module/haltpoll/parameters/guest_halt_poll_ns"

    public init(driver: String?, haltPollNs: Int64?) {
        self.driver = driver
        self.haltPollNs = haltPollNs
    }

    /// From the two files' contents (either may be missing).
    public init(driverFile: String?, haltPollFile: String?) {
        let trimmed = { (s: String?) in s?.trimmingCharacters(in: .whitespacesAndNewlines) }
        let d = trimmed(driverFile)
        self.init(driver: (d?.isEmpty ?? true) ? nil : d, haltPollNs: trimmed(haltPollFile).flatMap { Int64($0) })
    }

    /// This machine's, read now.
    public static func current() -> IdlePolicy {
        IdlePolicy(
            driverFile: ProcessControl.readSmallFile("/sys/devices/system/cpu/cpuidle/current_driver"),
            haltPollFile: ProcessControl.readSmallFile(haltPollParameter))
    }

    /// A KVM guest whose idle vCPUs halt at once.
    public var haltsAtOnce: Bool { driver == "haltpoll" && haltPollNs == 0 }

    /// `cpuidle haltpoll, guest halt polling off` / `… polls 200 µs before halting` / `cpuidle intel_idle`.
    public var summary: String {
        guard let driver else { return "cpuidle unknown" }
        guard driver == "haltpoll", let ns = haltPollNs else { return "cpuidle \(driver)" }
        return ns == 0
            ? "cpuidle haltpoll, guest halt polling off"
            : "cpuidle haltpoll, polls up to \(Units.format(Double(ns) / 1e3, 0)) µs before halting"
    }

    /// Advice when a sleep is dear because idle vCPUs halt at once (the timer floor's `cpuPerWakeUp`
    /// of at least 10 µs); nil otherwise.
    public func advice(cpuPerWakeUp: Nanoseconds?) -> String? {
        guard haltsAtOnce, let cost = cpuPerWakeUp, cost >= 10_000 else { return nil }
        return "this KVM guest halts an idle vCPU at once (\(Self.haltPollParameter) is 0), so each sleep of the "
            + "packet loop costs about \(Units.format(Double(cost) / 1e3, 0)) µs of CPU and each wake-up of "
            + "an endpoint on the other vCPU as much again; as root, `echo 200000 > \(Self.haltPollParameter)` "
            + "lets idle vCPUs poll first until the next reboot (see results/notebook/gigabit.md)"
    }
}
