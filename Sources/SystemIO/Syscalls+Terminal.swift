#if canImport(Glibc)
    import Glibc
#endif

// The terminal and process-group calls of `UserCommand` (Syscalls.swift holds the rest).
extension Sys {
    /// isatty(3).
    static func isatty(_ fd: Int32) -> Bool { Glibc.isatty(fd) == 1 }

    /// getpgrp(2).
    static func getpgrp() -> pid_t { Glibc.getpgrp() }

    /// tcsetpgrp(3) with SIGTTOU blocked in the calling thread: a process in a background group
    /// may take its terminal back only so (else the kernel stops it). Whether it worked.
    @discardableResult
    static func tcsetpgrp(_ fd: Int32, _ group: pid_t) -> Bool {
        var block = sigset_t(), old = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGTTOU)
        pthread_sigmask(SIG_BLOCK, &block, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        return Glibc.tcsetpgrp(fd, group) == 0
    }

    /// access(2) with X_OK: whether `path` is a file this process may execute.
    static func isExecutable(_ path: String) -> Bool {
        var st = stat()
        guard fstatat(AT_FDCWD, path, &st, 0) == 0, st.st_mode & S_IFMT == S_IFREG else { return false }
        return Glibc.access(path, X_OK) == 0
    }
}
