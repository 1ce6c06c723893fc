internal import COpenSSL
import BenchCore
import Glibc
import Synchronization

/// Appends NSS key-log lines (`CLIENT_HANDSHAKE_TRAFFIC_SECRET <random> <secret>`, ...) to a file,
/// so Wireshark can decrypt a capture of the run.
///
/// One writer per context. OpenSSL's key-log callback takes no user pointer, so the writer is
/// found through the `SSL_CTX`'s ex_data slot `keyLogExDataIndex`; the context keeps the writer
/// alive for as long as the `SSL_CTX` (and every `SSL` made from it, which retain the context).
final class KeyLogWriter: Sendable {
    let path: String
    /// A `BIO*` on the file opened for appending; the mutex serialises connections on
    /// different threads so each line lands whole.
    private let file: Mutex<OpaquePointer>

    init(path: String) throws {
        guard let bio = BIO_new_file(path, "a") else {
            throw TLSError.fromQueue(.configuration, operation: "opening key-log file \(path)")
        }
        self.path = path
        self.file = Mutex(bio)
    }

    deinit {
        file.withLock { _ = BIO_free($0) }
    }

    func append(_ line: UnsafePointer<CChar>) {
        var bytes = Array(UnsafeBufferPointer(start: line, count: cStringLength(line)))
        bytes.append(CChar(UInt8(ascii: "\n")))
        file.withLock { bio in
            // BIO_new_file buffers: a full disk shows at the flush (errno is still the write's).
            errno = 0
            let written = BIO_write(bio, bytes, Int32(bytes.count))
            let flushed = BIO_ctrl(bio, BIO_CTRL_FLUSH, 0, nil)
            if written != Int32(bytes.count) || flushed != 1 {
                DiagnosticWriteFailure.record("key log file \(path)", errno: errno == 0 ? EIO : errno)
            }
        }
    }

    /// Installs this writer as `ctx`'s key logger; the caller keeps `self` alive as long as `ctx`.
    func install(on ctx: OpaquePointer) throws {
        let slot = Unmanaged.passUnretained(self).toOpaque()
        try check(
            SSL_CTX_set_ex_data(ctx, keyLogExDataIndex, slot) == 1, .configuration,
            "installing the key-log writer")
        SSL_CTX_set_keylog_callback(ctx, keyLogCallback)
    }
}

/// The `SSL_CTX` ex_data slot holding an unretained `KeyLogWriter`.
let keyLogExDataIndex: Int32 = CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_SSL_CTX, 0, nil, nil, nil, nil)

/// OpenSSL's key-log callback: captures nothing, finds its writer through the context's ex_data.
private func keyLogCallback(_ ssl: OpaquePointer?, _ line: UnsafePointer<CChar>?) {
    guard let ssl, let line, let ctx = SSL_get_SSL_CTX(ssl),
        let slot = SSL_CTX_get_ex_data(ctx, keyLogExDataIndex)
    else { return }
    Unmanaged<KeyLogWriter>.fromOpaque(slot).takeUnretainedValue().append(line)
}

func cStringLength(_ s: UnsafePointer<CChar>) -> Int {
    var n = 0
    while s[n] != 0 { n += 1 }
    return n
}
