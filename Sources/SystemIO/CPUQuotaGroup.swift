#if canImport(Glibc)
    import Glibc
#endif
import BenchCore

/// A CPU quota on a set of processes: a cgroup of the `cpu` controller made for one run, holding
/// the processes it adopts (and whatever they fork), allowed `quota` µs of CPU in every `period` µs,
/// and removed after (`remove()`: its processes go back to the parent group). cgroup v1 (`cpu`
/// hierarchy: cpu.cfs_period_us / cpu.cfs_quota_us) where the cpu controller is mounted so, else
/// cgroup v2 (`cpu.max`) where the unified hierarchy offers it.
///
/// A slowdown of N gives the group 1/N of one CPU: quota = period / N. The period is short (2 ms,
/// longer only as N needs: the kernel's smallest quota is 1 ms, so the period is at least N ms), so
/// the group runs in slices of a millisecond or two rather than stalling for 75 ms at a time.
public final class CPUQuotaGroup {
    public enum Hierarchy: Sendable, Equatable {
        case v1(mount: String)
        case v2(mount: String)
    }

    public let path: String
    public let hierarchy: Hierarchy
    public let periodMicroseconds: Int
    public let quotaMicroseconds: Int
    private var removed = false

    /// The name prefix of netbench's groups: `netbench-<owner pid>-<n>`.
    public static let prefix = "netbench-"
    nonisolated(unsafe) private static var made = 0

    /// Period and quota for a slowdown of `factor` (≥ 1).
    public static func timing(slowdown factor: Double) -> (period: Int, quota: Int) {
        precondition(factor >= 1, "a slowdown is at least 1")
        let period = max(2000, Int((1000 * factor).rounded(.up)))
        return (period, max(1000, Int((Double(period) / factor).rounded())))
    }

    /// Where the cpu controller can be used, or why not (a sentence naming what was looked at).
    public static func locate() -> Result<Hierarchy, BenchError> {
        let mounts = ProcessControl.readSmallFile("/proc/self/mounts") ?? ""
        for line in mounts.split(separator: "\n") {
            let f = line.split(separator: " ")
            guard f.count >= 4 else { continue }
            if f[2] == "cgroup", f[3].split(separator: ",").contains("cpu") {
                let mount = String(f[1])
                if Sys.isWritableDirectory(mount) { return .success(.v1(mount: mount)) }
            }
        }
        for line in mounts.split(separator: "\n") {
            let f = line.split(separator: " ")
            guard f.count >= 4, f[2] == "cgroup2" else { continue }
            let mount = String(f[1])
            let controllers = ProcessControl.readSmallFile(mount + "/cgroup.subtree_control") ?? ""
            if controllers.split(whereSeparator: { $0 == " " || $0 == "\n" }).contains("cpu"),
                Sys.isWritableDirectory(mount)
            {
                return .success(.v2(mount: mount))
            }
        }
        return .failure(
            .run(
                "no usable cgroup cpu controller: /proc/self/mounts has neither a writable cgroup v1 hierarchy with "
                    + "'cpu' nor a cgroup2 mount whose cgroup.subtree_control enables 'cpu' (needs root; on cgroup v2 "
                    + "enable it with: echo +cpu > <mount>/cgroup.subtree_control)"))
    }

    /// A new group allowing 1/`slowdown` of one CPU; throws naming the file that could not be written.
    public init(slowdown: Double) throws {
        let hierarchy = try Self.locate().get()
        let mount: String
        switch hierarchy { case .v1(let m), .v2(let m): mount = m }
        Self.removeStale(in: mount)
        Self.made += 1
        path = mount + "/" + Self.prefix + "\(getpid())-\(Self.made)"
        self.hierarchy = hierarchy
        (periodMicroseconds, quotaMicroseconds) = Self.timing(slowdown: slowdown)
        try Sys.mkdir(path)
        do {
            switch hierarchy {
            case .v1:
                try Self.write("\(periodMicroseconds)", to: path + "/cpu.cfs_period_us")
                try Self.write("\(quotaMicroseconds)", to: path + "/cpu.cfs_quota_us")
            case .v2:
                try Self.write("\(quotaMicroseconds) \(periodMicroseconds)", to: path + "/cpu.max")
            }
        } catch {
            _ = try? Sys.rmdir(path)
            throw error
        }
    }

    deinit { remove() }

    /// What the group applies, for the run's record.
    public var description: String {
        let files: String
        switch hierarchy {
        case .v1: files = "cgroup v1 cpu.cfs_quota_us \(quotaMicroseconds) / cpu.cfs_period_us \(periodMicroseconds)"
        case .v2: files = "cgroup v2 cpu.max \(quotaMicroseconds) \(periodMicroseconds)"
        }
        return files + " on the browser's process tree"
    }

    /// Moves `pid` (the whole process) into the group; its later children are born in it.
    public func adopt(_ pid: Int32) throws {
        try Self.write("\(pid)", to: path + "/cgroup.procs")
    }

    /// The PIDs in the group now.
    public var members: [Int32] {
        (ProcessControl.readSmallFile(path + "/cgroup.procs") ?? "").split(separator: "\n").compactMap { Int32($0) }
    }

    /// CPU time the group's processes used, ns (cpuacct is another controller on v1: cpu.stat's
    /// usage_usec on v2 only); nil when not readable.
    public var usageNanoseconds: UInt64? {
        if case .v2 = hierarchy, let stat = ProcessControl.readSmallFile(path + "/cpu.stat") {
            for line in stat.split(separator: "\n") where line.hasPrefix("usage_usec ") {
                return UInt64(line.dropFirst("usage_usec ".count)).map { $0 * 1000 }
            }
        }
        return nil
    }

    /// How often the group was held back (`nr_throttled` of cpu.stat).
    public var throttledPeriods: Int? {
        let stat = ProcessControl.readSmallFile(path + "/cpu.stat") ?? ""
        for line in stat.split(separator: "\n") where line.hasPrefix("nr_throttled ") {
            return Int(line.dropFirst("nr_throttled ".count))
        }
        return nil
    }

    /// Moves what is left in the group to its parent and removes it; safe to call more than once.
    public func remove() {
        guard !removed else { return }
        removed = true
        Self.removeGroup(path)
    }

    static func removeGroup(_ path: String) {
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        for pid in (ProcessControl.readSmallFile(path + "/cgroup.procs") ?? "").split(separator: "\n") {
            try? write(String(pid), to: parent + "/cgroup.procs")
        }
        _ = try? Sys.rmdir(path)
    }

    /// Groups of a netbench that is gone (its PID in the name).
    static func removeStale(in mount: String) {
        for name in Sys.directoryEntries(mount) where name.hasPrefix(prefix) {
            let f = name.dropFirst(prefix.count).split(separator: "-")
            guard f.count == 2, let owner = Int32(f[0]), owner != getpid(), !ProcessControl.signal(pid: owner, 0)
            else { continue }
            removeGroup(mount + "/" + name)
        }
    }

    static func write(_ text: String, to file: String) throws {
        let fd = try Sys.open(file, O_WRONLY)
        defer { Sys.close(fd) }
        let bytes = Array(text.utf8)
        do {
            _ = try bytes.withUnsafeBytes { try Sys.write(fd, $0) }
        } catch {
            throw BenchError.run("cannot write '\(text)' to \(file): \(error)")
        }
    }
}
