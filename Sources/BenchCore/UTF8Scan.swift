/// Byte scans of a string's UTF-8 for the servers' per-request paths. The generic
/// `utf8.contains(where:)` and `utf8.firstIndex(of:)` step through `String.UTF8View`'s indices at
/// tens of instructions a byte (callgrind of `serve` under h2load: ~1,000 instructions a request in
/// scans of a host and a path); a native string's bytes are contiguous and scanned as a buffer.
extension String {
    /// Whether any UTF-8 byte satisfies `predicate`.
    @inlinable public func utf8Contains(where predicate: (UInt8) -> Bool) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.contains(where: predicate) } ?? utf8.contains(where: predicate)
    }

    /// The offset of the first UTF-8 byte equal to `byte`, nil when there is none.
    @inlinable public func utf8Offset(of byte: UInt8) -> Int? {
        if let found = utf8.withContiguousStorageIfAvailable({ $0.firstIndex(of: byte) }) { return found }
        return utf8.firstIndex(of: byte).map { utf8.distance(from: utf8.startIndex, to: $0) }
    }
}
