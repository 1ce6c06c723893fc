/// How much netbench's clients pad their TLS ClientHello, so that handshakes cost the bytes on the
/// wire that a browser's cost.
///
/// Browsers now offer a post-quantum hybrid key share in every ClientHello: Chromium 156's carries
/// X25519MLKEM768 (1,216 bytes of key share) and an ECH GREASE extension, and its ClientHello
/// records measured 1,921–2,026 bytes on the mobile median page's origins (2026-11-28, emulator
/// pcaps), against 320–326 for OpenSSL 3.0's, which cannot offer ML-KEM. On a 1 Mbit/s uplink the
/// difference is 13 ms per handshake, several hundred ms on a page of 20-odd connections. The
/// padding is an extension of a GREASE type (RFC 8701), which servers ignore, full of zeros.
public enum ClientHelloPadding {
    /// The extension type: a GREASE value (RFC 8701 §2), which no server may act on.
    public static let extensionType = 0x1A1A
    /// The built-in page-load client's default: makes OpenSSL's ClientHello record about 1,980
    /// bytes, inside Chromium 156's measured 1,921–2,026.
    public static let browser = 1_650
    /// The most an option may ask for (the C shims' zero buffers).
    public static let maximum = 4_096
}
