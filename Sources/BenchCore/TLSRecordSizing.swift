/// How a TLS sender cuts its plaintext into records: `--tls-records dynamic|16k|SIZE`.
///
/// A TLS record can be decrypted only once all of it has arrived. A 16 KB record is 12 TCP
/// segments: at the start of a connection, with an initial window of 10 segments, the client
/// holds the head of such a record a round trip before it can read any of it. Real servers size
/// records dynamically (Go's crypto/tls, h2o, Google's front ends): one packet per record while
/// the window is small, full records once the connection is moving bulk data.
public enum TLSRecordPolicy: Hashable, Sendable, CustomStringConvertible {
    /// One-packet records at the start and after an idle second; 16 KB ones after about 1 MB.
    case dynamic
    /// Every record carries up to this many plaintext bytes (what nginx's `ssl_buffer_size` sets).
    case fixed(Int)

    /// The largest plaintext a TLS record may carry (RFC 8446 §5.1).
    public static let maxPlaintext = 16_384
    /// OpenSSL's smallest `max_send_fragment`; below it the record overhead dominates anyway.
    public static let minPlaintext = 512

    /// Parses `dynamic`, `16k` (16,384 bytes: the TLS maximum) or a size such as `4KiB`, `1400`.
    /// Nil when the text is none of these or the size is outside 512 B…16 KiB.
    public init?(_ text: String) {
        let t = String(text.filter { $0 != " " }).lowercased()
        if t == "dynamic" { self = .dynamic; return }
        if t == "16k" { self = .fixed(Self.maxPlaintext); return }
        guard let bytes = Units.parseBytes(t), bytes >= Int64(Self.minPlaintext), bytes <= Int64(Self.maxPlaintext)
        else {
            return nil
        }
        self = .fixed(Int(bytes))
    }

    /// What results record and `init?(_:)` reads back: `dynamic` or the record size in bytes.
    public var description: String {
        switch self {
        case .dynamic: return "dynamic"
        case .fixed(let n): return String(n)
        }
    }

    /// Whether the HTTP/2 server ends a record after each HEADERS frame, so a response's head can
    /// be decrypted without the DATA that follows it. Fixed policies reproduce servers that do not.
    public var endsRecordAfterHeaders: Bool { self == .dynamic }

    /// With `endsRecordAfterHeaders`, how many bytes a record holding a response head may carry
    /// after all: one that fits one packet arrives whole, so the head waits for nothing in it.
    public var sharedHeaderRecord: Int { endsRecordAfterHeaders ? TLSRecordSizer.onePacketPlaintext : 0 }
}

/// The record sizes of one connection under a `TLSRecordPolicy`. Pure: the caller passes `now`.
///
/// Dynamic sizing follows the scheme Google's servers and h2o use: records that fit one packet
/// until the connection has sent `boostAfterBytes` since it started or last sat idle for
/// `idleReset`, then full-size records. (Go's crypto/tls ramps up after 128 KB instead, with no
/// idle reset.)
public struct TLSRecordSizer: Sendable {
    public let policy: TLSRecordPolicy
    /// Plaintext of a record that fits one packet: an MTU of 1500 less IPv4 (20), TCP with
    /// timestamps (32) and the largest record overhead netbench negotiates (TLS 1.2 AES-GCM:
    /// 5 header + 8 explicit nonce + 16 tag = 29; TLS 1.3 adds 1 type byte + 16 tag = 22).
    /// 1500 − 20 − 32 − 29 = 1,419 bytes.
    public static let onePacketPlaintext = 1_419
    /// Full-size records once this much plaintext has gone out since the start or the last idle spell.
    public static let boostAfterBytes = 1_000_000
    /// A pause this long returns to one-packet records (the sender's window may have collapsed).
    public static let idleReset: Nanoseconds = 1_000_000_000

    /// Plaintext sent since the connection started or last sat idle.
    public private(set) var bytesSinceReset = 0
    private var lastSend: Instant?

    public init(policy: TLSRecordPolicy) { self.policy = policy }

    /// The plaintext size of the next record, if it is written at `now`.
    public func recordSize(at now: Instant) -> Int {
        switch policy {
        case .fixed(let n): return n
        case .dynamic:
            if isIdle(at: now) || bytesSinceReset < Self.boostAfterBytes { return Self.onePacketPlaintext }
            return TLSRecordPolicy.maxPlaintext
        }
    }

    /// Notes `count` plaintext bytes written at `now`.
    public mutating func sent(_ count: Int, at now: Instant) {
        if isIdle(at: now) { bytesSinceReset = 0 }
        bytesSinceReset += count
        lastSend = now
    }

    private func isIdle(at now: Instant) -> Bool {
        guard let lastSend else { return false }
        return now.since(lastSend) >= Self.idleReset
    }
}
