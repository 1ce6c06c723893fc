#if canImport(Glibc)
    import Glibc
#endif
import BenchCore

/// A file that only grows, one durable record at a time: every `append` is one write(2) of the whole
/// record followed by fsync(2), so a crash (kill -9, power loss) leaves at most the record in flight
/// cut off at the end, never a hole in the middle.
public final class AppendOnlyFile {
    public let path: String
    private let fd: FileDescriptor

    /// Opens `path` for appending, creating it (mode 0644) when absent. A last line without its
    /// newline (a write cut off by a crash) is cut away first, so the next record starts on a line
    /// of its own; `truncatedBytes` says how much was cut.
    public init(path: String) throws {
        self.path = path
        fd = try Sys.openCreating(path, O_WRONLY | O_APPEND, mode: 0o644)
        do { truncatedBytes = try AppendOnlyFile.cutPartialLine(path: path, fd: fd) } catch {
            Sys.close(fd)
            throw error
        }
    }

    /// Bytes of a cut-off last line removed when the file was opened (0 when it ended cleanly).
    public private(set) var truncatedBytes: Int64 = 0

    deinit { Sys.close(fd) }

    /// Writes all of `bytes` at the end of the file and, with `sync`, waits until they are on disk.
    /// A write that fails part way (a full disk) is cut away again, so the file keeps ending
    /// where the last whole record ended.
    public func append(_ bytes: [UInt8], sync: Bool = true) throws {
        let end = try Sys.lseekEnd(fd)
        do {
            var offset = 0
            while offset < bytes.count {
                let status = try bytes.withUnsafeBytes { raw in
                    try Sys.write(fd, UnsafeRawBufferPointer(rebasing: raw[offset...]))
                }
                guard case .bytes(let n) = status, n > 0 else { throw SystemError(call: "write(\(path))", errno: EIO) }
                offset += n
            }
            if sync { try Sys.fsync(fd) }
        } catch {
            try? Sys.ftruncate(fd, end)
            throw error
        }
    }

    /// Waits until everything appended is on disk.
    public func sync() throws { try Sys.fsync(fd) }

    /// Writes a whole file through `produce` (which hands over its bytes piece by piece) into a
    /// temporary file next to `path`, syncs it and renames it over `path`: readers see the old file
    /// or the new one, never a part, and the bytes never need to be in memory at once.
    public static func replace(_ path: String, produce: (_ write: ([UInt8]) throws -> Void) throws -> Void) throws {
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let tmp = dir + "/." + name + ".tmp-\(getpid())"
        Sys.unlink(tmp)
        do {
            let file = try AppendOnlyFile(path: tmp)
            var buffer: [UInt8] = []
            buffer.reserveCapacity(1 << 20)
            try produce { bytes in
                buffer.append(contentsOf: bytes)
                if buffer.count >= 1 << 20 {
                    try file.append(buffer, sync: false); buffer.removeAll(keepingCapacity: true)
                }
            }
            try file.append(buffer, sync: true)
            try Sys.rename(tmp, path)
        } catch {
            Sys.unlink(tmp)
            throw error
        }
    }

    private static func cutPartialLine(path: String, fd: FileDescriptor) throws -> Int64 {
        let reader = try Sys.open(path, O_RDONLY)
        defer { Sys.close(reader) }
        let size = try Sys.lseekEnd(reader)
        guard size > 0 else { return 0 }
        // Walk back from the end to the last newline, a block at a time.
        var end = size
        var buffer = [UInt8](repeating: 0, count: 4096)
        while end > 0 {
            let start = max(0, end - Int64(buffer.count))
            let n = try buffer.withUnsafeMutableBytes { raw in
                try Sys.pread(reader, UnsafeMutableRawBufferPointer(rebasing: raw[0..<Int(end - start)]), start)
            }
            if let i = buffer[0..<n].lastIndex(of: 0x0A) {
                let keep = start + Int64(i) + 1
                if keep == size { return 0 }
                try Sys.ftruncate(fd, keep)
                try Sys.fsync(fd)
                return size - keep
            }
            end = start
        }
        try Sys.ftruncate(fd, 0)
        try Sys.fsync(fd)
        return size
    }
}
