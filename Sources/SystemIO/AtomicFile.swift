import Foundation
import BenchCore

/// Files written whole or not at all: a temporary file in the same directory, fsync, rename. The
/// model and the reporters produce bytes; this is where they reach the disk.
public enum AtomicFile {
    /// Writes `data` to `path` atomically, creating the directory if needed.
    public static func write(_ data: Data, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
            throw BenchError.run("\(dir): cannot create the directory: \(error.localizedDescription)")
        }
        let tmp = dir + "/." + url.lastPathComponent + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: tmp, contents: data) else {
            throw BenchError.run("\(tmp): cannot write (directory not writable or disk full?)")
        }
        let fd = open(tmp, O_RDONLY)
        if fd >= 0 { fsync(fd); close(fd) }
        if rename(tmp, path) != 0 {
            let err = String(cString: strerror(errno))
            unlink(tmp)
            throw BenchError.run("\(path): rename failed: \(err)")
        }
    }
}
