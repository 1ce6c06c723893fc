import SystemIO

/// Preallocated packet buffers: one contiguous region cut into fixed slots and a free stack of
/// slot indices, so the packet loop never allocates per packet. The stack hands back the most
/// recently freed slot first, whose bytes are still warm in the cache.
final class PacketPool {
    static let slotSize = 2048  // > MTU 1500; the TUN devices are created with MTU 1500

    let capacity: Int
    private let region: UnsafeMutableRawPointer
    private let free: UnsafeMutablePointer<Int32>
    private var freeCount: Int
    /// Per slot: its TCP checksum field holds only the pseudo-header's sum (`partialChecksum`).
    private let partial: UnsafeMutablePointer<Bool>

    init(capacity: Int) {
        self.capacity = capacity
        // Pages are committed only when first touched, so a generous capacity costs little; huge
        // pages where the kernel gives them (see `HugePages`).
        region = HugePages.allocate(byteCount: capacity * Self.slotSize)
        free = .allocate(capacity: capacity)
        for i in 0..<capacity { free[i] = Int32(capacity - 1 - i) }
        freeCount = capacity
        partial = .allocate(capacity: capacity)
        partial.initialize(repeating: false, count: capacity)
    }

    deinit {
        HugePages.deallocate(region)
        free.deallocate()
        partial.deallocate()
    }

    var available: Int { freeCount }

    @inline(__always)
    func take() -> Int32? {
        guard freeCount > 0 else { return nil }
        freeCount -= 1
        let slot = free[freeCount]
        partial[Int(slot)] = false
        return slot
    }

    /// Whether the TCP segment in `slot` carries only its pseudo-header's sum in its checksum field
    /// (written that way by `TCPSegmentation.writeSegment(partialChecksum:)`): it must leave with a
    /// `NEEDS_CSUM` virtio-net header, or merged. False for every slot `take` hands out.
    @inline(__always)
    func partialChecksum(_ slot: Int32) -> Bool { partial[Int(slot)] }

    @inline(__always)
    func setPartialChecksum(_ slot: Int32) { partial[Int(slot)] = true }

    @inline(__always)
    func put(_ slot: Int32) {
        free[freeCount] = slot
        freeCount += 1
    }

    /// The whole slot, for reading a packet into.
    @inline(__always)
    func slot(_ slot: Int32) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: region + Int(slot) * Self.slotSize, count: Self.slotSize)
    }

    /// The first `length` bytes of a slot, for writing a packet out.
    @inline(__always)
    func bytes(_ slot: Int32, length: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: region + Int(slot) * Self.slotSize, count: length)
    }
}
