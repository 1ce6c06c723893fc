import BenchCore
import LinkModel
import SystemIO

/// The packet loop's I/O on TUN devices opened with a virtio-net header and TCP offloads
/// (`TUNDevice.openWithOffload`): the sending kernel hands over TCP super-packets of up to 64 KB in
/// one read, which the loop cuts into MSS-sized segments (`TCPSegmentation`) before any link sees
/// them, so every segment is charged its own serialization, queue occupancy, loss, AQM decision and
/// ECN mark, and pcaps and link logs record segments. A lost segment is lost alone: the others of
/// its super-packet go on, and the sender's TCP recovers the hole as it would on a wire (SACK, then
/// a retransmission). On the way out, segments of one TCP flow due in the same pass leave in one
/// write as a GSO super-packet again (`OffloadWriter`), which the receiving kernel takes as a
/// GRO-merged packet; everything else leaves alone, marked `DATA_VALID` (the emulator has finished
/// or kept every checksum), so the receiver's stack does not check the checksum again. A segment's
/// TCP checksum is summed only when something looks at it on the way (a capture, a NAT rewrite):
/// otherwise it keeps the pseudo-header's sum and, if it leaves alone, leaves marked `NEEDS_CSUM`
/// (`PacketPool.partialChecksum`), as a sender's stack hands it to a device.
///
/// Merging takes only the segments released in the same pass (`holdWindow` 0): a segment never waits
/// for the next one of its flow. A wait, as a NIC's interrupt coalescing (`rx-usecs`) holds received
/// packets, would merge more at a gigabit but delay segments after their release, outside the release
/// lateness every run is judged by (50 µs gave p99 0.09 ms of such waits at 1 Gbit/s). How long
/// segments waited between release and write is recorded (`holdHistogram`) and reported beside it.
/// What makes the passes, and so the merges, bigger at a gigabit is `ReleaseWindow`: a streaming
/// link is released once per window, before any write, so that wait is part of the lateness.
final class OffloadIO {
    /// The largest read: a 64 KB super-packet and its virtio-net header.
    static let readSize = VirtioNetHeader.size + 65_536
    /// The longest a released segment waits for the next one of its flow (0: none; see above).
    static let holdWindow: Nanoseconds = 0
    let readBuffer: UnsafeMutableRawBufferPointer
    /// One writer per destination TUN.
    private(set) var writers: [(fd: FileDescriptor, writer: OffloadWriter)] = []
    /// Time from a segment's release to its write, for segments that waited to merge.
    var holdHistogram = LatenessHistogram()
    /// Writes made and packets they carried (packets / writes = segments merged per write).
    var writes: Int64 = 0
    var reads: Int64 = 0
    /// Whether UDP datagrams of one flow leave merged (`GSO_UDP_L4`); cleared for good when the
    /// kernel refuses such a write.
    var mergeDatagrams = true

    /// The TUNs' NAPI kernel threads and their CPU time when the loop started.
    let napiThreads: [Int32]
    private let napiCPUAtStart: [Int64?]

    init(devices: [FileDescriptor], napiThreads: [Int32] = []) {
        readBuffer = .allocate(byteCount: Self.readSize, alignment: 64)
        writers = devices.map { ($0, OffloadWriter()) }
        self.napiThreads = napiThreads
        napiCPUAtStart = napiThreads.map { CPUTime.threadOnCPUNs(pid: $0) }
    }

    /// The NAPI threads' CPU time since `init` (ns), all together; nil without threads or when
    /// one could not be read.
    func napiCPUSinceStart() -> Nanoseconds? {
        guard !napiThreads.isEmpty else { return nil }
        var total: Int64 = 0
        for (pid, start) in zip(napiThreads, napiCPUAtStart) {
            guard let start, let now = CPUTime.threadOnCPUNs(pid: pid) else { return nil }
            total += now - start
        }
        return total
    }
    deinit { readBuffer.deallocate() }

    @inline(__always)
    func writer(for fd: FileDescriptor) -> OffloadWriter {
        for w in writers where w.fd == fd { return w.writer }
        preconditionFailure("no offload writer for fd \(fd.rawValue)")
    }
}

