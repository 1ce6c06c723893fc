#if canImport(Glibc)
    import Glibc
#endif

// The directory calls of `CPUQuotaGroup` (Syscalls.swift holds the rest).
extension Sys {
    /// mkdir(2) with mode 0755.
    static func mkdir(_ path: String) throws {
        if Glibc.mkdir(path, 0o755) != 0 { throw SystemError(call: "mkdir(\(path))", errno: errno) }
    }

    /// rmdir(2).
    static func rmdir(_ path: String) throws {
        if Glibc.rmdir(path) != 0 { throw SystemError(call: "rmdir(\(path))", errno: errno) }
    }

    /// access(2) with W_OK on a directory: whether this process may create entries in `path`.
    static func isWritableDirectory(_ path: String) -> Bool {
        var st = stat()
        guard fstatat(AT_FDCWD, path, &st, 0) == 0, st.st_mode & S_IFMT == S_IFDIR else { return false }
        return Glibc.access(path, W_OK) == 0
    }

    /// The names in a directory (opendir(3)/readdir(3)), "." and ".." left out; empty when unreadable.
    static func directoryEntries(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var out: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { out.append(name) }
        }
        return out
    }
}
