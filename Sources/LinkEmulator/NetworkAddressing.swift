import BenchCore

/// The addressing plan of an emulated network, inside the RFC 2544 benchmarking range
/// 198.18.0.0/15 and only inside netbench's own namespaces: the server is 198.18.0.1, client
/// path i is 198.18.(i+1).2 on its own /24.
public enum NetworkAddressing {
    public static let serverAddress: UInt32 = 0xC612_0001  // 198.18.0.1
    public static let maximumPaths = 254

    public static func clientAddress(pathIndex i: Int) -> UInt32 {
        precondition(i >= 0 && i < maximumPaths, "path index \(i) out of range")
        return 0xC612_0002 | UInt32(i + 1) << 8
    }

    /// The path whose /24 holds `address`, or nil for any other address.
    @inline(__always)
    public static func pathIndex(ofClientAddress address: UInt32) -> Int? {
        guard address & 0xFFFF_0000 == 0xC612_0000 else { return nil }
        let third = Int((address >> 8) & 0xFF)
        return third >= 1 && third <= maximumPaths ? third - 1 : nil
    }

    static func dotted(_ a: UInt32) -> String { Endpoint(address: a, port: 0).addressString }

    /// Policy-routing table and rule priority of path i in the client namespace.
    static func routingTable(pathIndex i: Int) -> Int { 100 + i }
    static func rulePriority(pathIndex i: Int) -> Int { 1000 + i }
}
