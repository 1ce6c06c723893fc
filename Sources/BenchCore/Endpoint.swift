/// An IPv4 address and UDP/TCP port. netbench's emulated networks are IPv4 only
/// (IPv6 is turned off inside its namespaces), and loopback runs use 127.0.0.1.
public struct Endpoint: Hashable, Sendable, CustomStringConvertible {
    /// The address in host byte order (127.0.0.1 is 0x7F00_0001).
    public var address: UInt32
    public var port: UInt16

    public init(address: UInt32, port: UInt16) {
        self.address = address
        self.port = port
    }

    /// 127.0.0.1 in host byte order.
    public static let loopbackAddress: UInt32 = 0x7F00_0001

    /// Parses `a.b.c.d` into a host-order address.
    public static func parseAddress(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for p in parts {
            guard let octet = UInt8(p) else { return nil }
            value = value << 8 | UInt32(octet)
        }
        return value
    }

    /// Parses `a.b.c.d:port` (port required) or `localhost:port`.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...])
        else { return nil }
        let host = String(text[..<colon])
        guard let addr = host == "localhost" ? Endpoint.loopbackAddress : Endpoint.parseAddress(host) else {
            return nil
        }
        self.init(address: addr, port: port)
    }

    public var addressString: String {
        "\(address >> 24).\((address >> 16) & 0xFF).\((address >> 8) & 0xFF).\(address & 0xFF)"
    }

    public var description: String { "\(addressString):\(port)" }
}
