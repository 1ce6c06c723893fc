import BenchCore
import BenchModel
import Runner

extension RunRequest {
    /// Whether the replay servers need a TCP listener: a run of h1 or h2, or a client other than
    /// netbench's own (a browser loads the page through the TCP listener first, even when forced to
    /// QUIC). An h3-only plan of the built-in client needs none, and so no TCP congestion control.
    public var serversNeedTCP: Bool {
        transports.contains { $0 != .h3 } || pageLoads.clients.contains { $0 != .builtin }
    }

    /// Whether a run of the plan opens any TCP socket, each given the run's congestion control
    /// (`TCP_CONGESTION`): the servers' listener and the client's connections, or a profile's cross
    /// traffic over TCP.
    public var opensTCPSockets: Bool {
        serversNeedTCP || profiles.contains { ($0.crossTraffic ?? []).contains { $0.transport != .h3 } }
    }
}
