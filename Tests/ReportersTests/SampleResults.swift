import BenchCore
import BenchModel

/// Small, deterministic results files built in code: the input of the golden files and of the
/// check tests. Only arithmetic on `SeededRandom` (no libm), so every machine builds the same bytes.
enum SampleResults {
    /// Approximately normal (Irwin–Hall: the sum of four uniforms), rounded to 0.1.
    static func normal(_ rng: inout SeededRandom, mean: Double, sd: Double) -> Double {
        let u = rng.nextUnit() + rng.nextUnit() + rng.nextUnit() + rng.nextUnit()
        // The sum of four U(0,1) has mean 2 and variance 1/3.
        return ((mean + (u - 2) * sd * 1.7320508075688772) * 10).rounded() / 10
    }

    static let fourG = Profile(
        name: "4g", description: "WebPageTest 4G", source: "WebPageTest connectivity.ini",
        rtt: .ms(170), down: BitrateValue(bitsPerSecond: 9e6), up: BitrateValue(bitsPerSecond: 9e6),
        loss: Fraction(0), queue: .bandwidthDelayProduct)
    static let cable = Profile(
        name: "cable", rtt: .ms(28), down: BitrateValue(bitsPerSecond: 5e6),
        up: BitrateValue(bitsPerSecond: 1e6), loss: Fraction(0.001))
    static let wifiToLTE = Profile(
        name: "wifi-to-lte", description: "Wi-Fi, then cellular after 250 ms",
        rtt: .ms(40), down: BitrateValue(bitsPerSecond: 20e6), up: BitrateValue(bitsPerSecond: 10e6))

    static func file(
        runs: [RunRecord], profiles: [Profile] = [fourG], transports: [TransportKind] = [.h1, .h2, .h3],
        name: String = "demo", scenarios: [String] = ["news"], perCell: Int = 12
    ) -> ResultsFile {
        ResultsFile(
            netbenchVersion: "0.1.0", startedAt: "2024-06-01T10:00:00Z",
            host: HostInfo(kernel: "Linux 6.1.0", cpuCount: 2, hostname: "bench-1"),
            suite: SuiteInfo(
                name: name, scenarios: scenarios, profiles: profiles, transports: transports,
                runs: perCell, warmupRuns: 1, seed: 42, baselineTransport: .h2, client: "builtin"),
            runs: runs)
    }

    /// The golden-file input: a page on two profiles with three transports, a warm-up and a failed
    /// run, and a path-change scenario where h2 reconnects and h3 migrates.
    static func demo(perCell: Int = 12) -> ResultsFile {
        var rng = SeededRandom(seed: 2024)
        var runs: [RunRecord] = []
        for profile in [fourG, cable] {
            let rtt = profile.rtt!.milliseconds
            for index in 0..<(perCell + 1) {
                for t in [TransportKind.h1, .h2, .h3] {
                    var run = pageRun(
                        &rng, scenario: "news", profile: profile.name, transport: t, index: index, rtt: rtt)
                    if index == 0 { run.warmup = true }
                    if profile.name == "cable" && t == .h2 && index == 1 { run.crossTraffic = crossTraffic() }
                    if profile.name == "cable" && t == .h1 && index == 5 {
                        run = RunRecord(
                            scenario: "news", profile: "cable", transport: .h1, index: 5, status: .failed,
                            error: "connection to static.example reset by peer after 3 retries, \"ECONNRESET\"")
                    }
                    runs.append(run)
                }
            }
        }
        for index in 0..<perCell {
            for t in [TransportKind.h2, .h3] {
                runs.append(migrationRun(&rng, transport: t, index: index))
            }
        }
        for index in 0..<perCell {
            for t in [TransportKind.h2, .h3] { runs.append(bulkRun(&rng, transport: t, index: index)) }
        }
        return file(
            runs: runs, profiles: [fourG, cable, wifiToLTE], scenarios: ["news", "video-start", "download-5MB"],
            perCell: perCell)
    }

