#if canImport(Glibc)
    import Glibc
#endif
import BenchCore

/// Runs helper programs (`ip`, `sysctl`, `pkg-config`, netbench itself under `unshare`) with
/// posix_spawn and waitpid. Foundation's Process is not used for these: inside a user namespace
/// its exit monitoring never saw the child exit (the child stayed a zombie and the caller hung).
public enum ChildProcess {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs `path` with `arguments`, feeding `input` on stdin, and collects its output.
    /// `environment` nil inherits this process's environment.
    public static func run(
        _ path: String, _ arguments: [String], input: String? = nil,
        environment: [String: String]? = nil
    ) throws -> Result {
        let (outR, outW) = try Sys.pipe()
        let (errR, errW) = try Sys.pipe()
        let (inR, inW) = try Sys.pipe()
        var open: [FileDescriptor] = [outR, outW, errR, errW, inR, inW]
        defer { for fd in open { Sys.close(fd) } }
        func closeNow(_ fd: FileDescriptor) { Sys.close(fd); open.removeAll { $0 == fd } }
        let pid = try Sys.posixSpawn(
            path, [path] + arguments, environment: envp(environment),
            dup2: [(inR.rawValue, 0), (outW.rawValue, 1), (errW.rawValue, 2)])
        closeNow(inR); closeNow(outW); closeNow(errW)
        if let input { _ = try? Array(input.utf8).withUnsafeBytes { try Sys.write(inW, $0) } }
        closeNow(inW)
        var out = [UInt8](), err = [UInt8]()
        var live = [outR, errR]
        var buf = [UInt8](repeating: 0, count: 16384)
        while !live.isEmpty {
            for fd in try Sys.pollReadable(live, timeoutMs: -1) {
                let st = try buf.withUnsafeMutableBytes { try Sys.read(fd, $0) }
                switch st {
                case .bytes(let n) where n > 0: if fd == outR { out += buf[0..<n] } else { err += buf[0..<n] }
                case .wouldBlock: break
                default: live.removeAll { $0 == fd }
                }
            }
        }
        let status = Sys.exitStatus(try Sys.waitpid(pid, block: true) ?? 0)
        return Result(
            status: status, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    /// The first executable `tool` in the usual system directories, or nil.
    public static func locate(_ tool: String) -> String? {
        for dir in ["/usr/sbin", "/sbin", "/usr/bin", "/bin"] where access("\(dir)/\(tool)", X_OK) == 0 {
            return "\(dir)/\(tool)"
        }
        return nil
    }

    /// Runs `path` with this process's standard streams and waits; returns its exit status.
    public static func runInheritingIO(_ path: String, _ arguments: [String], environment: [String: String]? = nil)
        throws -> Int32
    {
        let pid = try Sys.posixSpawn(path, [path] + arguments, environment: envp(environment))
        return Sys.exitStatus(try Sys.waitpid(pid, block: true) ?? 0)
    }

    private static func envp(_ environment: [String: String]?) -> [String]? {
        environment.map { $0.map { "\($0.key)=\($0.value)" } }
    }
}
