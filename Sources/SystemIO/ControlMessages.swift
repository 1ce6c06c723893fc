internal import CLinux
import BenchCore

/// The control messages a UDP socket sends and receives beside its datagrams (GSO segment size,
/// receive time, TOS byte), encoded and decoded by the same C helpers the socket calls use, so that
/// their layout can be checked without a socket.
public enum ControlMessages {
    /// What one receive's control messages said.
    public struct Received: Equatable, Sendable {
        /// UDP_GRO segment size; nil when the kernel did not coalesce.
        public var segmentSize: Int?
        /// SO_TIMESTAMPNS receive time, CLOCK_REALTIME ns.
        public var realtimeStamp: Int64?
        /// The ECN codepoint of the IP_TOS byte (IP_RECVTOS).
        public var ecn: ECNCodepoint?
        /// The whole TOS byte.
        public var tos: UInt8?

        public init(segmentSize: Int? = nil, realtimeStamp: Int64? = nil, ecn: ECNCodepoint? = nil, tos: UInt8? = nil) {
            self.segmentSize = segmentSize; self.realtimeStamp = realtimeStamp; self.ecn = ecn; self.tos = tos
        }
    }

    /// The control buffer a sendmsg carries: a UDP_SEGMENT message when `segmentSize` is given, an
    /// IP_TOS message with `ecn` in the low bits when it is given. Empty when neither is.
    public static func encode(segmentSize: Int? = nil, ecn: ECNCodepoint?) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: Int(netbench_cmsg_capacity))
        let used = buffer.withUnsafeMutableBytes {
            netbench_cmsg_encode(
                $0.baseAddress, $0.count, UInt16(clamping: segmentSize ?? 0), ecn.map { Int32($0.rawValue) } ?? -1)
        }
        precondition(used >= 0, "the control buffer is sized for both messages")
        return Array(buffer.prefix(used))
    }

    /// Decodes the control buffer of a recvmsg (`msg_control`, `msg_controllen` bytes).
    public static func decode(_ control: [UInt8]) -> Received {
        var segment: Int32 = 0
        var stamp: Int64 = 0
        var tos: Int32 = -1
        control.withUnsafeBytes { netbench_cmsg_decode($0.baseAddress, $0.count, &segment, &stamp, &tos) }
        let byte = tos >= 0 ? UInt8(truncatingIfNeeded: tos) : nil
        return Received(
            segmentSize: segment > 0 ? Int(segment) : nil, realtimeStamp: stamp > 0 ? stamp : nil,
            ecn: byte.map(ECNCodepoint.init(tos:)), tos: byte)
    }
}