    /// Two competing downloads (TCP cubic, QUIC bbr) from 1 s before the page to 0.8 s after it.
    static func crossTraffic() -> CrossTrafficRecord {
        func flow(_ name: String, _ t: TransportKind, _ cc: String, _ bins: [Int64]) -> CrossFlowRecord {
            var f = CrossFlowRecord(
                name: name, transport: t, direction: .download, startMs: -1000, stopMs: 800, bytes: bins.reduce(0, +),
                bins: bins)
            f.congestionControl = cc
            f.congestionControlReadBack = cc
            f.goodputMbps = Double(f.bytes) * 8 / 1.8 / 1e6
            return f
        }
        var a = flow(
            "tcp-cubic", .h2, "cubic",
            [
                20_000, 30_000, 31_000, 30_000, 28_000, 27_000, 26_000, 26_000, 25_000, 25_000,
                24_000, 24_000, 25_000, 25_000, 26_000, 25_000, 25_000, 24_000,
            ])
        var b = flow(
            "quic-bbr", .h3, "bbr",
            [
                10_000, 25_000, 31_000, 32_000, 33_000, 34_000, 35_000, 35_000, 36_000, 36_000,
                37_000, 37_000, 36_000, 36_000, 35_000, 36_000, 36_000, 37_000,
            ])
        let ta = Double(a.bytes), tb = Double(b.bytes)
        a.share = ta / (ta + tb)
        b.share = tb / (ta + tb)
        var r = CrossTrafficRecord(binMs: 100, originMs: -1000, flows: [a, b])
        r.shareWindowStartMs = -1000
        r.shareWindowEndMs = 800
        r.jainIndex = (ta + tb) * (ta + tb) / (2 * (ta * ta + tb * tb))
        return r
    }

    /// A page load: a document, then a stylesheet, a script and three images on a second origin.
    static func pageRun(
        _ rng: inout SeededRandom, scenario: String, profile: String, transport: TransportKind,
        index: Int, rtt: Double
    ) -> RunRecord {
        let hsRTTs: Double = transport == .h3 ? 1 : 2
        let speed = transport == .h1 ? 1.12 : transport == .h2 ? 1.0 : 0.93
        var connections: [ConnectionRecord] = []
        var requests: [RequestRecord] = []
        func connect(_ origin: String, at: Double) -> (Int, Double) {
            var c = ConnectionRecord(id: connections.count, origin: origin, transport: transport, connectStart: at)
            let tcp = at + normal(&rng, mean: rtt, sd: rtt * 0.03)
            if transport != .h3 { c.connectEnd = tcp }
            let done =
                (transport == .h3 ? at : tcp)
                + normal(&rng, mean: rtt * (hsRTTs - (transport == .h3 ? 0 : 1)), sd: rtt * 0.03)
            c.handshakeEnd = done
            c.tlsVersion = "TLSv1.3"
            c.alpn = transport == .h1 ? "http/1.1" : transport.rawValue
            connections.append(c)
            return (c.id, done)
        }
        func fetch(_ id: String, _ origin: String, queued: Double, bytes: Int64, conn: (Int, Double)?, fresh: Bool)
            -> RequestRecord
        {
            var r = RequestRecord(id: id, origin: origin, queued: queued, bytes: bytes)
            let (cid, ready) = conn ?? connect(origin, at: queued)
            r.connection = cid
            if conn == nil || fresh {
                let c = connections[cid]
                r.connectStart = c.connectStart; r.connectEnd = c.connectEnd; r.tlsEnd = c.handshakeEnd
            }
            r.requestSent = max(queued, ready) + 0.2
            r.firstByte = r.requestSent! + normal(&rng, mean: rtt, sd: rtt * 0.04) + 12
            r.lastByte = r.firstByte! + Double(bytes) / 1000 * speed * normal(&rng, mean: 0.9, sd: 0.08)
            r.status = 200
            r.protocol = transport.rawValue
            return r
        }
        let doc = fetch("/index.html", "www", queued: 0, bytes: 48_000, conn: nil, fresh: true)
        requests.append(doc)
        let reveal = doc.firstByte! + 15
        let staticConn = connect("static", at: reveal)
        requests.append(fetch("/app.css", "static", queued: reveal, bytes: 30_000, conn: staticConn, fresh: true))
        requests.append(
            fetch(
                "/app.js", "static", queued: reveal, bytes: 120_000, conn: transport == .h1 ? nil : staticConn,
                fresh: false))
        let imagesAt = requests[1].lastByte!
        for (i, size) in [Int64(60_000), 85_000, 40_000].enumerated() {
            let conn: (Int, Double)? = transport == .h1 && i > 0 ? nil : staticConn
            requests.append(
                fetch("/img/photo-\(i + 1).jpg", "static", queued: imagesAt, bytes: size, conn: conn, fresh: false))
        }
        var m = RunMetrics()
        m.pltMs = requests.compactMap(\.lastByte).max()
        m.ttfbMs = doc.firstByte
        m.handshakeMs = (connections[0].handshakeEnd ?? 0) - connections[0].connectStart
        m.bytes = requests.reduce(0) { $0 + $1.bytes }
        m.requests = requests.count
        m.connections = connections.count
        m.rttMs = rtt
        m.idealTtfbMs = (hsRTTs + 1) * rtt * 0.95 + 12
        m.idealPltMs = m.idealTtfbMs! + 1.8 * rtt + 120
        var run = RunRecord(
            scenario: scenario, profile: profile, transport: transport, index: index, status: .ok,
            metrics: m, requests: requests, connections: connections)
        var e = EmulatorRecord(profile: profile, configured: "rtt \(Int(rtt)) ms")
        e.releaseLatenessP50Us = normal(&rng, mean: 45, sd: 5)
        e.releaseLatenessP99Us = normal(&rng, mean: 220, sd: 30)
        e.tunDrops = 0
        if scenario == "news" && profile == "cable" && transport == .h3 && index == 7 {
            e.releaseLatenessP99Us = 1480; e.tunDrops = 3; e.flagged = true
        }
        if profile == "4g" {
            e.links = links(pltMs: m.pltMs ?? 0, index: index)
            run.metrics.downlinkQueueDelay = QueueDelayMetrics(
                p50Ms: e.links![1].sojournP50Ms, p90Ms: e.links![1].sojournP90Ms, p99Ms: e.links![1].sojournP99Ms,
                maxMs: e.links![1].sojournMaxMs)
            run.metrics.uplinkQueueDelay = QueueDelayMetrics(p50Ms: 0.9, p90Ms: 1.2, p99Ms: 2.5, maxMs: 3.1)
        }
        run.emulator = e
        run.startedAt = "2024-06-01T10:\(String(format2: index / 2)):00Z"
        return run
    }

