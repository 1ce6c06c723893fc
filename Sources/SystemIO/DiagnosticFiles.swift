import Foundation
import BenchCore
import Synchronization

/// Diagnostics as files: one `<name>.sqlog` per connection in a qlog directory, and NSS key-log
/// lines appended to one file (the format Wireshark reads). Both are checked when created, so a
/// directory that does not exist or a file that cannot be written is an error before the first
/// run, not a silent absence of files.
public final class DiagnosticFiles: DiagnosticsSink, @unchecked Sendable {
    public let qlogDirectory: String?
    public let keyLogPath: String?
    private let keyLog: Mutex<FileStream?>

    public init(qlogDirectory: String?, keyLogPath: String?) throws {
        self.qlogDirectory = qlogDirectory
        self.keyLogPath = keyLogPath
        if let dir = qlogDirectory {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) else {
                throw BenchError.usage("--qlog \(dir): the directory does not exist (create it first)")
            }
            guard isDir.boolValue else { throw BenchError.usage("--qlog \(dir): not a directory") }
            guard access(dir, W_OK) == 0 else { throw BenchError.usage("--qlog \(dir): the directory is not writable") }
        }
        if let path = keyLogPath {
            let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw BenchError.usage(
                    "key log file \(path): cannot be opened for appending: \(String(cString: strerror(errno)))")
            }
            keyLog = Mutex(FileStream(fd: fd, name: "key log file \(path)"))
        } else {
            keyLog = Mutex(nil)
        }
    }

    deinit { keyLog.withLock { $0?.close() } }

    public func qlogStream(name: String) -> (any ByteStream)? {
        guard let dir = qlogDirectory else { return nil }
        let path = "\(dir)/\(name).sqlog"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            DiagnosticWriteFailure.record("qlog file \(path)", errno: errno)
            return nil
        }
        return FileStream(fd: fd, name: "qlog file \(path)")
    }

    public var wantsKeyLog: Bool { keyLogPath != nil }

    public func keyLogLine(_ line: String) {
        keyLog.withLock { stream in
            guard let stream else { return }
            var text = line
            text += "\n"
            text.withUTF8 { stream.write(UnsafeRawBufferPointer($0)) }
        }
    }
}

/// A file descriptor written to in full (short writes and EINTR retried), closed once. A write
/// that fails (a full disk) is recorded in `DiagnosticWriteFailure` under `name`, and the stream
/// writes nothing more.
public final class FileStream: ByteStream {
    private var fd: Int32
    private let name: String
    public init(fd: Int32, name: String) { self.fd = fd; self.name = name }
    deinit { close() }

    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard fd >= 0, var p = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = Glibc.write(fd, p, left)
            if n < 0 {
                if errno == EINTR { continue }
                DiagnosticWriteFailure.record(name, errno: errno)
                close()
                return
            }
            left -= n
            p += n
        }
    }

    public func close() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }
}