extension PacketForwarder {
    /// Reads from one offloading TUN until `batch` packets (segments) entered its links or nothing
    /// waits; true when the batch filled (more may be waiting).
    func readOffloaded(port: Int, io: OffloadIO) -> Bool {
        let fd = port == 0 ? serverFD : clientFDs[port - 1]
        var admitted = 0
        while admitted < batch {
            let status: IOStatus
            do { status = try Socket.read(fd, into: io.readBuffer) } catch {
                counters.readErrors += 1
                return false
            }
            guard case .bytes(let n) = status, n > VirtioNetHeader.size else { return false }
            io.reads += 1
            let now = Instant.now()
            lastArrival = now
            lastPacket = now
            let header = VirtioNetHeader(UnsafeRawBufferPointer(io.readBuffer))
            let packet = UnsafeMutableRawBufferPointer(rebasing: io.readBuffer[VirtioNetHeader.size..<n])
            let at = arrival(port: port, UnsafeRawBufferPointer(packet), readAt: now)
            admitted += admitSuperPacket(packet, header: header, port: port, at: at)
        }
        return true
    }

    /// Cuts a packet read with `header` into segments (one when it is not a super-packet), puts each
    /// in a pool buffer and routes it into its link. Returns how many segments it made.
    func admitSuperPacket(_ packet: UnsafeMutableRawBufferPointer, header: VirtioNetHeader, port: Int, at now: Instant)
        -> Int
    {
        if header.gsoType != VirtioNetHeader.gsoNone {
            guard header.isTCPv4Segmentation, header.gsoSize > 0 else {
                counters.unsegmentable += 1
                return 1
            }
            let source = UnsafeRawBufferPointer(packet)
            let count = TCPSegmentation.segmentCount(source, segmentSize: Int(header.gsoSize))
            // The segments' TCP checksums are left to the write (NEEDS_CSUM, or merged again) unless
            // something looks at them before (`segmentChecksumsMayWait`); IP options: summed here.
            let partial = source.count > 0 && source[0] == 0x45 && segmentChecksumsMayWait
            for i in 0..<count {
                guard let slot = pool.take() else {
                    counters.poolExhausted += 1
                    continue
                }
                guard
                    let length = TCPSegmentation.writeSegment(
                        i, of: source, segmentSize: Int(header.gsoSize), into: pool.slot(slot),
                        partialChecksum: partial)
                else {
                    counters.unsegmentable += 1
                    pool.put(slot)
                    continue
                }
                if partial { pool.setPartialChecksum(slot) }
                admit(slot: slot, length: length, port: port, at: now)
            }
            return count
        }
        if header.flags & VirtioNetHeader.needsChecksum != 0 {
            TCPSegmentation.completeChecksum(
                packet, start: Int(header.checksumStart), offset: Int(header.checksumOffset))
        }
        guard packet.count <= PacketPool.slotSize else {
            counters.unsegmentable += 1
            return 1
        }
        guard let slot = pool.take() else {
            counters.poolExhausted += 1
            return 1
        }
        pool.slot(slot).baseAddress!.copyMemory(from: packet.baseAddress!, byteCount: packet.count)
        admit(slot: slot, length: packet.count, port: port, at: now)
        return 1
    }
}

/// The write side of `OffloadIO`: holds the segments of one TCP flow that leave a link in one pass
/// and writes them as one GSO super-packet (virtio-net header `GSO_TCPV4`, `NEEDS_CSUM`), as a NIC's
/// GRO would hand them to the stack. Segments merge only as Linux's `tcp_gro_receive` would merge
/// them: IPv4 without options, the same addresses, ports, TOS (so a CE mark is never spread or
/// lost), TTL, acknowledgment, window and TCP options, consecutive sequence numbers, only ACK set
/// (PSH on the last), every segment but the last of the first one's size. UDP datagrams of one flow
/// (QUIC) merge as `udp_gro_receive` would merge them into a `GSO_UDP_L4` super-packet: IPv4
/// without options or fragments, the same addresses, ports, TOS and TTL, every datagram but the
/// last of the first one's size; a receiver without `UDP_GRO` gets them back one by one from its
/// kernel. Pool buffers stay held until their write.
final class OffloadWriter {
    static let maxSegments = 44
    let gather = GatherWrite(capacity: maxSegments + 2)
    /// The virtio-net header of a packet that leaves alone: `DATA_VALID`, no GSO.
    let plainHeader: UnsafeMutableRawBufferPointer
    /// The same for a TCP/IPv4 segment (no IP options) whose checksum field holds only the
    /// pseudo-header's sum (`PacketPool.partialChecksum`): `NEEDS_CSUM` from the TCP header, field at 16,
    /// as a sender's stack hands a segment to its device; a local receiver takes it as checked.
    let partialHeader: UnsafeMutableRawBufferPointer
    /// The virtio-net header and the merged packet's IP and TCP headers.
    let gsoHeader: UnsafeMutableRawBufferPointer
    private(set) var handles: [Int32] = []
    private(set) var lengths: [Int] = []
    /// When each held segment was released (for the hold histogram).
    private(set) var releasedAt: [Instant] = []
    var segmentSize = 0
    var headerLength = 0
    var nextSequence: UInt32 = 0
    var totalLength = 0
    var closed = false
    /// The held packets are UDP datagrams (else TCP segments).
    var isUDP = false
    static let udpHeaderLength = 28

