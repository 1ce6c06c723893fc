/// How an HTTP/2 server decides what to send next. With late binding it lets at most a few bytes
/// wait unsent in the kernel (TCP_NOTSENT_LOWAT) and takes the next frames from its stream
/// scheduler only when the path can carry them, so a request for a render-blocking stylesheet that
/// arrives after a large image overtakes the rest of the image (h2o's latency optimisation;
/// Cloudflare's servers run with 16 KiB). Without it (nginx's default) everything written sits in
/// the socket's send buffer in the order it was written, and priorities only order what the server
/// still holds.
public enum LateBinding: Sendable, Equatable, CustomStringConvertible {
    case off
    /// At most this many bytes unsent in the kernel.
    case unsent(Int)

    public static let standard = LateBinding.unsent(16 * 1024)
    static let range = 1024...(16 * 1024 * 1024)

    /// `off`, or a size from 1 KiB to 16 MiB (`16KiB`, `65536`).
    public init?(_ text: String) {
        if text.lowercased() == "off" { self = .off; return }
        guard let n = Units.parseBytes(text), LateBinding.range.contains(Int(n)) else { return nil }
        self = .unsent(Int(n))
    }

    public var unsentLimit: Int? {
        if case .unsent(let n) = self { return n }
        return nil
    }

    /// As recorded: `off` or the byte count.
    public var description: String { unsentLimit.map(String.init) ?? "off" }
}
