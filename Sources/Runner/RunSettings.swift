import Foundation
import BenchCore
import SystemIO
import TLS
import QUIC

/// How the replay servers serve and the connections behave: `run`'s servers (and, where both ends
/// are netbench's, its client) and `serve`'s. Built from the command line's server options.
public struct ServerSettings: Sendable, Equatable {
    /// Forced on h1/h2 connections; nil: TLS 1.3, negotiated.
    public var tlsVersion: TLSVersion?
    /// How h1/h2 responses are cut into TLS records (`--tls-records`).
    public var tlsRecords: TLSRecordPolicy = .dynamic
    /// Whether HTTP/2 decides late what to send (`--late-binding`).
    public var lateBinding: LateBinding = .standard
    /// TCP congestion control set on every socket; nil: the system's default (`serve`'s).
    public var tcpCongestionControl: String?
    public var quicCongestionControl: QUICCongestionControl = .cubic
    /// `--quic-udp-payload`: QUIC datagrams of up to this many bytes from the first packet, no PMTU
    /// discovery (client and server); nil: ngtcp2's discovery from 1,200 bytes up to 1,452.
    public var quicUDPPayload: Int?
    /// `--quic-client-cid`: the built-in client's source connection ID length (bytes the server's
    /// every packet carries).
    public var quicClientCIDLength = QUICConfiguration().clientConnectionIDLength
    /// `--quic-pacing`: the QUIC senders' pacing gains in slow start and after it (client and server).
    public var quicPacing = QUICConfiguration().pacing
    /// ECN at the endpoints (`run --ecn`): QUIC sends ECT(0) as ngtcp2 asks, and in an emulated
    /// network TCP negotiates ECN (net.ipv4.tcp_ecn=1 in the namespaces). Received codepoints are
    /// counted either way.
    public var ecn = false
    /// `--client-hello-pad`: bytes the built-in client pads each TLS ClientHello with (TCP and QUIC),
    /// so that its handshakes weigh what a browser's do; `run`'s default `ClientHelloPadding.browser`.
    public var clientHelloPadding = 0

    public init(tlsVersion: TLSVersion? = nil, tcpCongestionControl: String? = nil) {
        self.tlsVersion = tlsVersion
        self.tcpCongestionControl = tcpCongestionControl
    }

    /// `--ecn` needs a congestion control that reacts to CE marks: BBR v1 (TCP's `bbr`, ngtcp2's
    /// `bbr`) ignores them, so the figures would measure a sender that does not use ECN. Throws a
    /// usage error naming the option; nothing to check without ECN.
    public func checkECN(tcp: Bool, quic: Bool) throws {
        guard ecn else { return }
        if tcp, let cc = tcpCongestionControl, cc == "bbr" {
            throw BenchError.usage(
                "--ecn with --tcp-cc \(cc): BBR v1 ignores CE marks; use cubic or reno for ECN figures")
        }
        if quic, quicCongestionControl == .bbr {
            throw BenchError.usage("--ecn with --quic-cc bbr: BBR v1 ignores CE marks; use cubic or reno")
        }
    }

    /// `run`'s: cubic on every socket whatever the host's default (network namespaces here default
    /// to bbr), so that runs on different machines compare.
    /// And the built-in client's ClientHello as long as a browser's.
    public static let benchmark: ServerSettings = {
        var s = ServerSettings(tcpCongestionControl: "cubic")
        s.clientHelloPadding = ClientHelloPadding.browser
        return s
    }()
}

/// How the emulator's packet loop runs (`run --emulator-precise`, `calibrate --precise`,
/// `calibrate --normal-scheduler`).
public struct EmulatorSettings: Sendable, Equatable {
    public enum Scheduling: Sendable, Equatable {
        /// SCHED_FIFO priority 10: the default (see `EmulatedNetwork.Options.loopRealtimePriority`).
        case realtime
        /// The normal scheduler at nice -10.
        case normal
    }

    public var scheduling: Scheduling = .realtime
    /// Polls shortly before each release instead of sleeping until it (costs CPU, recorded per run).
    public var precise = false
    /// TUN devices with TCP offloads: super-packets cross them whole and the loop segments them
    /// (`EmulatedNetwork.Options.tunOffload`; `calibrate --no-tun-offload` turns it off).
    public var tunOffload = true
    /// With `tunOffload`, the receiving stacks run in the TUNs' NAPI kernel threads, not inside the
    /// loop's writes (`EmulatedNetwork.Options.tunNAPIThreads`; opt in with `calibrate --tun-napi`).
    public var tunNAPIThreads = false
    /// The packet loop's batching window for fast streaming links (`EmulatedNetwork.Options.releaseWindow`,
    /// `calibrate --release-window`); nil: the options' default.
    public var releaseWindow: Nanoseconds?

