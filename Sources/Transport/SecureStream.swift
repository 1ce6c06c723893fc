import BenchCore
import SystemIO
import TLS

/// A TCP connection with TLS on top, driven by the event loop: ciphertext moves between the socket
/// and the TLS engine; the layer above sees plaintext, handshake completion and close.
///
/// Backpressure: the layer above writes while `backlog` is small and refills from `onWritable`.
final class SecureStream {
    enum Phase { case connecting, handshaking, open, closed }

    let fd: FileDescriptor
    let loop: EventLoop
    let tls: TLSConnection
    private(set) var phase: Phase
    /// Payload bytes the peer acknowledged (TCP_INFO) while the socket is open; nil otherwise.
    var bytesAcknowledged: Int64? { phase == .closed ? nil : Socket.bytesAcknowledged(fd) }
    /// Inside an event-loop turn writes only collect ciphertext; the turn ends with one flush, so
    /// a batch of requests read together is answered with one write(2), not one per response frame.
    private var inTurn = false
    private var wantWrite = false
    private var closeAfterFlush = false
    private var readBuffer: UnsafeMutableRawBufferPointer
    private var plainBuffer: UnsafeMutableRawBufferPointer

    var onConnected: ((Instant) -> Void)?
    var onHandshake: ((Instant) -> Void)?
    /// Plaintext from the peer; the buffer is valid only during the call.
    var onPlaintext: ((UnsafeRawBufferPointer, Instant) -> Void)?
    var onWritable: (() -> Void)?
    /// Called once, with nil for an orderly close.
    var onClose: ((String?) -> Void)?
    /// Called once with the socket just before it is closed (the last moment its kernel state,
    /// such as TCP_INFO, can be read).
    var beforeClose: ((FileDescriptor) -> Void)?

    /// The layer above is asked for more once fewer bytes than this wait for the kernel.
    static let lowWater = 64 * 1024

    /// Bytes accepted but not yet handed to the kernel.
    /// The ciphertext TLS wrote waits in its queue and goes to the socket from there (one copy less
    /// per byte than through an outbox of our own).
    var backlog: Int { tls.pendingCiphertextCount }

    /// Late binding (servers that prioritise): at most this many bytes may wait unsent in the
    /// kernel (TCP_NOTSENT_LOWAT on the socket) before the layer above stops producing, so the
    /// next bytes are chosen when the path can take them, not when a request arrived. nil: the
    /// layer above produces until the backlog is full and the kernel queues whatever it accepts.
    private(set) var unsentLimit: Int?
    /// Waiting for the kernel's unsent queue to drain below `unsentLimit` (write interest kept).
    private var awaitingDrain = false

    /// Turns late binding on (see `unsentLimit`); false if the socket refused the option.
    @discardableResult
    func limitUnsent(to bytes: Int) -> Bool {
        do { try Socket.setNotSentLowWater(fd, bytes: Int32(bytes)) } catch { return false }
        unsentLimit = bytes
        return true
    }

    /// Without late binding, an HTTP/2 server that keeps its frames until the kernel takes them, as
    /// nginx does: the layer above hands over at most this many bytes at a time, and only while
    /// nothing it handed over earlier waits here, so at most one chunk waits beyond what the kernel's
    /// send buffer accepted (nginx: its 16 KB `ssl_buffer_size`), and the frames the kernel refused
    /// stay in the HTTP/2 layer, where a more urgent stream can still go first. nil (and no late
    /// binding): up to 256 KiB of ciphertext wait here, in the order written (clients, h1).
    private(set) var kernelPacedChunk: Int?

    /// nginx's `ssl_buffer_size` default: what nginx holds beyond the kernel's send buffer.
    static let nginxWriteChunk = 16 * 1024

    /// Hands over only what the kernel's send buffer takes (see `kernelPacedChunk`); for HTTP/2
    /// servers without late binding.
    func paceByKernel(chunk: Int = SecureStream.nginxWriteChunk) { kernelPacedChunk = chunk }

