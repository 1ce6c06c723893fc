import BenchCore
import BenchModel
import Transport

/// A page load's results records, built from what the loader kept: times in ms from navigation
/// start, requests in discovery order, connections in opening order.
struct PageLoadRecords {
    let navigationStart: Instant
    let kind: TransportKind
    /// The connections in opening order: their origin and what they report of themselves.
    let connections: [(origin: String, info: ConnectionInfo)]
    /// The connections some request went on.
    let used: Set<Int>

    private func ms(_ i: Instant?) -> Double? { i.map { $0.milliseconds(since: navigationStart) } }

    func connectionRecords() -> [ConnectionRecord] {
        connections.enumerated().map { i, c in
            let info = c.info
            var rec = ConnectionRecord(
                id: i, origin: c.origin, transport: kind,
                connectStart: ms(info.connectStart) ?? 0)
            rec.connectEnd = ms(info.connectEnd)
            rec.handshakeEnd = ms(info.handshakeEnd)
            rec.closedAt = ms(info.closedAt)
            if !used.contains(i) { rec.unused = true }
            rec.localAddress = info.local?.description
            rec.remoteAddress = info.remote.description
            rec.tlsVersion = info.tlsVersion
            rec.alpn = info.alpn
            rec.resumed = info.resumed
            rec.earlyDataAccepted = info.earlyDataAccepted
            rec.error = info.error
            rec.congestionControl = info.congestionControl
            rec.quic = info.quic.map(quicRecord)
            if let q = info.quic {
                rec.ecn = ECNRecord(
                    negotiated: q.ecnValidated ?? false, received: q.ecnReceived, sentECT0: q.ecnSentECT0)
            } else if let negotiated = info.ecnNegotiated {
                rec.ecn = ECNRecord(negotiated: negotiated)
            }
            return rec
        }
    }

    private func quicRecord(_ q: QUICSnapshot) -> QUICStatsRecord {
        var qr = QUICStatsRecord()
        qr.smoothedRttMs = q.smoothedRTT?.inMilliseconds
        qr.minRttMs = q.minRTT?.inMilliseconds
        qr.cwndBytes = q.cwnd
        qr.packetsSent = q.packetsSent
        qr.packetsReceived = q.packetsReceived
        qr.streamFramesLost = q.streamFramesLost
        qr.congestionControl = q.congestionControl
        if !q.pathValidations.isEmpty {
            qr.pathValidations = q.pathValidations.map {
                PathValidationRecord(challengeAt: ms($0.challenge), validatedAt: ms($0.validated))
            }
        }
        return qr
    }

    func requestRecord(_ p: RequestProgress) -> RequestRecord {
        var r = RequestRecord(id: p.resource.id, origin: p.resource.origin, queued: ms(p.queued) ?? 0, bytes: p.bytes)
        r.connection = p.connection
        if let ci = p.connection, p.connectionWasNew {
            let info = connections[ci].info
            r.connectStart = ms(info.connectStart)
            r.connectEnd = ms(info.connectEnd)
            r.tlsEnd = ms(info.handshakeEnd)
        }
        r.requestSent = ms(p.sent)
        r.firstByte = ms(p.firstByte)
        r.lastByte = ms(p.lastByte)
        r.status = p.status
        r.protocol = kind.alpn
        r.error = p.error
        return r
    }

    /// The run's metrics from its records: TTFB and the handshake from the root document's
    /// request, the page load time only when the load completed.
    func metrics(requests: [RequestRecord], root: RequestProgress?, completed: Bool) -> RunMetrics {
        var m = RunMetrics()
        m.requests = requests.count
        m.bytes = requests.reduce(0) { $0 + $1.bytes }
        m.connections = connections.count
        if let root {
            m.ttfbMs = ms(root.firstByte)
            if let ci = root.connection {
                let info = connections[ci].info
                if let end = info.handshakeEnd { m.handshakeMs = end.milliseconds(since: info.connectStart) }
            }
        }
        if completed {
            m.pltMs = requests.compactMap(\.lastByte).max()
        }
        return m
    }
}
