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
    public static func run(_ path: String, _ arguments: [String], input: String? = nil,
                           environment: [String: String]? = nil) throws -> Result {
        let (outR, outW) = try Sys.pipe()
        let (errR, errW) = try Sys.pipe()
        let (inR, inW) = try Sys.pipe()
        var open: [FileDescriptor] = [outR, outW, errR, errW, inR, inW]
        defer { for fd in open { Sys.close(fd) } }
        func closeNow(_ fd: FileDescriptor) { Sys.close(fd); open.removeAll { $0 == fd } }
        let pid = try Sys.posixSpawn(path, [path] + arguments, envp(environment), stdin: inR, stdout: outW, stderr: errW)
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
        let status = try Sys.waitpid(pid)
        return Result(status: status, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    /// Runs `path` with this process's standard streams and waits; returns its exit status.
    public static func runInheritingIO(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Int32 {
        let pid = try Sys.posixSpawn(path, [path] + arguments, envp(environment), stdin: nil, stdout: nil, stderr: nil)
        return try Sys.waitpid(pid)
    }

    private static func envp(_ environment: [String: String]?) -> [String] {
        if let environment { return environment.map { "\($0.key)=\($0.value)" } }
        var out: [String] = []
        var p = environ
        while let entry = p.pointee { out.append(String(cString: entry)); p += 1 }
        return out
    }
}
