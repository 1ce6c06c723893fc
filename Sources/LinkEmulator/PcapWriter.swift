import Foundation
import BenchCore
import SystemIO

/// One classic pcap file (libpcap 2.4, nanosecond timestamps, snaplen 65535, LINKTYPE_RAW: each
/// record is an IPv4 packet with no link-layer header), written through `AppendOnlyFile`.
///
/// Records collect in memory and go to the file in writes of at least `flushSize` bytes, so the
/// packet loop makes one large write(2) now and then instead of one per packet. A failed write
/// (a full disk) is cut away again by `AppendOnlyFile`: the file keeps ending with a whole record.
final class PcapWriter {
    static let linkTypeRaw: UInt32 = 101
    static let snapLength = 65_535
    /// The nanosecond-resolution magic; readers learn the byte order from it.
    static let magic: UInt32 = 0xA1B2_3C4D
    static let flushSize = 1 << 20

    let path: String
    private let file: AppendOnlyFile
    private var buffer: [UInt8] = []
    private(set) var packets = 0

    /// Creates `path` afresh (a file of the same name from an earlier capture is replaced) and
    /// writes the global header.
    init(path: String) throws {
        self.path = path
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        file = try AppendOnlyFile(path: path)
        buffer.reserveCapacity(Self.flushSize + Self.snapLength + 16)
        put32(Self.magic)
        put16(2)
        put16(4)
        put32(0)  // thiszone: timestamps are UTC
        put32(0)  // sigfigs
        put32(UInt32(Self.snapLength))
        put32(Self.linkTypeRaw)
    }

    /// Adds one packet stamped `wallClock` (ns since the Unix epoch); writes when the buffer is full.
    func append(_ bytes: UnsafeRawBufferPointer, wallClock: Int64) throws {
        let captured = min(bytes.count, Self.snapLength)
        put32(UInt32(truncatingIfNeeded: wallClock / 1_000_000_000))
        put32(UInt32(truncatingIfNeeded: wallClock % 1_000_000_000))
        put32(UInt32(captured))
        put32(UInt32(bytes.count))
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<captured]))
        packets += 1
        if buffer.count >= Self.flushSize { try flush() }
    }

    /// Writes what is buffered.
    func flush() throws {
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        try file.append(buffer, sync: false)
    }

    private func put32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { buffer.append(contentsOf: $0) } }
    private func put16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { buffer.append(contentsOf: $0) } }
}
