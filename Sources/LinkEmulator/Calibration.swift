import Foundation
import Synchronization
import BenchCore
import SystemIO

/// Measurements of a running emulated network against what it claims, returning data only
/// (the executable prints). Both use real sockets: the server side in the server namespace,
/// the client side bound to a path's address in the client namespace.
public enum Calibration {
    /// Round-trip times of UDP echoes between the client (bound to `path`, default the active
    /// path) and an echo socket on the server. Probes go out every `interval`, `payloadBytes`
    /// each (≥ 16; 28 bytes of IP+UDP header on top), so many are in flight at long RTTs. Lost
    /// probes give no sample.
    ///
    /// What a sample measures: the network, as ping does with an in-kernel responder. It runs from
    /// just before the probe's sendto to the kernel's receive timestamp of the echo
    /// (SO_TIMESTAMPNS), minus the echo server's dwell (its kernel receive timestamp to its
    /// sendto, carried back in the echo), so neither end's thread wake-up counts.
    public static func measureRoundTrip(
        on network: EmulatedNetwork, path: String? = nil, samples: Int = 100,
        interval: Nanoseconds = 10_000_000, payloadBytes: Int = 64,
        timeout: Nanoseconds = 5_000_000_000
    ) throws -> [Nanoseconds] {
        let p = try clientPath(network, path)
        let (echoFD, echoEndpoint) = try network.inServerNamespace {
            try Socket.bindUDP(Endpoint(address: network.serverAddress, port: 0))
        }
        defer { Socket.close(echoFD) }
        let (clientFD, _) = try network.inClientNamespace { try Socket.bindUDP(Endpoint(address: p.address, port: 0)) }
        defer { Socket.close(clientFD) }
        try Socket.enableReceiveTimestamps(clientFD)
        let echo = try EchoServer(fd: echoFD)
        echo.startThread()
        defer { echo.stopAndJoin() }

        let epoll = try Epoll(capacity: 8)
        try epoll.add(clientFD, .read, token: 1)
        let size = max(16, payloadBytes)
        var probe = [UInt8](repeating: 0, count: size)
        var reply = [UInt8](repeating: 0, count: 2048)
        var sentAt = [Instant?](repeating: nil, count: samples)
        var rtts = [Nanoseconds?](repeating: nil, count: samples)
        var sent = 0, received = 0
        let begin = Instant.now()
        var deadline = begin + Nanoseconds(samples) * interval + timeout
        while received < samples, Instant.now() < deadline {
            let now = Instant.now()
            let nextSend = begin + Nanoseconds(sent) * interval
            if sent < samples, nextSend <= now {
                probe.withUnsafeMutableBytes {
                    $0.storeBytes(of: UInt64(sent).littleEndian, toByteOffset: 0, as: UInt64.self)
                }
                sentAt[sent] = Instant.now()
                _ = try probe.withUnsafeBytes { try Socket.sendDatagram(clientFD, $0, to: echoEndpoint) }
                sent += 1
                if sent == samples { deadline = Instant.now() + timeout }
                continue
            }
            let wait = sent < samples ? nextSend.since(now) : deadline.since(now)
            try epoll.wait(timeout: max(0, wait)) { _, _ in
                while let (n, _, stamp) = try reply.withUnsafeMutableBytes({
                    try Socket.receiveDatagramTimestamped(clientFD, into: $0)
                }) {
                    let at = stamp ?? Instant.now()
                    guard n >= 16 else { continue }
                    let (seq, dwell) = reply.withUnsafeBytes {
                        (
                            Int(UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))),
                            Int64(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: Int64.self))
                        )
                    }
                    guard seq < samples, let s = sentAt[seq], rtts[seq] == nil else { continue }
                    rtts[seq] = at.since(s) - dwell
                    received += 1
                }
            }
        }
        return rtts.compactMap { $0 }
    }

    /// Goodput of `flows` TCP connections (one by default) from senders in the server namespace to
    /// receivers bound to `path` in the client namespace: payload bits received per second, all
    /// connections together, between `warmup` (after the last connection was accepted; slow start
    /// excluded) and `duration`.
    public static func measureGoodput(
        on network: EmulatedNetwork, path: String? = nil, duration: Nanoseconds = 10_000_000_000,
        warmup: Nanoseconds = 2_000_000_000, congestionControl: String? = nil, flows: Int = 1
    ) throws -> GoodputMeasurement {
        let p = try clientPath(network, path)
        return try measureGoodput(
            on: network, receiverAddress: p.address, senderAddress: network.serverAddress, duration: duration,
            warmup: warmup, congestionControl: congestionControl, flows: flows)
    }

    /// `measureGoodput` between two given addresses: receivers on `receiverAddress` in the client
    /// namespace, senders from `senderAddress` in the server namespace.
    static func measureGoodput(
        on network: EmulatedNetwork, receiverAddress: UInt32, senderAddress: UInt32, duration: Nanoseconds,
        warmup: Nanoseconds, congestionControl: String?, flows: Int
    ) throws -> GoodputMeasurement {
        precondition(duration > warmup, "duration must exceed warmup")
        precondition(flows >= 1, "at least one flow")
        let (listener, receiverEndpoint) = try network.inClientNamespace {
            try Socket.listenTCP(on: Endpoint(address: receiverAddress, port: 0))
        }
        defer { Socket.close(listener) }
        var senderFDs: [FileDescriptor] = []
        do {
            for _ in 0..<flows {
                senderFDs.append(
                    try network.inServerNamespace {
                        try Socket.connectTCP(
                            to: receiverEndpoint, from: Endpoint(address: senderAddress, port: 0),
                            options: .init(
                                noDelay: false, congestionControl: congestionControl ?? network.congestionControl))
                    })
            }
        } catch {
            for fd in senderFDs { Socket.close(fd) }
            throw error
        }
        let sender = try BulkSender(fds: senderFDs)
        sender.startThread()
        var connections: [FileDescriptor] = []
        defer {
            // The senders stop (and close) before the receivers close: never a write to a reset peer.
            sender.stopAndJoin()
            for fd in connections { Socket.close(fd) }
        }

        let epoll = try Epoll(capacity: Int32(flows + 8))
        try epoll.add(listener, .read, token: UInt64.max)
        let acceptDeadline = Instant.now() + 10_000_000_000
        while connections.count < flows {
            guard Instant.now() < acceptDeadline else {
                throw BenchError.run(
                    "calibration: \(connections.count) of \(flows) TCP connections accepted within 10 s")
            }
            try epoll.wait(timeout: 100_000_000) { _, _ in }
            while connections.count < flows, let fd = try Socket.accept(listener)?.0 {
                try epoll.add(fd, .read, token: UInt64(connections.count))
                connections.append(fd)
            }
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 64)
        defer { buffer.deallocate() }
        let accepted = Instant.now()
        let windowStart = accepted + warmup, windowEnd = accepted + duration
        var total: Int64 = 0
        var atWindowStart: (Instant, Int64)?
        var atWindowEnd: (Instant, Int64)?
        var open = flows
        var ready: [Int] = []
        reading: while atWindowEnd == nil {
            let now = Instant.now()
            ready.removeAll(keepingCapacity: true)
            try epoll.wait(timeout: max(0, min(windowEnd.since(now), 50_000_000))) { token, _ in
                if token != UInt64.max { ready.append(Int(token)) }
            }
            for i in ready {
                while true {
                    guard case .bytes(let n) = try Socket.read(connections[i], into: buffer) else { break }
                    if n == 0 {
                        open -= 1
                        epoll.remove(connections[i])
                        if open == 0 { break reading }
                        break
                    }
                    total += Int64(n)
                    let t = Instant.now()
                    if atWindowStart == nil, t >= windowStart { atWindowStart = (t, total) }
                    if t >= windowEnd { atWindowEnd = (t, total); break }
                }
                if atWindowEnd != nil { break }
            }
            if Instant.now() >= windowEnd, atWindowEnd == nil { atWindowEnd = (Instant.now(), total) }
        }
        guard let s = atWindowStart, let e = atWindowEnd, e.0 > s.0 else {
            throw BenchError.run(
                "calibration: the connections ended before the measurement window (received \(total) bytes)")
        }
        let window = e.0.since(s.0)
        let bytes = e.1 - s.1
        return GoodputMeasurement(
            bitsPerSecond: Double(bytes) * 8 / (Double(window) / 1e9), bytes: bytes, window: window,
            totalBytes: total, duration: Instant.now().since(accepted), flows: flows)
    }

    static func clientPath(_ network: EmulatedNetwork, _ name: String?) throws -> EmulatedNetwork.ClientPath {
        let name = name ?? network.activePath
        guard let p = network.path(named: name) else { throw BenchError.usage("no client path named \"\(name)\"") }
        return p
    }
}

/// A goodput measurement: payload bytes received in the window after warm-up.
public struct GoodputMeasurement: Sendable {
    public var bitsPerSecond: Double
    public var bytes: Int64
    public var window: Nanoseconds
    /// Everything received, warm-up included, and the receiver's time from accept to the end.
    public var totalBytes: Int64
    public var duration: Nanoseconds
    /// TCP connections measured together.
    public var flows: Int = 1
}