    public init(
        scheduling: Scheduling = .realtime, precise: Bool = false, tunOffload: Bool = true, tunNAPIThreads: Bool = false
    ) {
        self.scheduling = scheduling
        self.precise = precise
        self.tunOffload = tunOffload
        self.tunNAPIThreads = tunNAPIThreads
    }
}

/// Who loads the pages and how (`run --client`, `--repeat-view`, `--filmstrip`, `--visual-metrics`, `--timeout`).
public struct PageLoadSettings: Sendable, Equatable {
    /// Each run is made by every client in turn (interleaved, like the transports).
    public var clients: [RunClient] = [.builtin]
    /// Repeat views: keep TLS sessions and QUIC tickets between the runs of a profile block (the
    /// first run is cold; later ones resume, QUIC with 0-RTT). Use a warm-up run to fill them.
    public var repeatView = false
    /// After each block's runs, one more browser load per cell capturing what it paints.
    public var filmstrip = false
    /// Browser clients capture what they paint during every measured run and record Speed Index and
    /// visually complete (`run --visual-metrics`).
    public var visualMetrics = false
    /// Browser clients' CPU slowed down this many times (`run --cpu-slowdown`): Chromium by DevTools,
    /// Firefox by a cgroup CPU quota; nil: not slowed.
    public var cpuSlowdown: Double?
    /// Browsers on recorded pages get a deterministic `Date` and `Math.random` (`run --no-deterministic-js`
    /// turns it off); the generator's seed is the plan's `seed`.
    public var deterministicJS = true
    /// Per-run limit; nil: derived from the profile (10 × the ideal page load + 30 s, at most 10 min).
    public var timeout: Nanoseconds?

    public init(clients: [RunClient] = [.builtin]) { self.clients = clients }
}

/// Files for looking inside connections (`--keylog`, `--qlog`).
public struct DiagnosticSettings: Sendable, Equatable {
    /// TLS secrets in NSS key-log format, appended (TCP+TLS and QUIC).
    public var keyLogFile: String?
    /// One qlog file per QUIC connection in this directory.
    public var qlogDirectory: String?
    /// Per emulated run, path and direction, pcap files of the packets entering and leaving the
    /// link model, in this directory.
    public var pcapDirectory: String?
    /// Per emulated run, path and direction, a link log in Mahimahi's format, in this directory.
    public var linkLogDirectory: String?

    public init(keyLogFile: String? = nil, qlogDirectory: String? = nil, pcapDirectory: String? = nil) {
        self.keyLogFile = keyLogFile
        self.qlogDirectory = qlogDirectory
        self.pcapDirectory = pcapDirectory
    }

    /// `--pcap DIR` and `--link-log DIR` before the first run: only the emulator sees packets, so
    /// the plan needs an emulated profile, and DIR must be an existing, writable directory.
    public func checkPacketCapture(emulated: Bool) throws {
        for (option, dir) in [("--pcap", pcapDirectory), ("--link-log", linkLogDirectory)] {
            guard let dir else { continue }
            guard emulated else {
                throw BenchError.usage(
                    "\(option) \(dir): only the emulator of an emulated profile captures packets, and there is none "
                        + "here (a loopback-only plan, or --server)")
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory) else {
                throw BenchError.usage("\(option) \(dir): the directory does not exist (create it first)")
            }
            guard isDirectory.boolValue else { throw BenchError.usage("\(option) \(dir): not a directory") }
            guard FileManager.default.isWritableFile(atPath: dir) else {
                throw BenchError.usage("\(option) \(dir): the directory is not writable")
            }
        }
    }

    /// The files for a whole plan (or a server's life), opened and checked before the first
    /// connection: a qlog directory that is missing is a usage error. nil when none is asked for.
    public func open() throws -> DiagnosticFiles? {
        guard keyLogFile != nil || qlogDirectory != nil else { return nil }
        return try DiagnosticFiles(qlogDirectory: qlogDirectory, keyLogPath: keyLogFile)
    }
}