    init() {
        plainHeader = .allocate(byteCount: VirtioNetHeader.size, alignment: 16)
        VirtioNetHeader(flags: VirtioNetHeader.dataValid).write(to: plainHeader)
        partialHeader = .allocate(byteCount: VirtioNetHeader.size, alignment: 16)
        var partial = VirtioNetHeader(flags: VirtioNetHeader.needsChecksum)
        partial.checksumStart = 20
        partial.checksumOffset = 16
        partial.write(to: partialHeader)
        gsoHeader = .allocate(byteCount: VirtioNetHeader.size + 120, alignment: 16)
        handles.reserveCapacity(Self.maxSegments)
        lengths.reserveCapacity(Self.maxSegments)
        releasedAt.reserveCapacity(Self.maxSegments)
    }

    deinit {
        plainHeader.deallocate()
        partialHeader.deallocate()
        gsoHeader.deallocate()
    }

    var isEmpty: Bool { handles.isEmpty }

    /// Whether more segments may still join (not closed by a short or PSH segment, room left).
    var isOpen: Bool { !closed && handles.count < Self.maxSegments }

    /// Whether `p` could begin a merge: TCP/IPv4 without IP options, with payload, only ACK (PSH) set.
    static func canStart(_ p: UnsafeRawBufferPointer) -> Bool {
        if isUDPDatagram(p) { return true }
        guard let h = TCPSegmentation.headerLength(p), p[0] == 0x45, p.count > h else { return false }
        let flags = p[20 + 13]
        return flags == 0x10 || flags == 0x18
    }

    /// A UDP/IPv4 datagram without IP options, not a fragment, with payload.
    static func isUDPDatagram(_ p: UnsafeRawBufferPointer) -> Bool {
        p.count > udpHeaderLength && p[0] == 0x45 && p[9] == 17 && TCPSegmentation.load16(p, 6) & 0x3FFF == 0
    }

    /// Whether `p` continues the held segments (`first` is the first of them).
    func continues(_ p: UnsafeRawBufferPointer, first f: UnsafeRawBufferPointer) -> Bool {
        if isUDP { return continuesDatagrams(p, first: f) }
        guard !closed, handles.count < Self.maxSegments, p.count >= headerLength, p[0] == 0x45, p[9] == 6,
            Int(p[32] >> 4) * 4 + 20 == headerLength
        else { return false }
        let payload = p.count - headerLength
        guard payload > 0, payload <= segmentSize, totalLength + payload <= 65_535 else { return false }
        guard p[33] == 0x10 || p[33] == 0x18, TCPSegmentation.load32(p, 24) == nextSequence else { return false }
        // TOS, flags/fragment word, TTL, protocol, addresses; ports; ack; window; urgent; options.
        // (Checked range by range: an array of ranges here cost 7% of the loop's time at 1 Gbit/s.)
        return equal(p, f, 1, 2) && equal(p, f, 6, 7) && equal(p, f, 8, 10) && equal(p, f, 12, 24)
            && equal(p, f, 28, 32) && equal(p, f, 34, 36) && equal(p, f, 38, headerLength)
    }

    private func continuesDatagrams(_ p: UnsafeRawBufferPointer, first f: UnsafeRawBufferPointer) -> Bool {
        guard !closed, handles.count < Self.maxSegments, Self.isUDPDatagram(p) else { return false }
        let payload = p.count - Self.udpHeaderLength
        guard payload <= segmentSize, totalLength + payload <= 65_535 else { return false }
        // TOS, DF, TTL, protocol, addresses, ports.
        return equal(p, f, 1, 2) && equal(p, f, 6, 7) && equal(p, f, 8, 10) && equal(p, f, 12, 24)
    }

