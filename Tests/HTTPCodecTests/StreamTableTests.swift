import HTTPCodec
import XCTest

/// `StreamTable` against a `Dictionary` doing the same operations: streams opened in order and
/// closed out of order (as a connection's are), collisions and removals across the wrap-around
/// of the slots, growth, in-place updates.
final class StreamTableTests: XCTestCase {
    func testMatchesADictionaryUnderRandomOpenAndClose() {
        var generator = SplitMix(seed: 7)
        for round in 0..<20 {
            var table = StreamTable<Int>()
            var reference: [Int32: Int] = [:]
            var next: Int32 = round % 2 == 0 ? 1 : 2  // client-opened (odd) or server-opened (even) ids
            for step in 0..<4_000 {
                let roll = generator.next() % 10
                if roll < 5 || reference.isEmpty {
                    table[next] = step
                    reference[next] = step
                    next += 2
                } else if roll < 8 {
                    let victim = Array(reference.keys)[Int(generator.next() % UInt64(reference.count))]
                    XCTAssertEqual(table.removeValue(forKey: victim), reference.removeValue(forKey: victim))
                } else if roll < 9 {
                    let id = Array(reference.keys)[Int(generator.next() % UInt64(reference.count))]
                    table.modify(id) { $0 += 1 }
                    reference[id]! += 1
                } else {
                    // An id never opened, or closed long ago.
                    let id = Int32(generator.next() % UInt64(next + 4)) + 1
                    XCTAssertEqual(table[id], reference[id], "lookup of \(id)")
                    XCTAssertEqual(table.contains(id), reference[id] != nil)
                    XCTAssertNil(table.modify(reference[id] == nil ? id : -1) { _ in 0 })
                }
                XCTAssertEqual(table.count, reference.count)
            }
            for (id, value) in reference { XCTAssertEqual(table[id], value, "round \(round), stream \(id)") }
            XCTAssertEqual(
                table.entries.sorted { $0.id < $1.id }.map { "\($0.id)=\($0.value)" },
                reference.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
        }
    }

    /// Keys whose home slot is the same (ids 16 slots apart in a 16-slot table): removing the first
    /// of a run moves the others back, so each stays findable.
    func testRemovalInsideACollisionRunKeepsTheRestFindable() {
        var table = StreamTable<String>()
        let ids: [Int32] = [31, 63, 95, 1, 33]  // 31, 63, 95 share slot 15 (wrapping to 0, 1); 1 and 33 slot 0
        for id in ids { table[id] = "s\(id)" }
        XCTAssertEqual(table.removeValue(forKey: 31), "s31")
        for id in ids.dropFirst() { XCTAssertEqual(table[id], "s\(id)", "after removing 31") }
        XCTAssertEqual(table.removeValue(forKey: 1), "s1")
        for id: Int32 in [63, 95, 33] { XCTAssertEqual(table[id], "s\(id)", "after removing 1") }
        table[63] = nil
        XCTAssertNil(table[63])
        XCTAssertEqual(table.count, 2)
        table.removeAll()
        XCTAssertTrue(table.isEmpty)
        XCTAssertNil(table[95])
    }
}

/// A small deterministic generator (the tests repeat exactly).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
