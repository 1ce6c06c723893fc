import Foundation
import BenchCore
import CommandLineKit
import TLS
import QUIC

/// How the replay server serves and its connections behave: `run` (servers and client in the
/// emulated network) and `serve` (the server alone) take these from one declaration. A value left
/// out is nil here; each command (or a suite file) supplies the default.
struct ServerOptionGroup: ParsableArguments {
    static var title: String? { "server and connection options" }

    @Option(
        "--tls", value: "V", help: "force TLS 1.2 or 1.3 on h1/h2 connections (default: 1.3 negotiated)",
        parse: .choice(TLSVersion.self)) var tlsVersion: TLSVersion?
    @Option(
        "--tls-records", value: "R",
        help: "how the server cuts h1/h2 responses into TLS records: dynamic (one packet per record at first and "
            + "after an idle second, 16 KiB records after about 1 MB; the default), 16k, or a fixed size such as "
            + "4KiB", parse: .tlsRecords) var tlsRecords: TLSRecordPolicy?
    @Option(
        "--late-binding", value: "SIZE",
        help: "HTTP/2 server: at most SIZE bytes wait unsent in the kernel (TCP_NOTSENT_LOWAT) so stream "
            + "priorities choose what is sent next, as h2o does (default 16KiB); off: as nginx, the server writes "
            + "while the kernel's send buffer accepts (16 KiB at a time) and priorities order only the frames "
            + "the kernel refused", parse: .lateBinding) var lateBinding: LateBinding?
    @Option(
        "--tcp-cc", value: "NAME",
        help: "TCP congestion control on every socket netbench opens (default: cubic for run, whose results "
            + "record it per connection; the system's for serve)",
        parse: .nonEmpty) var tcpCongestionControl: String?
    @Option(
        "--quic-cc", value: "NAME",
        help: "QUIC congestion control: reno, cubic (the default), bbr or bbr2 (ngtcp2's)",
        parse: .choice(QUICCongestionControl.self)) var quicCongestionControl: QUICCongestionControl?
    @Option(
        "--quic-udp-payload", value: "BYTES",
        help: "QUIC datagrams of up to BYTES (1200-1472) from the first packet, without path MTU discovery, as "
            + "TCP takes its MSS from the MTU; 1472 fills the emulator's 1,500-byte MTU (default: ngtcp2's "
            + "discovery, 1,200 bytes until it confirms 1,406 and then 1,444)",
        parse: .int(1200...1472)) var quicUDPPayload: Int?
    @Option(
        "--quic-pacing", value: "SS,CA",
        help: "QUIC pacing under cubic and reno: the rate as a multiple of cwnd/smoothed RTT in slow start and "
            + "after it, each a gain from 1 to 100 or off (no pacing: cwnd and ACKs alone, as Linux TCP cubic "
            + "sends without the fq qdisc); off for both (default: 2,1.25, as Chromium's QUIC)",
        parse: .quicPacing) var quicPacing: QUICPacing?
}

/// What `run`'s built-in client sends: `serve` has no client, so only `run` takes these.
struct ClientOptionGroup: ParsableArguments {
    static var title: String? { "built-in client options" }

    @Option(
        "--quic-client-cid", value: "N",
        help: "length in bytes of the built-in client's QUIC connection IDs, which every packet the server sends "
            + "carries (default 0, as Chromium's and quic-go's clients; ngtcp2's example client uses 17)",
        parse: .int(0...20)) var quicClientCIDLength: Int?
    @Option(
        "--client-hello-pad", value: "BYTES",
        help: "the built-in client pads every TLS ClientHello (TCP and QUIC) with an extension of BYTES zeros of a "
            + "GREASE type, which servers ignore, so that its handshakes cost the uplink bytes a browser's do "
            + "(Chromium 156's ClientHello, with its 1,216-byte post-quantum key share that OpenSSL 3.0 cannot "
            + "offer, measured 1,921-2,026 bytes here against OpenSSL's 326); 0: none (default for run: 1650)",
        parse: .int(0...4096)) var clientHelloPadding: Int?
}

/// Files for looking inside connections: TLS secrets for Wireshark, qlog for qvis. Taken by `run`
/// (client and server) and `serve` (the server); `run`'s own `--pcap` adds the emulator's packets.
struct DiagnosticOptionGroup: ParsableArguments {
    static var title: String? { "diagnostics" }

    @Option(
        "--keylog", value: "FILE",
        help: "append the TLS secrets of TCP+TLS and QUIC in NSS key-log format, for Wireshark "
            + "(default: $SSLKEYLOGFILE)",
        parse: .file()) var keylog: String?
    @Option(
        "--qlog", value: "DIR",
        help: "write a qlog file per QUIC connection into DIR, which must exist (<client|server>-<scid>.sqlog; a "
            + "client whose IDs are 0 bytes long, the default: its first destination ID)",
        parse: .directory) var qlog: String?

    /// `--keylog`, else `$SSLKEYLOGFILE`.
    var keyLogFile: String? { keylog ?? ProcessInfo.processInfo.environment["SSLKEYLOGFILE"] }
}
