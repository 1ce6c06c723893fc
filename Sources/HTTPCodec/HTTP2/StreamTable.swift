/// A map from HTTP/2 stream ids to per-stream state, for the lookups done per frame and per
/// request (the client's open requests, a session's inbound and outbound streams).
///
/// A `Dictionary` hashes every key with SipHash; under a load generator's 100,000 requests a
/// second its ten or so lookups per request cost about 5% of the CPU. Stream ids are positive and
/// handed out in order by each side (RFC 9113 §5.1.1), so `id >> 1` spreads the live streams of
/// one connection over consecutive slots: open addressing with linear probing finds a stream in
/// its first slot almost always. Removal shifts the entries behind it back (no tombstones), so a
/// table whose streams come and go never fills up with dead slots.
/// Every member is `@inlinable`: the table is used from other modules (the HTTP/2 clients in Transport),
/// where unspecialized generic code looked up `Optional<Value>`'s metadata at run time on every access
/// (about 5% of a load generator's instructions per request, callgrind).
public struct StreamTable<Value> {
    @usableFromInline var keys: [Int32]
    @usableFromInline var values: [Value?]
    @usableFromInline var mask: Int
    @usableFromInline var live = 0
    /// How many streams have an entry.
    @inlinable public var count: Int { live }

    @inlinable public init() {
        keys = Array(repeating: 0, count: 16)
        values = Array(repeating: nil, count: 16)
        mask = 15
    }

    @inlinable public var isEmpty: Bool { count == 0 }

    /// The slot of `id`, or of the empty slot where it would go. Key 0 marks an empty slot
    /// (stream 0 is the connection itself and never has an entry).
    @inlinable func slot(of id: Int32) -> (index: Int, found: Bool) {
        var i = Int(id >> 1) & mask
        while true {
            let k = keys[i]
            if k == id { return (i, true) }
            if k == 0 { return (i, false) }
            i = (i + 1) & mask
        }
    }

    @inlinable public subscript(id: Int32) -> Value? {
        get {
            guard id != 0, count > 0 else { return nil }
            let (i, found) = slot(of: id)
            return found ? values[i] : nil
        }
        set {
            if let newValue { insert(newValue, for: id) } else { removeValue(forKey: id) }
        }
    }

    /// Whether `id` has an entry.
    @inlinable public func contains(_ id: Int32) -> Bool {
        id != 0 && count > 0 && slot(of: id).found
    }

    /// Calls `body` with `id`'s value in place (no copy of it is made); nil when `id` has none.
    @discardableResult @inlinable
    public mutating func modify<R>(_ id: Int32, _ body: (inout Value) -> R) -> R? {
        guard id != 0, count > 0 else { return nil }
        let (i, found) = slot(of: id)
        guard found else { return nil }
        return body(&values[i]!)
    }

    @inlinable mutating func insert(_ value: Value, for id: Int32) {
        precondition(id != 0, "stream 0 has no entry in a StreamTable")
        var (i, found) = slot(of: id)
        if !found && (count + 1) * 4 > keys.count * 3 {
            grow()
            i = slot(of: id).index
        }
        if !found {
            keys[i] = id
            live += 1
        }
        values[i] = value
    }

    /// Removes `id`'s entry and returns its value (nil when it had none).
    @discardableResult @inlinable
    public mutating func removeValue(forKey id: Int32) -> Value? {
        guard id != 0, count > 0 else { return nil }
        var (hole, found) = slot(of: id)
        guard found else { return nil }
        let removed = values[hole]
        keys[hole] = 0
        values[hole] = nil
        live -= 1
        // Backward shift: an entry after the hole that would have gone at or before it moves in.
        var j = hole
        while true {
            j = (j + 1) & mask
            let k = keys[j]
            if k == 0 { break }
            let home = Int(k >> 1) & mask
            // Whether `home` lies cyclically outside (hole, j]: then the entry may move back.
            let between = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j)
            if !between {
                keys[hole] = k
                values[hole] = values[j]
                keys[j] = 0
                values[j] = nil
                hole = j
            }
        }
        return removed
    }

    @inlinable public mutating func removeAll() {
        guard count > 0 else { return }
        for i in keys.indices where keys[i] != 0 {
            keys[i] = 0
            values[i] = nil
        }
        live = 0
    }

    /// Every entry, in no particular order.
    @inlinable public var entries: [(id: Int32, value: Value)] {
        var out: [(id: Int32, value: Value)] = []
        out.reserveCapacity(count)
        for i in keys.indices where keys[i] != 0 { out.append((keys[i], values[i]!)) }
        return out
    }

    @inlinable mutating func grow() {
        let oldKeys = keys, oldValues = values
        keys = Array(repeating: 0, count: oldKeys.count * 2)
        values = Array(repeating: nil, count: oldKeys.count * 2)
        mask = keys.count - 1
        for i in oldKeys.indices where oldKeys[i] != 0 {
            let j = slot(of: oldKeys[i]).index
            keys[j] = oldKeys[i]
            values[j] = oldValues[i]
        }
    }
}
