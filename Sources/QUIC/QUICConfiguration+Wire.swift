import BenchCore
internal import CNgtcp2

extension QUICConfiguration {
    /// ngtcp2's default cap on the UDP payload (`ngtcp2_settings_default`: 1,452 in 0.12.1).
    public static let engineDefaultMaxUDPPayloadSize: Int = {
        var s = ngtcp2_settings()
        netbench_ngtcp2_settings_default(&s)
        return s.max_tx_udp_payload_size
    }()

    /// The largest UDP payload these settings let an endpoint send.
    public var effectiveMaxUDPPayloadSize: Int {
        fixedUDPPayloadSize ?? maxUDPPayloadSize ?? Self.engineDefaultMaxUDPPayloadSize
    }

    /// How datagram sizes are chosen, as results record it: `fixed`, `pmtud` or `no-pmtud`.
    public var udpPayloadSizing: String {
        fixedUDPPayloadSize != nil ? "fixed" : (disablePMTUD ? "no-pmtud" : "pmtud")
    }
}