    /// A trace-driven 4G link during a page load (deterministic): capacity that swings between 6
    /// and 14 Mbit/s, a load that fills it for the first half of the load, a queue that builds.
    static func links(pltMs: Double, index: Int) -> [LinkQueueRecord] {
        let binMs = 100.0, bins = Int((pltMs + 100) / binMs)
        var capacity: [Int64] = [], offered: [Int64] = [], departed: [Int64] = [], p50: [Double] = []
        for k in 0..<bins {
            // A triangle wave of period 8 bins (arithmetic only, like the rest of this file).
            let phase = k % 8
            let mbps = 6 + Double(phase < 4 ? phase : 8 - phase) * 2
            let cap = Int64(mbps * binMs * 1000 / 8 / 1500) * 1500
            let busy = Double(k) * binMs < pltMs * 0.6
            capacity.append(cap)
            offered.append(busy ? cap + Int64(3000 * (k % 3)) : 1500)
            departed.append(busy ? cap : 1500)
            p50.append(busy ? Double(k % 6) * 5 + Double(index % 3) : 0.5)
        }
        var down = LinkQueueRecord(
            path: "primary", direction: .down, received: 900, forwarded: 896, dropped: 4, departed: 896)
        (down.sojournP50Ms, down.sojournP90Ms, down.sojournP99Ms, down.sojournMaxMs) =
            (12.5 + Double(index % 3), 24.1, 31.9, 35.0 + Double(index))
        down.series = LinkSeriesRecord(
            binMs: binMs, offeredBytes: offered, departedBytes: departed, capacityBytes: capacity,
            drops: (0..<bins).map { $0 == 5 ? 4 : 0 }, delayP50Ms: p50, delayMaxMs: p50.map { $0 * 1.4 })
        var up = LinkQueueRecord(
            path: "primary", direction: .up, received: 300, forwarded: 300, dropped: 0, departed: 300)
        (up.sojournP50Ms, up.sojournP90Ms, up.sojournP99Ms, up.sojournMaxMs) = (0.9, 1.2, 2.5, 3.1)
        up.series = LinkSeriesRecord(
            binMs: binMs, offeredBytes: (0..<bins).map { _ in 300 }, departedBytes: (0..<bins).map { _ in 300 },
            capacityBytes: nil, drops: (0..<bins).map { _ in 0 }, delayP50Ms: (0..<bins).map { _ in 0.9 },
            delayMaxMs: (0..<bins).map { _ in 1.5 })
        return [up, down]
    }

