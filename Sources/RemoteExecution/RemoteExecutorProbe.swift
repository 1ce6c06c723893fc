import BenchCore
import SystemIO
import Testbed
import Runner

/// `--server HOST:PORT` of `netbench run`: where every origin of the scenario is reached.
public struct RemoteEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) { self.host = host; self.port = port }

    /// Parses `HOST:PORT` or `[IPv6]:PORT`; the error names the value and what is wrong.
    public init(parsing text: String) throws {
        var hostPart: Substring, portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw RemoteEndpointError.invalid(text, "expected [IPv6]:PORT")
            }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                throw RemoteEndpointError.invalid(text, "expected HOST:PORT")
            }
            hostPart = text[..<colon]; portPart = text[text.index(after: colon)...]
            if hostPart.contains(":") {
                throw RemoteEndpointError.invalid(text, "an IPv6 address needs brackets: [ADDR]:PORT")
            }
        }
        guard !hostPart.isEmpty else { throw RemoteEndpointError.invalid(text, "empty host") }
        guard let p = UInt16(portPart), p > 0 else {
            throw RemoteEndpointError.invalid(text, "port '\(portPart)' is not 1…65535")
        }
        host = String(hostPart); port = p
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

public enum RemoteEndpointError: Error, CustomStringConvertible, Equatable {
    case invalid(String, String)
    case resolve(String, String)
    case connect(String, String)

    public var description: String {
        switch self {
        case .invalid(let v, let why): return "--server '\(v)': \(why)"
        case .resolve(let v, let why): return "--server \(v): cannot resolve: \(why)"
        case .connect(let v, let why): return "--server \(v): cannot connect: \(why)"
        }
    }
}

/// The RTT of a `--server` run ("profile": "network"): the minimum time of several TCP connects
/// (SYN → SYN-ACK), each socket closed at once, measured by the same probe as loopback runs
/// (`RTTProbe`). The host is resolved to its IPv4 address, as the page loads use it.
public enum RemoteRTTProbe {
    /// The minimum connect time in nanoseconds over `samples` connects; throws, naming the endpoint
    /// and the reason, when none completes.
    public static func measure(_ endpoint: RemoteEndpoint, samples: Int = 5) throws -> Nanoseconds {
        precondition(samples > 0)
        let remote = Endpoint(address: try ipv4Address(endpoint), port: endpoint.port)
        do {
            return .milliseconds(try RTTProbe.tcpConnectMinimum(to: remote, namespace: nil, samples: samples))
        } catch let e as RTTProbe.Failure {
            throw RemoteEndpointError.connect(endpoint.description, e.reason)
        }
    }

    static func ipv4Address(_ endpoint: RemoteEndpoint) throws -> UInt32 {
        if let a = Endpoint.parseAddress(endpoint.host) { return a }
        let addresses: [SocketAddress]
        do {
            addresses = try NameResolution.streamAddresses(host: endpoint.host, port: nil, ipv4Only: true)
        } catch let e as NameResolutionError {
            throw RemoteEndpointError.resolve(endpoint.description, e.reason)
        }
        guard let address = addresses.first?.ipv4 else {
            throw RemoteEndpointError.resolve(endpoint.description, "no IPv4 address")
        }
        return address
    }
}
