import BenchCore
import SystemIO
import Transport

/// Measures round-trip time as the minimum time of TCP connects (SYN → SYN-ACK = one round trip):
/// a bound wants the path's own delay, and scheduling on a busy machine only ever adds to it.
package enum RTTProbe {
    /// No connect of the probe completed; `reason` is the last one's error.
    package struct Failure: Error, CustomStringConvertible {
        package var remote: Endpoint
        package var reason: String
        package var description: String { "RTT probe: no connection to \(remote) completed: \(reason)" }
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
}