    /// Whether `p[a..<b]` equals `f[a..<b]` (both hold at least `b` bytes: the callers check),
    /// eight bytes at a time.
    @inline(__always)
    private func equal(_ p: UnsafeRawBufferPointer, _ f: UnsafeRawBufferPointer, _ a: Int, _ b: Int) -> Bool {
        let x = p.baseAddress!, y = f.baseAddress!
        var i = a
        while i + 8 <= b {
            let u = x.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if u != y.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i += 8
        }
        while i < b {
            if x.load(fromByteOffset: i, as: UInt8.self) != y.load(fromByteOffset: i, as: UInt8.self) { return false }
            i += 1
        }
        return true
    }

    func hold(_ handle: Int32, _ p: UnsafeRawBufferPointer, at now: Instant = Instant(nanoseconds: 0)) {
        if handles.isEmpty {
            isUDP = Self.isUDPDatagram(p)
            headerLength = isUDP ? Self.udpHeaderLength : TCPSegmentation.headerLength(p) ?? 0
            segmentSize = p.count - headerLength
            totalLength = headerLength
            nextSequence = TCPSegmentation.load32(p, 24)
        }
        let payload = p.count - headerLength
        handles.append(handle)
        lengths.append(p.count)
        releasedAt.append(now)
        totalLength += payload
        nextSequence &+= UInt32(payload)
        closed = payload < segmentSize || (!isUDP && p[33] & 0x08 != 0)
    }

    func removeAll() {
        isUDP = false
        handles.removeAll(keepingCapacity: true)
        lengths.removeAll(keepingCapacity: true)
        releasedAt.removeAll(keepingCapacity: true)
        closed = false
    }

    /// Assembles the held segments as one super-packet in `gather` (header copy fixed up: total
    /// length, IP checksum, PSH of the last segment, the TCP checksum field holding the
    /// pseudo-header sum the receiver's `NEEDS_CSUM` handling expects).
    func assemble(
        first f: UnsafeRawBufferPointer, last l: UnsafeRawBufferPointer, payloads: (Int) -> UnsafeRawBufferPointer
    ) {
        var v = VirtioNetHeader(
            flags: VirtioNetHeader.needsChecksum, gsoType: isUDP ? VirtioNetHeader.gsoUDPL4 : VirtioNetHeader.gsoTCPv4,
            gsoSize: UInt16(segmentSize))
        v.headerLength = UInt16(headerLength)
        v.checksumStart = 20
        v.checksumOffset = isUDP ? 6 : 16
        v.write(to: gsoHeader)
        let end = VirtioNetHeader.size + headerLength
        let h = UnsafeMutableRawBufferPointer(rebasing: gsoHeader[VirtioNetHeader.size..<end])
        h.baseAddress!.copyMemory(from: f.baseAddress!, byteCount: headerLength)
        TCPSegmentation.store16(h, 2, UInt16(totalLength))
        TCPSegmentation.store16(h, 10, 0)
        TCPSegmentation.store16(h, 10, ~Checksum.fold(Checksum.sum(UnsafeRawBufferPointer(rebasing: h[0..<20]))))
        var pseudo = Checksum.sum(UnsafeRawBufferPointer(rebasing: h[12..<20]))
        pseudo += UInt64(isUDP ? 17 : 6) + UInt64(totalLength - 20)
        if isUDP {
            // The UDP length of the whole (the receiver's kernel sets each datagram's when it splits).
            TCPSegmentation.store16(h, 24, UInt16(totalLength - 20))
            TCPSegmentation.store16(h, 26, Checksum.fold(pseudo))
        } else {
            h[33] |= l[33] & 0x08
            TCPSegmentation.store16(h, 36, Checksum.fold(pseudo))
        }
        gather.reset()
        gather.append(UnsafeRawBufferPointer(rebasing: gsoHeader[0..<end]))
        for i in handles.indices { gather.append(payloads(i)) }
    }
}

