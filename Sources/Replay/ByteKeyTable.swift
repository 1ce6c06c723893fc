/// A read-only map from byte strings to resource indices, for the replay server's per-request lookup.
///
/// `Dictionary<String, _>` hashes with SipHash through `Hasher` (~250 instructions a key here); the
/// catalog's lookup took three of them a request (host, method scope, path: ~1,300 instructions with
/// the probing, callgrind of `serve` under h2load). This table hashes the request's bytes once with
/// FNV-1a and probes linearly. Built once from the scenario's own keys and never written after, so a
/// client cannot grow a collision chain: the longest probe is fixed when the table is built.
/// A key may be two parts (`host`, `path`) joined by a 0 byte, looked up without joining them.
struct ByteKeyTable: Sendable {
    private struct Slot: Sendable {
        var hash: UInt64
        var start: Int
        var length: Int
        var value: Int  // -1: empty
    }

    private var slots: [Slot]
    private var bytes: [UInt8] = []
    private var mask: Int
    var count: Int { slots.reduce(0) { $0 + ($1.value >= 0 ? 1 : 0) } }

    /// `entries`' keys are distinct (a repeated key keeps its first value).
    init(_ entries: [(key: [UInt8], value: Int)]) {
        var capacity = 8
        while capacity < entries.count * 2 { capacity *= 2 }
        mask = capacity - 1
        slots = Array(repeating: Slot(hash: 0, start: 0, length: 0, value: -1), count: capacity)
        for (key, value) in entries {
            let hash = Self.hash(key)
            var i = Int(truncatingIfNeeded: hash) & mask
            var duplicate = false
            while slots[i].value >= 0 {
                if slots[i].hash == hash && slots[i].length == key.count
                    && bytes[slots[i].start..<slots[i].start + key.count].elementsEqual(key)
                {
                    duplicate = true
                    break
                }
                i = (i + 1) & mask
            }
            if duplicate { continue }
            slots[i] = Slot(hash: hash, start: bytes.count, length: key.count, value: value)
            bytes.append(contentsOf: key)
        }
    }

    /// The key of two parts, as `value(_:_:)` looks it up.
    static func key(_ first: String, _ second: String) -> [UInt8] {
        Array(first.utf8) + [0] + Array(second.utf8)
    }

    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x100_0000_01b3

    static func hash(_ key: [UInt8]) -> UInt64 {
        key.withUnsafeBufferPointer { mix(offsetBasis, $0) }
    }

    @inline(__always)
    private static func mix(_ start: UInt64, _ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h = start
        for b in bytes { h = (h ^ UInt64(b)) &* prime }
        return h
    }

    /// The value of the key `bytes`, nil when absent.
    func value(_ key: UnsafeBufferPointer<UInt8>) -> Int? {
        find(hash: Self.mix(Self.offsetBasis, key), length: key.count) { stored in
            Self.equal(stored, 0, key)
        }
    }

    /// The value of the two-part key `first` 0 `second`, nil when absent.
    func value(_ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>) -> Int? {
        let hash = Self.mix((Self.mix(Self.offsetBasis, first) ^ 0) &* Self.prime, second)
        return find(hash: hash, length: first.count + 1 + second.count) { stored in
            stored[first.count] == 0 && Self.equal(stored, 0, first) && Self.equal(stored, first.count + 1, second)
        }
    }

    /// Whether `stored` holds `part`'s bytes from `offset` on (the caller checked the length).
    @inline(__always)
    private static func equal(_ stored: UnsafeBufferPointer<UInt8>, _ offset: Int, _ part: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        for i in 0..<part.count where stored[offset + i] != part[i] { return false }
        return true
    }

    @inline(__always)
    private func find(hash: UInt64, length: Int, _ equal: (UnsafeBufferPointer<UInt8>) -> Bool) -> Int? {
        bytes.withUnsafeBufferPointer { all in
            var i = Int(truncatingIfNeeded: hash) & mask
            while true {
                let slot = slots[i]
                if slot.value < 0 { return nil }
                if slot.hash == hash && slot.length == length
                    && equal(UnsafeBufferPointer(rebasing: all[slot.start..<slot.start + length]))
                {
                    return slot.value
                }
                i = (i + 1) & mask
            }
        }
    }
}