    /// Whether the layer above should hand over more now: the backlog has room and, with late
    /// binding, what waits here and in the kernel's unsent queue together is below the limit (so
    /// the small records of one batch leave in one write, and no more than the limit waits).
    var acceptsMore: Bool {
        guard phase == .open else { return false }
        return backlog < acceptanceLimit()
    }

    /// While nothing is flushed (inside `batched`), the layer above may go on handing over while
    /// `backlog` stays below this: 256 KiB, with late binding the limit less what the kernel holds
    /// unsent (one ioctl; the kernel's queue only shrinks until the next flush), kernel-paced one
    /// chunk while nothing waits here and 0 otherwise.
    func acceptanceLimit() -> Int {
        if let limit = unsentLimit { return limit - (Socket.unsentBytes(fd) ?? 0) }
        // Kernel-paced: one chunk when the kernel took everything, none while it refuses.
        if let chunk = kernelPacedChunk { return backlog == 0 ? chunk : 0 }
        return 256 * 1024
    }

    /// Writes made inside `body` leave in one flush at its end (one system call for the many small
    /// TLS records of a batch of responses), as they do inside an event-loop turn.
    func batched(_ body: () -> Void) {
        if inTurn { return body() }
        inTurn = true
        body()
        inTurn = false
        flush()
    }

    /// With late binding, how much the layer above should hand over per turn: the limit, or the
    /// congestion window when that is larger (what the path takes in the next round trip anyway, as
    /// h2o's latency optimisation writes); kernel-paced, its chunk; nil otherwise.
    var lateBindingChunk: Int? {
        guard let limit = unsentLimit else { return kernelPacedChunk }
        guard let s = Socket.senderStatistics(of: fd) else { return limit }
        return max(limit, Int(s.congestionWindowSegments) * Int(s.maximumSegmentBytes))
    }

    /// The layer above stopped because `acceptsMore` said no: wake it (`onWritable`) once the
    /// kernel can take more.
    func waitForRoom() {
        guard phase == .open, !awaitingDrain else { return }
        awaitingDrain = true
        if !wantWrite { wantWrite = true; loop.update(fd, [.read, .write]) }
    }

    init(fd: FileDescriptor, loop: EventLoop, tls: TLSConnection, connecting: Bool) throws {
        self.fd = fd
        self.loop = loop
        self.tls = tls
        self.phase = connecting ? .connecting : .handshaking
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        plainBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        try loop.register(fd, connecting ? [.read, .write] : .read) { [weak self] ready in self?.ready(ready) }
        wantWrite = connecting
    }

    deinit {
        readBuffer.deallocate()
        plainBuffer.deallocate()
    }

    /// How this stream cuts its plaintext into TLS records; nil: OpenSSL's 16 KiB records (what
    /// browsers send). Every `write` ends a record, whatever the sizing.
    var recordSizer: TLSRecordSizer?

    /// Sends plaintext; returns how much TLS accepted (all of it unless the stream is closing).
    @discardableResult
    func write(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard phase == .open else { return 0 }
        var done = 0
        do {
            while done < bytes.count {
                let now = recordSizer == nil ? nil : Instant.now()
                let size = now.map { recordSizer!.recordSize(at: $0) } ?? TLSRecordPolicy.maxPlaintext
                // At most 64 KiB per step, so the sizer counts the bytes as they go.
                let slice = UnsafeRawBufferPointer(
                    rebasing: bytes[done..<min(bytes.count, done + max(size, 64 * 1024))])
                let n = try tls.writePlaintext(slice, recordSize: size)
                if n <= 0 { break }
                if let now { recordSizer!.sent(n, at: now) }
                done += n
            }
        } catch {
            fail("TLS write: \(error)")
            return done
        }
        if !inTurn { flush() }
        return done
    }

    func write(_ bytes: [UInt8]) { bytes.withUnsafeBytes { _ = write($0) } }

    /// Sends close_notify after pending data, then closes.
    func close() {
        guard phase != .closed else { return }
        if phase == .open { tls.shutdown() }
        closeAfterFlush = true
        flush()
    }

