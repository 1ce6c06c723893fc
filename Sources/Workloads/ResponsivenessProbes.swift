import Foundation
import BenchCore
import Runner
import BenchModel
import Testbed
import SystemIO
import Transport
import TLS
import QUIC
import Statistics

/// The probes of one responsiveness phase, on the caller's event loop: every `interval` one foreign
/// probe (a new connection: its handshake(s), then a small GET on it) and one self probe (a small
/// GET on an existing connection: a load-generating one under load, a quiet one when idle).
/// Probes still unanswered when the phase ends are counted as unfinished and left out.
final class ResponsivenessProbes {
    static let smallPath = "/rpm-small"

    let transport: TransportKind
    let remote: Endpoint
    let serverName: String
    private(set) var tcp: [Double] = []
    private(set) var tls: [Double] = []
    private(set) var quicHandshake: [Double] = []
    private(set) var foreignHTTP: [Double] = []
    private(set) var selfHTTP: [Double] = []
    private(set) var started = 0
    private(set) var failures: [String] = []
    private var open: [ClientConnection] = []
    private var pending = 0

    init(transport: TransportKind, remote: Endpoint, serverName: String) {
        self.transport = transport; self.remote = remote; self.serverName = serverName
    }

    var unfinished: Int { pending }

    /// The samples in the draft's terms (TCP: tcp, tls; QUIC: its one handshake).
    var samples: Responsiveness.Samples {
        Responsiveness.Samples(
            handshakes: transport == .h3 ? [quicHandshake] : [tcp, tls], foreignHTTP: foreignHTTP, selfHTTP: selfHTTP)
    }

    /// A foreign probe: a new connection, then the small GET on it; the connection closes after.
    func foreign(loop: EventLoop, settings: ClientSettings, namespace: String?, local: UInt32?) {
        started += 1
        let conn: ClientConnection
        do {
            conn = try NetworkNamespace.with(namespace) {
                try ClientConnector.open(
                    transport, loop: loop, remote: remote, local: local.map { Endpoint(address: $0, port: 0) },
                    serverName: serverName, settings: settings)
            }
        } catch {
            failures.append("\(error)")
            return
        }
        open.append(conn)
        pending += 1
        request(on: conn) { [weak self, weak conn] ms in
            guard let self, let conn else { return }
            self.pending -= 1
            guard let ms else { return }
            let i = conn.info
            if self.transport == .h3 {
                if let h = i.handshakeEnd { self.quicHandshake.append(h.milliseconds(since: i.connectStart)) }
            } else if let c = i.connectEnd, let h = i.handshakeEnd {
                self.tcp.append(c.milliseconds(since: i.connectStart))
                self.tls.append(h.milliseconds(since: c))
            }
            self.foreignHTTP.append(ms)
            conn.close()
            self.open.removeAll { $0 === conn }
        }
    }

    /// A self probe where a GET cannot be multiplexed on the load connection `conn`: its transport's
    /// smoothed RTT estimate, which the draft allows in that case ("the TCP stack estimated
    /// round-trip-time can be used as a proxy"). An HTTP/3 upload is one: measured here, a GET on a
    /// connection carrying an endless upload never completed (all of them, 6 s of grace), most
    /// likely because nghttp3 0.8 schedules a client's own streams at the default, non-incremental
    /// priority (the upload, opened first, always goes first; not checked in its source). Nothing
    /// is recorded before the first RTT sample.
    func selfEstimate(on conn: ClientConnection) {
        guard let rtt = conn.info.quic?.smoothedRTT else { return }
        selfHTTP.append(rtt.inMilliseconds)
        estimated += 1
    }

    /// Self probes taken as the transport's RTT estimate (`selfEstimate`).
    private(set) var estimated = 0

    /// A self probe: the small GET on `conn` (an established connection).
    func selfProbe(on conn: ClientConnection) {
        started += 1
        pending += 1
        request(on: conn) { [weak self] ms in
            guard let self else { return }
            self.pending -= 1
            if let ms { self.selfHTTP.append(ms) }
        }
    }

    /// GET of the small object: request sent → last byte, in ms (nil on failure).
    private func request(on conn: ClientConnection, done: @escaping (Double?) -> Void) {
        var sent: Instant?
        conn.send(ClientRequest(authority: serverName, path: Self.smallPath)) { [weak self] event in
            switch event {
            case .sent(let t): sent = t
            case .end(let t): done(sent.map { t.milliseconds(since: $0) })
            case .failed(let reason, _): self?.failures.append(reason); done(nil)
            default: break
            }
        }
    }

    /// Closes the foreign connections still open.
    func closeAll() {
        for c in open { c.close() }
        open = []
    }
}
