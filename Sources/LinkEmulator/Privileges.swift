import Foundation
import SystemIO

/// Whether this process can build an emulated network (create network namespaces and TUN devices).
public struct EmulationPrivileges: Sendable {
    /// True when every requirement holds.
    public var isSufficient: Bool
    /// One line: what is missing and how to get it; or what was found when all is well.
    public var reason: String

    /// Checks, in order: the `ip` tool, CAP_SYS_ADMIN (namespaces) and CAP_NET_ADMIN (devices,
    /// routes) in the effective set, and read-write access to /dev/net/tun. The command line turns
    /// an insufficient result into exit code 77.
    public static func check() -> EmulationPrivileges {
        guard HostCommand.locate("ip") != nil else {
            return .init(
                isSufficient: false, reason: "the `ip` tool (iproute2) is not installed: apt-get install iproute2")
        }
        let caps = effectiveCapabilities()
        let netAdmin: UInt64 = 1 << 12, sysAdmin: UInt64 = 1 << 21
        if let caps, caps & (netAdmin | sysAdmin) != (netAdmin | sysAdmin) {
            var missing: [String] = []
            if caps & netAdmin == 0 { missing.append("CAP_NET_ADMIN") }
            if caps & sysAdmin == 0 { missing.append("CAP_SYS_ADMIN") }
            let who = ProcessControl.isRoot ? "running as root but without" : "not root and without"
            return .init(
                isSufficient: false,
                reason:
                    "\(who) \(missing.joined(separator: " and ")) (needed to create network namespaces and TUN "
                        + "devices): run as root, e.g. with sudo"
            )
        }
        guard FileManager.default.fileExists(atPath: "/dev/net/tun") else {
            return .init(
                isSufficient: false,
                reason:
                    "/dev/net/tun does not exist: load the tun module (modprobe tun) or pass the device into the "
                        + "container"
            )
        }
        if let failure = TUNDevice.probe() {
            let attrs = try? FileManager.default.attributesOfItem(atPath: "/dev/net/tun")
            let mode = (attrs?[.posixPermissions] as? NSNumber).map { String($0.intValue, radix: 8) } ?? "?"
            let owner = (attrs?[.ownerAccountID] as? NSNumber)?.intValue ?? -1
            return .init(
                isSufficient: false,
                reason:
                    "cannot open /dev/net/tun read-write (\(failure); mode 0\(mode), owner uid \(owner)): run as root "
                        + "or make it mode 0666"
            )
        }
        return .init(
            isSufficient: true,
            reason:
                "can create network namespaces and TUN devices (CAP_NET_ADMIN, CAP_SYS_ADMIN, /dev/net/tun read-write)")
    }

    /// CapEff from /proc/self/status, or nil when unreadable.
    static func effectiveCapabilities() -> UInt64? {
        guard let status = ProcessControl.readSmallFile("/proc/self/status") else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("CapEff:") {
            return UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        }
        return nil
    }
}
