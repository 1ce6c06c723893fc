import BenchCore
import SystemIO

/// Drop counters of one network device, read inside its namespace.
public struct DeviceDropCounters: Sendable, Equatable {
    /// The kernel could not hand a packet to the emulator (the TUN's queue was full).
    public var txDropped: Int64
    /// A packet the emulator wrote was dropped on its way into the namespace's stack.
    public var rxDropped: Int64
    public init(txDropped: Int64, rxDropped: Int64) {
        self.txDropped = txDropped
        self.rxDropped = rxDropped
    }
}

enum InterfaceStatistics {
    /// Reads the drop counters of `devices` in namespace `namespace` from /proc/thread-self/net/dev,
    /// which shows the network namespace of the reading thread (so no process is started).
    static func dropCounters(namespace: String, devices: [String]) throws -> [String: DeviceDropCounters] {
        let text =
            try NetworkNamespace.with(namespace) { ProcessControl.readSmallFile("/proc/thread-self/net/dev") } ?? ""
        let counters = parse(text, devices: Set(devices))
        for d in devices where counters[d] == nil {
            throw BenchError.run("no statistics for device \(d) in namespace \(namespace) (/proc/thread-self/net/dev)")
        }
        return counters
    }

    /// /proc/net/dev: two header lines, then `name: rx bytes packets errs drop fifo frame compressed
    /// multicast tx bytes packets errs drop …`.
    static func parse(_ text: String, devices: Set<String>) -> [String: DeviceDropCounters] {
        var result: [String: DeviceDropCounters] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimming(" ")
            guard devices.contains(name) else { continue }
            let fields = line[line.index(after: colon)...].split(separator: " ").compactMap { Int64($0) }
            guard fields.count >= 12 else { continue }
            result[name] = DeviceDropCounters(txDropped: fields[11], rxDropped: fields[3])
        }
        return result
    }
}

extension StringProtocol {
    func trimming(_ c: Character) -> String {
        var s = Substring(self)
        while s.first == c { s.removeFirst() }
        while s.last == c { s.removeLast() }
        return String(s)
    }
}
