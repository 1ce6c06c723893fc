import Foundation
import BenchCore

/// The marker a live netbench run holds for the namespaces and devices it created: a file locked
/// with flock(2) for as long as the process lives. The kernel drops the lock when the process dies
/// (also on kill -9), so a later run tells a dead owner from a live one without trusting a PID that
/// may have been reused.
public final class RunLock: @unchecked Sendable {
    public let name: String
    private var fd: Int32

    private init(name: String, fd: Int32) { self.name = name; self.fd = fd }
    deinit { release() }

    /// `/run/netbench` where it can be made, else a folder in the temporary directory.
    public static let directory: String = {
        for dir in ["/run/netbench", NSTemporaryDirectory() + "netbench-locks"] {
            if (try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)) != nil,
                access(dir, W_OK) == 0
            {
                return dir
            }
        }
        return NSTemporaryDirectory()
    }()

    static func path(_ name: String) -> String { directory + "/" + name + ".lock" }

    /// Takes the lock `name` (held until `release` or the process ends); nil if the file cannot be
    /// made or another process holds it.
    public static func acquire(_ name: String) -> RunLock? {
        let fd = open(path(name), O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { close(fd); return nil }
        let pid = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = pid.withCString { write(fd, $0, strlen($0)) }
        return RunLock(name: name, fd: fd)
    }

    /// Unlocks and removes the marker.
    public func release() {
        guard fd >= 0 else { return }
        unlink(RunLock.path(name))
        flock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }

    /// Whether the owner of `name` is alive: true while some process holds the lock, false when the
    /// marker exists but nobody holds it (its owner died), nil when there is no marker.
    public static func ownerAlive(_ name: String) -> Bool? {
        let fd = open(path(name), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { flock(fd, LOCK_UN); return false }
        return true
    }

    /// Removes the marker of a dead owner.
    public static func removeStale(_ name: String) { unlink(path(name)) }

    /// The names of markers held by live processes other than this one, with their PIDs.
    public static func liveOthers() -> [(name: String, pid: Int32?)] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter {
            $0.hasSuffix(".lock")
        }
        return names.compactMap { file in
            let name = String(file.dropLast(5))
            guard ownerAlive(name) == true else { return nil }
            let pid = (try? String(contentsOfFile: path(name), encoding: .utf8)).flatMap {
                Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            return pid == getpid() ? nil : (name, pid)
        }
    }
}
