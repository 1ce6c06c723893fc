import BenchCore
internal import CNgtcp2
internal import CNghttp3

/// Called with each datagram to send, its destination and the local address to send from.
typealias DatagramSink = (UnsafeRawBufferPointer, _ remote: Endpoint, _ local: Endpoint) -> Void
/// Called with datagrams of `segmentSize` bytes laid back to back (the last may be shorter), all
/// for one destination and local address, to be sent with the ECN codepoint ngtcp2 asked for.
typealias BatchSink = (
    UnsafeRawBufferPointer, _ segmentSize: Int, _ remote: Endpoint, _ local: Endpoint, _ ecn: ECNCodepoint
) -> Void

/// Packets written back to back into the send buffer since the last hand-over. A batch holds
/// packets of one path, one size and one ECN codepoint; a shorter packet ends it (UDP GSO's rule).
struct PacketBatch {
    private(set) var start = 0
    private(set) var end = 0
    private var segment = 0
    private var count = 0
    private var remote = Endpoint(address: 0, port: 0)
    private var local = Endpoint(address: 0, port: 0)
    private var ecn = ECNCodepoint.notECT

    /// Takes the packet of `size` bytes just written at `end`.
    mutating func append(
        _ size: Int, remote: Endpoint, local: Endpoint, ecn: ECNCodepoint, _ base: UnsafeMutablePointer<UInt8>,
        _ emit: BatchSink
    ) {
        if count > 0 && (size > segment || remote != self.remote || local != self.local || ecn != self.ecn) {
            hand(base, emit)  // the new packet starts the next batch where it lies
        }
        if count == 0 { segment = size; self.remote = remote; self.local = local; self.ecn = ecn }
        end += size
        count += 1
        if size < segment || count >= PacketBuffers.maxBatch { hand(base, emit) }
    }

    /// Hands over what is batched and starts again at the front of the buffer.
    mutating func flush(_ base: UnsafeMutablePointer<UInt8>, _ emit: BatchSink) {
        hand(base, emit)
        start = 0
        end = 0
    }

    private mutating func hand(_ base: UnsafeMutablePointer<UInt8>, _ emit: BatchSink) {
        if count > 0 {
            emit(UnsafeRawBufferPointer(start: base + start, count: end - start), segment, remote, local, ecn)
        }
        start = end
        count = 0
    }
}

