#if canImport(Glibc)
    import Glibc
#endif
internal import CLinux
import BenchCore

/// A packet tap on one network device: a copy of the first bytes of every packet the host sends
/// into the device, each with the kernel's time of sending (an AF_PACKET socket with a BPF filter
/// that keeps outgoing packets only, and SO_TIMESTAMPNS). On a TUN device that time is when a
/// packet entered the device's queue, before the process reading the TUN has woken: the emulator
/// takes a packet's arrival from it (see `ArrivalStamps` in LinkEmulator).
public enum PacketTap {
    /// Bytes kept of each packet: IPv4 and TCP headers with options, enough to tell packets apart.
    public static let snapLength = 64

    /// Opens a tap on `device` in the calling thread's network namespace (non-blocking).
    public static func open(device: String, receiveBuffer: Int32 = 1 << 20) throws -> FileDescriptor {
        let index = if_nametoindex(device)
        guard index > 0 else { throw Sys.fail("if_nametoindex(\(device))") }
        let fd = netbench_packet_tap_open(Int32(index), Int32(snapLength), receiveBuffer)
        guard fd >= 0 else { throw Sys.fail("packet tap on \(device)") }
        return FileDescriptor(rawValue: fd)
    }

    /// One tapped packet: the bytes copied into `buffer` (at most its size), the length the tap
    /// kept (the filter cuts packets to `snapLength`, so not the packet's own) and the kernel's
    /// send time (CLOCK_REALTIME ns; nil when none came); nil when nothing is waiting.
    public static func read(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) throws -> (
        captured: Int, length: Int, realtime: Int64?
    )? {
        var length = 0
        var stamp: Int64 = 0
        let r = try Sys.check("recvmsg(packet tap)") {
            netbench_packet_tap_read(fd.rawValue, buffer.baseAddress, buffer.count, &length, &stamp)
        }
        guard let r else { return nil }
        return (r, length, stamp > 0 ? stamp : nil)
    }
}
