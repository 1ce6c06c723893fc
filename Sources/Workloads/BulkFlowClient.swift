import Foundation
import BenchCore
import Runner
import BenchModel
import Testbed
import SystemIO
import Transport
import TLS
import QUIC

/// One bulk transfer on one connection, driven by the caller's event loop: opens the connection,
/// and closes when told to stop. A download asks for `BulkFlowClient.path` and counts every
/// received body byte into 100 ms bins from `binOrigin`; an upload POSTs an endless filler body to
/// `Scenario.bulkPath` and, at each `sample`, counts the bytes the server acknowledged since the
/// request was sent (what arrived, not what sits in the socket's buffer). Used for cross traffic
/// and for the load of `netbench responsiveness`.
final class BulkFlowClient {
    /// The path a bulk flow server answers with an endless (100 GB) body.
    static let path = "/cross-bulk"
    static let bodyBytes: Int64 = 100_000_000_000

    let transport: TransportKind
    let direction: Scenario.Bulk.Direction
    let remote: Endpoint
    let serverName: String
    private(set) var bins: ThroughputBins
    let binOrigin: Instant
    private(set) var connection: ClientConnection?
    private(set) var startedAt: Instant?
    private(set) var stoppedAt: Instant?
    private(set) var error: String?
    /// Whether the body ended by itself (it should not, before the flow is stopped).
    private(set) var ended = false
    /// Upload: the server's acknowledged count when the request was sent, then at the last sample.
    private var acknowledged: Int64?

    init(
        transport: TransportKind, direction: Scenario.Bulk.Direction = .download, remote: Endpoint, serverName: String,
        binOrigin: Instant, binWidth: Nanoseconds = .milliseconds(100)
    ) {
        self.transport = transport; self.direction = direction; self.remote = remote; self.serverName = serverName
        self.binOrigin = binOrigin
        bins = ThroughputBins(width: binWidth)
    }

    var isRunning: Bool { startedAt != nil && stoppedAt == nil }

    /// Opens the connection (inside `namespace`, from `local`) and sends the request.
    func start(loop: EventLoop, settings: ClientSettings, namespace: String?, local: UInt32?) {
        startedAt = Instant.now()
        do {
            let c = try NetworkNamespace.with(namespace) {
                try ClientConnector.open(
                    transport, loop: loop, remote: remote, local: local.map { Endpoint(address: $0, port: 0) },
                    serverName: serverName, settings: settings)
            }
            connection = c
            // Incremental (RFC 9218), as bulk downloads are: a server that honours priorities then
            // interleaves other streams on the connection (the self probes of responsiveness)
            // instead of sending this endless body first.
            let request =
                direction == .upload
                ? ClientRequest(
                    method: "POST", authority: serverName, path: Scenario.bulkPath, headers: [("priority", "u=3, i")],
                    bodyLength: Self.bodyBytes)
                : ClientRequest(authority: serverName, path: Self.path, headers: [("priority", "u=3, i")])
            c.send(request) { [weak self] event in self?.handle(event) }
        } catch {
            self.error = "cannot open the \(transport.rawValue) connection: \(error)"
            stoppedAt = startedAt
        }
    }

    private func handle(_ event: ClientEvent) {
        guard stoppedAt == nil else { return }
        switch event {
        case .sent where direction == .upload: acknowledged = connection?.bytesAcknowledged ?? 0
        case .data(let count, let t) where direction == .download: bins.add(count, at: t.since(binOrigin))
        case .head(let status, _, _) where status != 200: error = "the server answered \(status)"
        case .end(let t): ended = true; error = error ?? "the body ended early"; stoppedAt = t
        case .failed(let reason, let t): error = error ?? reason; stoppedAt = t
        default: break
        }
    }

    /// Upload: bins the bytes the server acknowledged since the last sample at `now` (the caller
    /// samples every few ms, so a byte lands at most one sampling period late).
    func sample(now: Instant) {
        guard direction == .upload, stoppedAt == nil, let last = acknowledged,
            let current = connection?.bytesAcknowledged
        else { return }
        if current > last {
            bins.add(Int(current - last), at: now.since(binOrigin))
            acknowledged = current
        }
    }

    /// Stops counting and closes the connection.
    func stop() {
        sample(now: Instant.now())
        if stoppedAt == nil { stoppedAt = Instant.now() }
        connection?.close()
    }
}
