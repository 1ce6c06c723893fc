import Foundation
import BenchCore
import SystemIO

/// One direction's one-way probes: the delays and the order in which they arrived.
public struct OneWayProbes: Sendable {
    /// The first probe's send instant.
    public var begin: Instant
    /// Offsets of each probe's send from the first send (probe i at `sendOffsets[i]`).
    public var sendOffsets: [Nanoseconds]
    /// In arrival order: the probe's index and its one-way delay (kernel receive timestamp − the
    /// instant just before its sendto, both on the monotonic clock of this one machine).
    public var arrivals: [(index: Int, delay: Nanoseconds)]

    /// Probes that arrived after a probe sent later (RFC 4737), and their share of those that arrived.
    public var reordered: Int {
        var highest = -1, n = 0
        for a in arrivals { if a.index < highest { n += 1 } else { highest = a.index } }
        return n
    }
    public var reorderingRate: Double { arrivals.isEmpty ? 0 : Double(reordered) / Double(arrivals.count) }
    public var delays: [Nanoseconds] { arrivals.map(\.delay) }
}

extension Calibration {
    /// One-way delays of timestamped UDP probes in both directions at once: from the client
    /// (bound to `path`) to a socket in the server namespace (the path's uplink) and back the
    /// other way (its downlink), `samples` each way, one each way every `interval`. Both ends are
    /// on this machine, so one clock times both: send instant (monotonic, just before sendto) to
    /// the kernel's receive timestamp (SO_TIMESTAMPNS, converted to the monotonic clock).
    public static func measureOneWay(
        on network: EmulatedNetwork, path: String? = nil, samples: Int, interval: Nanoseconds,
        payloadBytes: Int = 64, timeout: Nanoseconds = 5_000_000_000
    ) throws -> (up: OneWayProbes, down: OneWayProbes) {
        let p = try clientPath(network, path)
        let (serverFD, serverEndpoint) = try network.inServerNamespace {
            try Socket.bindUDP(Endpoint(address: network.serverAddress, port: 0))
        }
        defer { Socket.close(serverFD) }
        let (clientFD, clientEndpoint) = try network.inClientNamespace {
            try Socket.bindUDP(Endpoint(address: p.address, port: 0))
        }
        defer { Socket.close(clientFD) }
        try Socket.enableReceiveTimestamps(serverFD)
        try Socket.enableReceiveTimestamps(clientFD)
        let epoll = try Epoll(capacity: 8)
        try epoll.add(serverFD, .read, token: 0)  // uplink probes arrive here
        try epoll.add(clientFD, .read, token: 1)  // downlink probes
        var probe = [UInt8](repeating: 0, count: max(8, payloadBytes))
        var buffer = [UInt8](repeating: 0, count: 2048)
        var sentAt = [[Instant]](repeating: [], count: 2)
        let begin = Instant.now()
        var result = [OneWayProbes](repeating: OneWayProbes(begin: begin, sendOffsets: [], arrivals: []), count: 2)
        var deadline = begin + Nanoseconds(samples) * interval + timeout
        var sent = 0
        while result[0].arrivals.count + result[1].arrivals.count < 2 * samples, Instant.now() < deadline {
            let now = Instant.now()
            let nextSend = begin + Nanoseconds(sent) * interval
            if sent < samples, nextSend <= now {
                probe.withUnsafeMutableBytes { $0.storeBytes(of: UInt64(sent).littleEndian, as: UInt64.self) }
                for (direction, fd, to) in [(0, clientFD, serverEndpoint), (1, serverFD, clientEndpoint)] {
                    let t = Instant.now()
                    sentAt[direction].append(t)
                    result[direction].sendOffsets.append(t.since(begin))
                    _ = try probe.withUnsafeBytes { try Socket.sendDatagram(fd, $0, to: to) }
                }
                sent += 1
                if sent == samples { deadline = Instant.now() + timeout }
                continue
            }
            let wait = sent < samples ? nextSend.since(now) : deadline.since(now)
            try epoll.wait(timeout: max(0, wait)) { token, _ in
                let direction = Int(token)
                let fd = direction == 0 ? serverFD : clientFD
                while let (n, _, stamp) = try buffer.withUnsafeMutableBytes({
                    try Socket.receiveDatagramTimestamped(fd, into: $0)
                }) {
                    let at = stamp ?? Instant.now()
                    guard n >= 8 else { continue }
                    let index = Int(buffer.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) })
                    guard index < sentAt[direction].count else { continue }
                    result[direction].arrivals.append((index, at.since(sentAt[direction][index])))
                }
            }
        }
        return (result[0], result[1])
    }
}