    /// Closes at once (a failure or an abort): no close_notify.
    func abort(_ reason: String? = nil) {
        guard phase != .closed else { return }
        phase = .closed
        loop.unregister(fd)
        let last = beforeClose
        beforeClose = nil
        last?(fd)
        Socket.close(fd)
        let cb = onClose
        onClose = nil
        cb?(reason)
    }

    private func fail(_ reason: String) { abort(reason) }

    private func ready(_ ready: IOInterest) {
        if phase == .connecting {
            guard ready.contains(.write) || ready.contains(.hangup) else { return }
            do {
                if let err = try Socket.connectResult(fd) { return fail("\(err)") }
            } catch { return fail("\(error)") }
            phase = .handshaking
            onConnected?(Instant.now())
            advanceHandshake()
            return
        }
        inTurn = true
        if ready.contains(.write) { awaitingDrain = false }
        if ready.contains(.read) || ready.contains(.hangup) { readAvailable() }
        if phase != .closed && ready.contains(.write) { flush() }
        // Refill below the low-water mark whatever drained the backlog: a read turn flushes too,
        // and waiting for a write-readiness event that never comes stalls the sender.
        if phase == .open && backlog < SecureStream.lowWater { onWritable?() }
        inTurn = false
        flush()
        // The kernel may have taken everything: ask for more now, or nothing wakes the sender again.
        if phase == .open && backlog < SecureStream.lowWater { onWritable?() }
    }

    private func readAvailable() {
        // Read a bounded amount per turn so one busy connection cannot starve the others.
        for _ in 0..<16 {
            guard phase != .closed else { return }
            let status: IOStatus
            do { status = try Socket.read(fd, into: readBuffer) } catch { return fail("read: \(error)") }
            switch status {
            case .wouldBlock: return
            case .endOfFile:
                return phase == .open
                    ? abort(nil)
                    : fail("connection closed by peer during \(phase == .handshaking ? "TLS handshake" : "connect")")
            case .bytes(let n):
                tls.receiveCiphertext(UnsafeRawBufferPointer(rebasing: readBuffer[0..<n]))
                if phase == .handshaking { advanceHandshake() }
                if phase == .open { drainPlaintext() }
                if !inTurn { flush() }
                // A short read emptied the socket: the next read would only say EAGAIN (a system
                // call per turn for nothing). epoll is level-triggered: bytes arriving meanwhile,
                // or the peer's FIN, wake the next turn.
                if n < readBuffer.count { return }
            }
        }
    }

    private func advanceHandshake() {
        do {
            let done = try tls.handshake()
            flush()
            if done && phase == .handshaking {
                phase = .open
                onHandshake?(Instant.now())
                if phase == .open { drainPlaintext() }
                if phase == .open { onWritable?() }
            }
        } catch {
            flush()
            fail("TLS handshake: \(error)")
        }
    }

    private func drainPlaintext() {
        while phase == .open {
            let r: TLSReadResult
            do { r = try tls.readPlaintext(into: plainBuffer) } catch { return fail("TLS read: \(error)") }
            switch r {
            case .bytes(let n):
                onPlaintext?(UnsafeRawBufferPointer(rebasing: plainBuffer[0..<n]), Instant.now())
            case .wantMore:
                return
            case .closed:
                flush()
                return abort(nil)
            }
        }
    }

    private func flush() {
        guard phase != .closed, phase != .connecting else { return }
        while tls.hasPendingCiphertext {
            let status: IOStatus
            do { status = try Socket.write(fd, tls.pendingCiphertext) } catch { return fail("write: \(error)") }
            switch status {
            case .bytes(let n): tls.dropCiphertext(n)
            case .wouldBlock, .endOfFile:
                if !wantWrite { wantWrite = true; loop.update(fd, [.read, .write]) }
                return
            }
        }
        if wantWrite && !awaitingDrain { wantWrite = false; loop.update(fd, .read) }
        if closeAfterFlush { abort(nil) }
    }
}
