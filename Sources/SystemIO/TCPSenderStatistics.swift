internal import CLinux

/// The sending side of one TCP connection as the kernel counts it (TCP_INFO), read just before the
/// socket is closed: how much it sent, how much of that it had to send again, and the congestion
/// state it ended in. A page whose transfers lost packets in slow start shows here as retransmitted
/// segments and a slow-start threshold far below the path's bandwidth-delay product.
public struct TCPSenderStatistics: Sendable, Hashable {
    /// Data segments sent, retransmissions included (tcpi_data_segs_out).
    public var dataSegmentsSent: UInt32
    /// Segments retransmitted over the connection's life (tcpi_total_retrans).
    public var segmentsRetransmitted: UInt32
    /// Payload bytes sent, retransmissions included (tcpi_bytes_sent).
    public var bytesSent: UInt64
    /// Payload bytes retransmitted (tcpi_bytes_retrans).
    public var bytesRetransmitted: UInt64
    /// Congestion window at the end, in segments (tcpi_snd_cwnd).
    public var congestionWindowSegments: UInt32
    /// Slow-start threshold at the end, in segments; nil while it is still "infinite" (the
    /// connection never left slow start: no loss was detected).
    public var slowStartThresholdSegments: UInt32?
    /// Sender's maximum segment size, bytes (tcpi_snd_mss).
    public var maximumSegmentBytes: UInt32
    /// Smoothed and minimum RTT the sender measured, microseconds (tcpi_rtt, tcpi_min_rtt).
    public var smoothedRTTMicroseconds: UInt32
    public var minimumRTTMicroseconds: UInt32
    /// Retransmission timeouts that fired in a row at the end (tcpi_backoff is per episode, so
    /// the count of RTOs overall is not in TCP_INFO; this is what there is).
    public var timeoutBackoff: UInt8
    /// Whether the connection negotiated ECN (tcpi_options & TCPI_OPT_ECN).
    public var ecnNegotiated: Bool
    /// Packets the receiver reported CE-marked (ECE) among those delivered (tcpi_delivered_ce).
    public var deliveredCE: UInt32

    /// The kernel's "infinite" slow-start threshold (TCP_INFINITE_SSTHRESH).
    static let infiniteThreshold: UInt32 = 0x7fff_ffff

    init(_ info: netbench_tcp_info) {
        dataSegmentsSent = info.data_segs_out
        segmentsRetransmitted = info.total_retrans
        bytesSent = info.bytes_sent
        bytesRetransmitted = info.bytes_retrans
        congestionWindowSegments = info.snd_cwnd
        slowStartThresholdSegments = info.snd_ssthresh >= Self.infiniteThreshold ? nil : info.snd_ssthresh
        maximumSegmentBytes = info.snd_mss
        smoothedRTTMicroseconds = info.rtt
        minimumRTTMicroseconds = info.min_rtt
        timeoutBackoff = info.backoff
        ecnNegotiated = Int32(info.options) & netbench_tcpi_opt_ecn != 0
        deliveredCE = info.delivered_ce
    }
}