extension QUICConnection {
    /// Writes every packet ngtcp2 will build now: HTTP/3 stream data first, then ACKs and
    /// control frames. Stops when ngtcp2 has nothing more, is congestion limited, or has written
    /// one send quantum (ngtcp2 then sets its pacing timer, which `expiry` reflects).
    ///
    /// Packets for one path are written back to back into one buffer and handed over together
    /// (`emit(bytes, segmentSize, remote, local)`: datagrams of `segmentSize` bytes, the last
    /// possibly shorter), ready for one UDP GSO send; a batch never exceeds one send quantum, so
    /// the burst on the wire is the one ngtcp2's pacer allows either way.
    func write(now: Instant, emit: BatchSink) {
        self.now = now
        switch state {
        case .open: break
        case .closing:
            flushClosePacket { bytes, remote, local in emit(bytes, bytes.count, remote, local, .notECT) }
            return
        case .draining, .closed:
            return
        }
        let ts = now.nanoseconds
        engineTime = max(engineTime, ts)
        let maxUDP = ngtcp2_conn_get_max_tx_udp_payload_size(conn)
        let maxPackets = min(PacketBuffers.maxBatch, max(1, ngtcp2_conn_get_send_quantum(conn) / max(maxUDP, 1)))
        let base = buffers.send
        let vecs = buffers.vecs
        let path = buffers.txPath.clear()
        var batch = PacketBatch()
        defer { batch.flush(base, emit) }
        var packets = 0
        var written = 0
        defer { if written > 0 { updatePacing(written: written, ts: ts) } }
        while true {
            if batch.end + maxUDP > PacketBuffers.sendSize { batch.flush(base, emit) }
            var streamID: Int64 = -1
            var fin: Int32 = 0
            var count = 0
            if let h3, ngtcp2_conn_get_max_data_left(conn) > 0 {
                let n = nghttp3_conn_writev_stream(h3, &streamID, &fin, vecs, PacketBuffers.vecCapacity)
                if n < 0 {
                    batch.flush(base, emit)
                    failApplication(Int32(n), "nghttp3_conn_writev_stream")
                    flushClosePacket { bytes, remote, local in emit(bytes, bytes.count, remote, local, .notECT) }
                    return
                }
                count = n
            } else if raw != nil {
                count = nextRawPiece(&streamID, &fin)
            }
            var accepted: ngtcp2_ssize = -1
            var ecn: UInt32 = 0
            var flags = UInt32(NGTCP2_WRITE_STREAM_FLAG_MORE)
            if fin != 0 { flags |= UInt32(NGTCP2_WRITE_STREAM_FLAG_FIN) }
            let n = netbench_ngtcp2_conn_writev_stream(
                conn, path, base + batch.end, maxUDP, &accepted, flags,
                streamID, vecs, count, &ecn, ts)
            if n < 0 {
                switch Int32(n) {
                case NGTCP2_ERR_STREAM_DATA_BLOCKED:
                    if let h3 { nghttp3_conn_block_stream(h3, streamID) } else { raw?.block(streamID) }
                    continue
                case NGTCP2_ERR_STREAM_SHUT_WR:
                    if let h3 { nghttp3_conn_shutdown_stream_write(h3, streamID) } else { raw?.drop(streamID) }
                    continue
                case NGTCP2_ERR_WRITE_MORE:
                    if !addWriteOffset(streamID, accepted, fin: fin != 0, &batch, emit) { return }
                    continue
                default:
                    batch.flush(base, emit)
                    var ccerr = ngtcp2_connection_close_error()
                    ngtcp2_connection_close_error_set_transport_error_liberr(&ccerr, Int32(n), nil, 0)
                    startClosing(ccerr, reporting: transportError(Int32(n), "ngtcp2_conn_writev_stream"))
                    flushClosePacket { bytes, remote, local in emit(bytes, bytes.count, remote, local, .notECT) }
                    return
                }
            }
            if accepted >= 0, !addWriteOffset(streamID, accepted, fin: fin != 0, &batch, emit) { return }
            if n == 0 { return }
            guard let remote = Endpoint(path.pointee.remote), let local = Endpoint(path.pointee.local) else { continue }
            statistics.datagramsSent += 1
            statistics.bytesSent += UInt64(n)
            let codepoint = ECNCodepoint(tos: UInt8(truncatingIfNeeded: ecn))
            statistics.ecnRequested.count(codepoint)
            statistics.lastRequestedECN = codepoint
            batch.append(Int(n), remote: remote, local: local, ecn: codepoint, base, emit)
            packets += 1
            written += Int(n)
            if packets >= maxPackets { return }
        }
    }

    /// Sets ngtcp2's pacer after `written` bytes left at `ts`: it waits written / (1.25 × cwnd/srtt)
    /// before the next packet. Under cubic and reno the wait is scaled to the configured gain of the
    /// phase (`slowStartPacingGain`, 2 as Chromium's and Linux's slow-start pacing;
    /// `congestionAvoidancePacingGain` after it) by handing ngtcp2 an earlier `ts` for this
    /// computation only (it keeps nothing else of it). BBR sets its own pacing rate: left alone.
    private func updatePacing(written: Int, ts: UInt64) {
        var cs = ngtcp2_conn_stat()
        netbench_ngtcp2_conn_get_conn_stat(conn, &cs)
        guard cs.pacing_rate == 0 else { return ngtcp2_conn_update_pkt_tx_time(conn, ts) }
        let gain = cs.cwnd < cs.ssthresh ? config.slowStartPacingGain : config.congestionAvoidancePacingGain
        let adjusted = Self.pacingTimestamp(
            ts: ts, written: written, cwnd: cs.cwnd, smoothedRTT: cs.smoothed_rtt, gain: gain)
        ngtcp2_conn_update_pkt_tx_time(conn, adjusted)
    }

    /// The time to give `ngtcp2_conn_update_pkt_tx_time` after `written` bytes left at `ts` so that
    /// ngtcp2's wait, written / (1.25 × cwnd/srtt) from the time given, ends written /
    /// (gain × cwnd/srtt) after `ts`: earlier for a gain above 1.25, later below it, at `ts` itself
    /// for an infinite gain (no pacing). `ts` unchanged when the gain is 1.25 or not positive, or
    /// before cwnd and an RTT are known.
    static func pacingTimestamp(ts: UInt64, written: Int, cwnd: UInt64, smoothedRTT: UInt64, gain: Double) -> UInt64 {
        guard gain > 0, gain != 1.25, cwnd > 0, smoothedRTT > 0, written > 0 else { return ts }
        let ngtcp2Wait = Double(written) * Double(smoothedRTT) / (Double(cwnd) * 1.25)
        let shift = ngtcp2Wait * (1 - 1.25 / gain)  // negative (a later ts) for a gain below 1.25
        return shift >= 0 ? ts - min(ts, UInt64(shift.rounded(.up))) : ts + UInt64(-shift)
    }

