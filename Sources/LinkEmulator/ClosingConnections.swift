import BenchCore
import SystemIO

/// TCP connections of an emulated network that are still closing: a FIN not yet acknowledged
/// (FIN_WAIT1, CLOSING, LAST_ACK), or one still to come (FIN_WAIT2, CLOSE_WAIT). Their packets —
/// a FIN retransmitted after a loss, the last ACK — would cross the links after a run's stop and
/// land in the next run's counters and captures, so a draining stop waits for them too.
enum ClosingConnections {
    /// States of /proc/net/tcp (include/net/tcp_states.h) whose connection still sends.
    static let closingStates: Set<String> = ["04", "05", "08", "09", "0B"]

    /// Connections in a closing state in `/proc/net/tcp`-format `text` (the header line skipped).
    static func count(inProcNetTCP text: String) -> Int {
        var n = 0
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count > 3, closingStates.contains(String(fields[3])) { n += 1 }
        }
        return n
    }

    /// Closing connections in the calling thread's network namespace (nil: unreadable).
    static func countHere() -> Int? {
        guard let text = ProcessControl.readSmallFile("/proc/thread-self/net/tcp") else { return nil }
        return count(inProcNetTCP: text)
    }
}

extension EmulatedNetwork {
    /// Waits until no TCP connection in the client or server namespace is closing, polling every
    /// 5 ms until `deadline`; true when none is left.
    func awaitClosingConnections(until deadline: Instant) -> Bool {
        while true {
            let client = (try? inClientNamespace { ClosingConnections.countHere() }) ?? nil
            let server = (try? inServerNamespace { ClosingConnections.countHere() }) ?? nil
            if (client ?? 0) == 0 && (server ?? 0) == 0 { return true }
            if Instant.now() >= deadline { return false }
            ProcessControl.sleep(until: Instant.now() + 5_000_000)
        }
    }
}
