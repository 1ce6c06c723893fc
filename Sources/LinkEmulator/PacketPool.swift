/// Preallocated packet buffers: one contiguous region cut into fixed slots and a free stack of
/// slot indices, so the packet loop never allocates per packet. The stack hands back the most
/// recently freed slot first, whose bytes are still warm in the cache.
final class PacketPool {
    static let slotSize = 2048  // > MTU 1500; the TUN devices are created with MTU 1500

    let capacity: Int
    private let region: UnsafeMutableRawPointer
    private let free: UnsafeMutablePointer<Int32>
    private var freeCount: Int

    init(capacity: Int) {
        self.capacity = capacity
        // Pages are committed only when first touched, so a generous capacity costs little.
        region = .allocate(byteCount: capacity * Self.slotSize, alignment: 64)
        free = .allocate(capacity: capacity)
        for i in 0..<capacity { free[i] = Int32(capacity - 1 - i) }
        freeCount = capacity
    }

    deinit {
        region.deallocate()
        free.deallocate()
    }

    var available: Int { freeCount }

    @inline(__always)
    func take() -> Int32? {
        guard freeCount > 0 else { return nil }
        freeCount -= 1
        return free[freeCount]
    }

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