    /// The same, one datagram per call (tests and simple drivers).
    func write(now: Instant, emit: DatagramSink) {
        write(now: now) { (bytes: UnsafeRawBufferPointer, segment: Int, remote: Endpoint, local: Endpoint, _) in
            var offset = 0
            while offset < bytes.count {
                let n = min(segment, bytes.count - offset)
                emit(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + n)]), remote, local)
                offset += n
            }
        }
    }

    private func addWriteOffset(
        _ streamID: Int64, _ accepted: ngtcp2_ssize, fin: Bool, _ batch: inout PacketBatch,
        _ emit: BatchSink
    ) -> Bool {
        if let raw, streamID >= 0 { raw.advance(streamID, by: Int(accepted), fin: fin) }
        guard let h3, streamID >= 0 else { return true }
        let rv = nghttp3_conn_add_write_offset(h3, streamID, Int(accepted))
        if rv != 0 {
            batch.flush(buffers.send, emit)
            failApplication(rv, "nghttp3_conn_add_write_offset")
            flushClosePacket { bytes, remote, local in emit(bytes, bytes.count, remote, local, .notECT) }
            return false
        }
        return true
    }

    func flushClosePacket(_ emit: DatagramSink) {
        guard closing.due, let packet = closing.packet, let path = ngtcp2_conn_get_path(conn),
            let remote = Endpoint(path.pointee.remote), let local = Endpoint(path.pointee.local)
        else { return }
        closing.due = false
        packet.withUnsafeBytes { emit($0, remote, local) }
        if !isServer { state = .closed }
    }

    /// Closes the connection with an HTTP/3 error inferred from an nghttp3 error code.
    func failApplication(_ rv: Int32, _ call: String) {
        var ccerr = ngtcp2_connection_close_error()
        ngtcp2_connection_close_error_set_application_error(
            &ccerr, nghttp3_err_infer_quic_app_error_code(rv), nil, 0)
        startClosing(ccerr, reporting: http3Error(rv, call))
    }

    /// Sends CONNECTION_CLOSE with H3_NO_ERROR (an orderly close by this side).
    func close(now: Instant, emit: DatagramSink) {
        self.now = now
        guard isOpen else { return }
        var ccerr = ngtcp2_connection_close_error()
        ngtcp2_connection_close_error_set_application_error(&ccerr, UInt64(NGHTTP3_H3_NO_ERROR), nil, 0)
        startClosing(
            ccerr,
            reporting: .closedLocally(QUICCloseReason(isApplicationError: true, code: UInt64(NGHTTP3_H3_NO_ERROR))))
        flushClosePacket(emit)
    }

    /// A snapshot of ngtcp2's recovery state plus this engine's counters.
    func currentStatistics() -> QUICStatistics {
        var s = statistics
        guard let conn else { return s }
        var cs = ngtcp2_conn_stat()
        netbench_ngtcp2_conn_get_conn_stat(conn, &cs)
        if cs.min_rtt != UInt64.max {
            // Clamped: ngtcp2 keeps UINT64_MAX-like sentinels in some fields until it has samples.
            s.smoothedRTT = Nanoseconds(clamping: cs.smoothed_rtt)
            s.minRTT = Nanoseconds(clamping: cs.min_rtt)
            s.latestRTT = Nanoseconds(clamping: cs.latest_rtt)
            s.rttVariance = Nanoseconds(clamping: cs.rttvar)
        }
        s.congestionWindow = cs.cwnd
        s.slowStartThreshold = cs.ssthresh
        s.bytesInFlight = cs.bytes_in_flight
        s.deliveryRate = cs.delivery_rate_sec
        s.ptoCount = cs.pto_count
        for id in streams.openBidi {
            s.streamFramesLost += UInt64(ngtcp2_conn_get_stream_loss_count(conn, id))
        }
        return s
    }
}
