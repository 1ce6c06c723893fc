import BenchCore
import SystemIO
import Transport

/// Measures round-trip time as the minimum of a few round trips: a bound wants the path's own
/// delay, and scheduling on a busy machine only ever adds to it. Two probes: TCP connects to the
/// server (SYN → SYN-ACK = one round trip), and, where the run opens no TCP socket, UDP echoes
/// between two sockets on the server's address (`UDPEchoProbe`).
package enum RTTProbe {
    /// No round trip of the probe completed; `reason` says why (a connect's error, or echoes lost).
    package struct Failure: Error, CustomStringConvertible {
        package var remote: Endpoint
        package var reason: String
        package var probe = "connection"
        package var description: String { "RTT probe: no \(probe) to \(remote) completed: \(reason)" }
    }

    /// The fastest of `samples` connects in milliseconds; a connect that fails (refused, timed out)
    /// is not a round trip and is left out.
    package static func tcpConnectMinimum(to remote: Endpoint, namespace: String?, samples: Int) throws -> Double {
        let loop = try EventLoop()
        var times: [Double] = []
        var lastError = "timed out after 5 s"
        for _ in 0..<samples {
            let start = Instant.now()
            let fd: FileDescriptor
            do { fd = try NetworkNamespace.with(namespace) { try Socket.connectTCP(to: remote) } } catch {
                lastError = "\(error)"
                continue
            }
            var done = false
            try loop.register(fd, .write) { _ in done = true }
            try loop.run(until: start + .seconds(5)) { done }
            let end = Instant.now()
            loop.unregister(fd)
            if done {
                if let err = try? Socket.connectResult(fd) {
                    lastError = "\(err)"
                } else {
                    times.append(end.milliseconds(since: start))
                }
            }
            Socket.close(fd)
        }
        guard let fastest = times.min() else { throw Failure(remote: remote, reason: lastError) }
        return fastest
    }

    /// The fastest of `samples` UDP echoes between two sockets on `address` (this namespace), in
    /// milliseconds: the same path as the server's, with no TCP socket and so no congestion control.
    package static func udpEchoMinimum(address: UInt32, samples: Int) throws -> Double {
        let times = try UDPEchoProbe.roundTrips(address: address, samples: samples)
        guard let fastest = times.min() else {
            throw Failure(
                remote: Endpoint(address: address, port: 0), reason: "every echo was lost (1 s each)",
                probe: "UDP echo")
        }
        return fastest.inMilliseconds
    }
}
