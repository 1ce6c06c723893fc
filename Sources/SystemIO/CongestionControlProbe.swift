import Glibc
import BenchCore

/// Whether this process may set a TCP congestion control: the kernel refuses, without CAP_NET_ADMIN,
/// an algorithm outside `net.ipv4.tcp_allowed_congestion_control` (on machines whose default is bbr
/// that list is often `reno bbr`, so an unprivileged user cannot pick cubic).
public enum CongestionControlProbe {
    public static let allowedPath = "/proc/sys/net/ipv4/tcp_allowed_congestion_control"

    /// nil when a TCP socket of this process (in its network namespace) takes `name`; otherwise the
    /// kernel's refusal.
    public static func refusal(_ name: String) -> SystemError? {
        do {
            let fd = try Sys.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { Sys.close(fd) }
            try Sys.setsockopt(fd, Int32(IPPROTO_TCP), TCP_CONGESTION, name, "TCP_CONGESTION")
            return nil
        } catch {
            // Sys throws SystemError only.
            return error as? SystemError
        }
    }

    /// The algorithms an unprivileged process may pick, as the kernel lists them.
    public static func allowed() -> [String] {
        (ProcessControl.readSmallFile(allowedPath) ?? "").split(separator: " ").map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }.filter { !$0.isEmpty }
    }
}