extension PacketForwarder {
    /// Sends one released packet through an offloading TUN: held to merge with the next ones of its
    /// flow, or written at once (after whatever was held). The pool buffer is returned once written.
    func sendOffloaded(_ handle: Int32, length: Int, to fd: FileDescriptor, io: OffloadIO, now: Instant) {
        let w = io.writer(for: fd)
        let bytes = pool.bytes(handle, length: length)
        if !w.isEmpty {
            if w.continues(bytes, first: pool.bytes(w.handles[0], length: w.lengths[0])) {
                w.hold(handle, bytes, at: now)
                return
            }
            flushOffloaded(to: fd, io: io)
        }
        if OffloadWriter.canStart(bytes) {
            w.hold(handle, bytes, at: now)
            return
        }
        writeCounted(fd, packets: 1, io: io) {
            w.gather.reset()
            w.gather.append(aloneHeader(handle, w))
            w.gather.append(bytes)
        }
        pool.put(handle)
    }

    /// The virtio-net header of the packet in `handle` written alone (see `OffloadWriter.partialHeader`).
    @inline(__always)
    func aloneHeader(_ handle: Int32, _ w: OffloadWriter) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(pool.partialChecksum(handle) ? w.partialHeader : w.plainHeader)
    }

    /// Writes what the offload writer holds (one packet alone, more as one super-packet).
    func flushOffloaded(to fd: FileDescriptor, io: OffloadIO) {
        let w = io.writer(for: fd)
        guard !w.isEmpty else { return }
        let first = pool.bytes(w.handles[0], length: w.lengths[0])
        let now = Instant.now()
        for t in w.releasedAt { io.holdHistogram.record(now.since(t)) }
        let merged = w.handles.count > 1 && (!w.isUDP || io.mergeDatagrams)
        let packets = merged ? w.handles.count : 1
        let written = writeCounted(fd, packets: packets, io: io, countFailure: !(w.isUDP && merged)) {
            if !merged {
                w.gather.reset()
                w.gather.append(aloneHeader(w.handles[0], w))
                w.gather.append(first)
            } else {
                let last = pool.bytes(w.handles[w.handles.count - 1], length: w.lengths[w.handles.count - 1])
                w.assemble(first: first, last: last) { i in
                    UnsafeRawBufferPointer(
                        rebasing: pool.bytes(w.handles[i], length: w.lengths[i])[w.headerLength...])
                }
            }
        }
        if w.isUDP && (!merged || !written) {
            // The kernel refused a UDP GSO write (a kernel without GSO_UDP_L4 from a TUN): datagrams
            // leave one by one from now on, these included.
            if merged { io.mergeDatagrams = false }
            for i in (merged ? 0 : 1)..<w.handles.count {
                let bytes = pool.bytes(w.handles[i], length: w.lengths[i])
                writeCounted(fd, packets: 1, io: io) {
                    w.gather.reset()
                    w.gather.append(aloneHeader(w.handles[i], w))
                    w.gather.append(bytes)
                }
            }
        }
        for h in w.handles { pool.put(h) }
        w.removeAll()
    }

    /// The end of a link's release pass: what is held for `fd` is written, unless its link's next
    /// release is due within `OffloadIO.holdWindow` and more segments may join.
    func endOffloadedPass(_ link: Link, to fd: FileDescriptor, now: Instant, io: OffloadIO) {
        let w = io.writer(for: fd)
        guard !w.isEmpty else { return }
        if w.isOpen, let next = link.nextWakeup(now: now), next.since(w.releasedAt[0]) <= OffloadIO.holdWindow {
            return
        }
        flushOffloaded(to: fd, io: io)
    }

    /// Writes whatever every writer holds (after the loop stopped).
    func flushAllOffloaded() {
        guard let io = offloadIO else { return }
        for (fd, _) in io.writers { flushOffloaded(to: fd, io: io) }
    }

    /// One gathered write; a failed or refused write counts each packet it carried (unless
    /// `countFailure` is false: the caller retries them). True when the write succeeded.
    @discardableResult
    private func writeCounted(
        _ fd: FileDescriptor, packets: Int, io: OffloadIO, countFailure: Bool = true, assemble: () -> Void
    ) -> Bool {
        assemble()
        io.writes += 1
        do {
            if case .wouldBlock = try io.writer(for: fd).gather.write(to: fd) {
                counters.writeErrors += Int64(packets)
                return true  // the device's queue is full: dropped as a full NIC queue drops, not retried
            }
            return true
        } catch {
            if countFailure { counters.writeErrors += Int64(packets) }
            return false
        }
    }
}