    /// A 5 MB download on the cable profile: transfer time and goodput.
    static func bulkRun(_ rng: inout SeededRandom, transport: TransportKind, index: Int) -> RunRecord {
        var m = RunMetrics()
        m.handshakeMs = normal(&rng, mean: transport == .h3 ? 28 : 56, sd: 1.5)
        m.ttfbMs = m.handshakeMs! + normal(&rng, mean: 28, sd: 1)
        let goodput = normal(&rng, mean: transport == .h3 ? 4600 : 4750, sd: 60) / 1000
        m.goodputMbps = goodput
        m.pltMs = ((m.ttfbMs! + 5e6 * 8 / (goodput * 1e6) * 1000) * 10).rounded() / 10
        m.idealPltMs = (transport == .h3 ? 2 : 3) * 28 + 8000
        m.bytes = 5_000_000
        m.requests = 1
        m.connections = 1
        return RunRecord(
            scenario: "download-5MB", profile: "cable", transport: transport, index: index, status: .ok, metrics: m)
    }

    /// A bulk-ish transfer during which the client switches from Wi-Fi to cellular at 400 ms.
    static func migrationRun(_ rng: inout SeededRandom, transport: TransportKind, index: Int) -> RunRecord {
        var run = pageRun(
            &rng, scenario: "video-start", profile: "wifi-to-lte", transport: transport, index: index, rtt: 40)
        let event = PathEventRecord(at: 250, type: "switch", from: "wifi", to: "cellular")
        run.pathEvents = [event]
        let stall = transport == .h3 ? normal(&rng, mean: 120, sd: 20) : normal(&rng, mean: 420, sd: 40)
        // Everything still arriving after the event shifts by the stall.
        for i in run.requests.indices {
            if let lb = run.requests[i].lastByte, lb > 250 { run.requests[i].lastByte = lb + stall }
            if let fb = run.requests[i].firstByte, fb > 250 { run.requests[i].firstByte = fb + stall }
        }
        let before = run.metrics.pltMs ?? 0
        run.metrics.pltMs = run.requests.compactMap(\.lastByte).max()
        if transport == .h3 {
            var q = QUICStatsRecord()
            q.pathValidations = [PathValidationRecord(challengeAt: 252, validatedAt: 252 + 2 * 40, path: "cellular")]
            run.connections[run.connections.count - 1].quic = q
            run.metrics.migration = MigrationMetrics(
                survived: true, stallMs: stall, recoveryMs: stall + 80, extraHandshakes: 0,
                bytesRedownloaded: 0, baselinePltMs: before)
        } else {
            for i in run.connections.indices { run.connections[i].closedAt = 251 }
            var c = ConnectionRecord(
                id: run.connections.count, origin: "static", transport: transport, connectStart: 251)
            c.connectEnd = 291; c.handshakeEnd = 331; c.path = "cellular"
            run.connections.append(c)
            run.metrics.connections = run.connections.count
            run.metrics.migration = MigrationMetrics(
                survived: false, stallMs: stall, recoveryMs: stall + 150, extraHandshakes: 1,
                bytesRedownloaded: 61_440, baselinePltMs: before)
        }
        return run
    }
}

extension String {
    /// Two digits, zero-padded, without Foundation.
    init(format2 v: Int) { self = v < 10 ? "0\(v)" : "\(v)" }
}
