internal import CNgtcp2

/// A QUIC connection ID (at most 20 bytes) as a hashable value that needs no allocation:
/// the server looks one up for every datagram it receives.
struct ConnectionIDKey: Hashable {
    private var a: UInt64 = 0
    private var b: UInt64 = 0
    private var c: UInt32 = 0
    private var length: UInt8 = 0

    init(bytes: UnsafePointer<UInt8>, count: Int) {
        let n = min(count, 20)
        length = UInt8(n)
        withUnsafeMutableBytes(of: &a) { raw in
            for i in 0..<min(n, 8) { raw[i] = bytes[i] }
        }
        if n > 8 {
            withUnsafeMutableBytes(of: &b) { raw in
                for i in 8..<min(n, 16) { raw[i - 8] = bytes[i] }
            }
        }
        if n > 16 {
            withUnsafeMutableBytes(of: &c) { raw in
                for i in 16..<n { raw[i - 16] = bytes[i] }
            }
        }
    }

    init(_ cid: ngtcp2_cid) {
        var cid = cid
        self = withUnsafeBytes(of: &cid.data) { raw in
            ConnectionIDKey(bytes: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: cid.datalen)
        }
    }
}
