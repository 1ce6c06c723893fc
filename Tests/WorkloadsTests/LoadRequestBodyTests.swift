import Foundation
import XCTest
import BenchCore
import BenchModel
import SystemIO
import Transport
import TLS
import QUIC
import Testbed
@testable import Workloads

/// The load generator sends each target's own method and request body: a scenario's POST resource
/// reaches netbench's replay server as a POST with its body over h1, h2 and h3 (the server answers a
/// request only when its method and URL are a resource's, and notes each body it received), and a
/// quic-perf stream uploads what it is told to (netbench's perf server counts the bytes drained).
final class LoadRequestBodyTests: XCTestCase {
    static let form = "user=load&items=1%2C2%2C3&note=netbench"

    static let scenario = Scenario(
        name: "get-and-post", origins: [.init(id: "o", host: "localhost")],
        resources: [
            .init(id: "page", origin: "o", path: "/", bytes: 3000, type: .document),
            .init(
                id: "api", origin: "o", path: "/api/cart", bytes: 700, type: .xhr, parent: "page", method: "POST",
                requestBody: .init(text: form, contentType: "application/x-www-form-urlencoded")),
        ])

    var quic: QUICConfiguration {
        var q = QUICConfiguration()
        q.initialRTT = .milliseconds(1)
        return q
    }

    func targets(_ s: Scenario) -> [LoadTarget] {
        s.resources.map { r in
            LoadTarget(
                serverName: "localhost", path: r.path, expectedBytes: r.bytes, method: r.httpMethod,
                body: r.requestBody?.bytes ?? [], contentType: r.requestBody?.contentType)
        }
    }

    func testPostResourcesArriveAsPostsWithTheirBodiesOverEachProtocol() throws {
        let credentials = try RunCredentials(hosts: ["localhost"])
        let server = try ServerHost(
            scenarios: [Self.scenario], credentials: credentials, address: Endpoint.loopbackAddress, namespace: nil,
            withQUIC: true)
        defer { server.stop() }
        let targets = targets(Self.scenario)
        XCTAssertEqual(targets.map(\.method), ["GET", "POST"])
        let length = Self.form.utf8.count
        for kind in [TransportKind.h1, .h2, .h3] {
            _ = server.takeRequestBodies()
            _ = server.takeNotFound()
            var tls: TLSClientContext?
            if kind != .h3 {
                tls = try TLSClientContext(
                    TLSClientConfiguration(trustedRootsPEM: credentials.caPEM, alpn: [kind.alpn]))
            }
            let settings = LoadSettings(
                transport: LoadTransport(kind),
                model: .open([.init(rate: 200, duration: .milliseconds(500))]), connections: 2, streams: 4)
            let client = ClientSettings(tls: tls, quic: quic, trustedRootsPEM: credentials.caPEM)
            let endpoint = try XCTUnwrap(kind == .h3 ? server.endpoints[0].udp : server.endpoints[0].tcp)
            let o = try LoadGenerator(settings: settings, targets: targets, remote: endpoint, client: client).run()
            XCTAssertEqual(o.scheduled, 100, "\(kind)")
            XCTAssertEqual(o.ok, 100, "\(kind): \(o.errorExamples)")
            XCTAssertEqual(o.errors, [:], "\(kind)")
            // Half the requests are each resource's: 50 × 3,000 + 50 × 700 body bytes back.
            XCTAssertEqual(o.bytes, 50 * 3000 + 50 * 700, "\(kind)")
            XCTAssertEqual(o.bytesUploaded, Int64(50 * length), "\(kind)")
            XCTAssertEqual(server.takeNotFound(), [], "\(kind)")
            let bodies = server.takeRequestBodies()
            XCTAssertEqual(bodies.count, 50, "\(kind): \(bodies.prefix(3))")
            XCTAssertEqual(Set(bodies), ["POST localhost /api/cart: \(length) bytes"], "\(kind)")
        }
    }

    /// The same POST target with a GET in between, on one HTTP/2 connection with one stream: the
    /// client's reuse of the last request's field list must not turn a POST into a GET or drop its
    /// body (and the GETs after a POST still arrive as GETs: no 404, no body noted for them).
    func testPostsAndGetsAlternateOnOneHTTP2Stream() throws {
        let credentials = try RunCredentials(hosts: ["localhost"])
        let server = try ServerHost(
            scenarios: [Self.scenario], credentials: credentials, address: Endpoint.loopbackAddress, namespace: nil,
            withQUIC: false)
        defer { server.stop() }
        let tls = try TLSClientContext(TLSClientConfiguration(trustedRootsPEM: credentials.caPEM, alpn: ["h2"]))
        let settings = LoadSettings(
            transport: .h2, model: .open([.init(rate: 300, duration: .milliseconds(500))]), connections: 1,
            streams: 1)
        let client = ClientSettings(tls: tls, quic: quic, trustedRootsPEM: credentials.caPEM)
        // POST, POST, GET, … at 300/s on one stream: each head repeats once, then changes.
        let t = targets(Self.scenario)
        let o = try LoadGenerator(
            settings: settings, targets: [t[1], t[1], t[0]], remote: try XCTUnwrap(server.endpoints[0].tcp),
            client: client
        ).run()
        XCTAssertEqual(o.ok, 150, "\(o.errorExamples)")
        XCTAssertEqual(o.errors, [:], "\(o.errorExamples)")
        XCTAssertEqual(o.bytes, 100 * 700 + 50 * 3000)
        XCTAssertEqual(server.takeNotFound(), [])
        let posts = server.takeRequestBodies()
        XCTAssertEqual(posts.count, 100)
        XCTAssertEqual(Set(posts), ["POST localhost /api/cart: \(Self.form.utf8.count) bytes"])
        XCTAssertEqual(o.bytesUploaded, Int64(100 * Self.form.utf8.count))
    }

    /// A replay server that does not know the POST (the scenario it serves has the URL as GET only):
    /// every POST is a 404, counted as a status error naming the method — the check can fail.
    func testAPostTheServerDoesNotKnowIsAStatusError() throws {
        var getOnly = Self.scenario
        getOnly.resources[1].method = nil
        getOnly.resources[1].requestBody = nil
        let credentials = try RunCredentials(hosts: ["localhost"])
        let server = try ServerHost(
            scenarios: [getOnly], credentials: credentials, address: Endpoint.loopbackAddress, namespace: nil,
            withQUIC: false)
        defer { server.stop() }
        let tls = try TLSClientContext(TLSClientConfiguration(trustedRootsPEM: credentials.caPEM, alpn: ["h2"]))
        let settings = LoadSettings(
            transport: .h2, model: .open([.init(rate: 100, duration: .milliseconds(300))]), connections: 1,
            streams: 2)
        let client = ClientSettings(tls: tls, quic: quic, trustedRootsPEM: credentials.caPEM)
        let o = try LoadGenerator(
            settings: settings, targets: [targets(Self.scenario)[1]], remote: try XCTUnwrap(server.endpoints[0].tcp),
            client: client
        ).run()
        XCTAssertEqual(o.ok, 0)
        XCTAssertEqual(o.errors["status"], 30, "\(o.errors)")
        XCTAssertTrue(o.errorExamples["status"]?.hasPrefix("POST /api/cart: status 404") ?? false, "\(o.errorExamples)")
        XCTAssertEqual(Set(server.takeNotFound()), ["POST localhost /api/cart"])
    }

    /// quic-perf streams uploading 20,000 bytes each to netbench's perf server (on a thread of its
    /// own): the server drained exactly streams × 20,000 bytes, as the generator counted them.
    func testQUICPerfUploadsAreDrainedByThePerfServer() throws {
        let credentials = try RunCredentials(hosts: ["localhost"])
        let perf = try PerfServerThread(credentials: credentials, quic: quic)
        var stopped = false
        defer { if !stopped { _ = perf.stop() } }
        let target = LoadTarget(serverName: "localhost", path: "/obj", expectedBytes: 1500).perf!.uploading(20_000)
        XCTAssertEqual(target.path, "/1500")
        XCTAssertEqual(target.request.bodyLength, 20_000)
        let settings = LoadSettings(
            transport: .quicPerf, model: .open([.init(rate: 200, duration: .milliseconds(500))]), connections: 2,
            streams: 4)
        let client = ClientSettings(tls: nil, quic: quic, trustedRootsPEM: credentials.caPEM)
        let o = try LoadGenerator(settings: settings, targets: [target], remote: perf.endpoint, client: client).run()
        stopped = true
        let counters = perf.stop()
        XCTAssertEqual(o.ok, 100, "\(o.errorExamples)")
        XCTAssertEqual(o.errors, [:])
        XCTAssertEqual(o.bytes, 100 * 1500)
        XCTAssertEqual(o.bytesUploaded, 100 * 20_000)
        XCTAssertEqual(counters.streamsAnswered, 100)
        XCTAssertEqual(counters.bytesRequested, 100 * 1500)
        XCTAssertEqual(counters.bytesUploaded, 100 * 20_000)
    }
}

/// Shards' uploads merge: bytes uploaded summed (a file written before they were counted adds
/// nothing), and shards that uploaded different sizes per stream are not one load.
final class LoadUploadMergeTests: XCTestCase {
    func results(uploaded: Int64?, upload: Int64?) throws -> LoadResults {
        let t0 = Instant(nanoseconds: 5_000_000_000)
        var recorder = try LoadRecorder(steps: 1, interval: .seconds(1))
        recorder.begin(at: t0, wallClock: 0)
        recorder.scheduled = 2
        recorder.sent = 2
        for l: Int64 in [100, 200] { recorder.ok(latency: l * 1000, step: 0, at: t0 + .milliseconds(10)) }
        var o = recorder.finish(at: t0 + .seconds(1), loadEnd: t0 + .seconds(1))
        o.steps = [.init(rate: 2, duration: .seconds(1), scheduled: 2, ok: 2, latency: o.latency)]
        let settings = LoadSettings(
            transport: .quicPerf, model: .open([.init(rate: 2, duration: .seconds(1))]), connections: 1, streams: 1)
        var r = try LoadRecord(o, settings: settings)
        r.bytesUploaded = uploaded
        r.upload = upload
        return LoadResults(
            netbenchVersion: "t", startedAt: "2026-01-01T00:00:00Z", server: "s", targets: [], loads: [r])
    }

    func testBytesUploadedAddAndUploadSizesMustAgree() throws {
        let merged = try LoadResults.merged([
            ("a", try results(uploaded: 2000, upload: 1000)), ("b", try results(uploaded: 3000, upload: 1000)),
        ])
        XCTAssertEqual(merged.loads[0].bytesUploaded, 5000)
        XCTAssertEqual(merged.loads[0].upload, 1000)
        let old = try LoadResults.merged([
            ("a", try results(uploaded: 70, upload: nil)), ("b", try results(uploaded: nil, upload: nil)),
        ])
        XCTAssertEqual(old.loads[0].bytesUploaded, 70)
        let none = try LoadResults.merged([
            ("a", try results(uploaded: nil, upload: nil)), ("b", try results(uploaded: nil, upload: nil)),
        ])
        XCTAssertNil(none.loads[0].bytesUploaded)
        XCTAssertThrowsError(
            try LoadResults.merged([
                ("a", try results(uploaded: 2000, upload: 1000)), ("b", try results(uploaded: 4000, upload: 2000)),
            ])
        ) { XCTAssertTrue("\($0)".contains("upload 2000"), "\($0)") }
    }
}

/// netbench's perf server (`QUICServerEndpoint` with ALPN perf, as `netbench perf --listen` runs it)
/// on an event loop of its own thread; `stop` ends the thread and returns the server's counters.
final class PerfServerThread: @unchecked Sendable {
    private(set) var endpoint = Endpoint(address: 0, port: 0)
    private var stopper: StopFlag?
    private var counters = QUICPerfServerCounters()
    private var failure: Error?
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    init(credentials: RunCredentials, quic: QUICConfiguration) throws {
        var perfConfig = quic
        perfConfig.alpn = QUICPerf.alpn
        let config = perfConfig
        let identities = credentials.identities.map {
            QUICServerCredentials(certificateChainPEM: $0.certificateChainPEM, privateKeyPEM: $0.privateKeyPEM)
        }
        let thread = Thread { [self] in
            defer { done.signal() }
            do {
                let loop = try EventLoop()
                let server = try QUICServerEndpoint(
                    loop: loop, endpoint: Endpoint(address: Endpoint.loopbackAddress, port: 0),
                    credentials: identities, config: config,
                    handler: { _ in ServerResponse(status: 500, bodyLength: 0) })
                endpoint = server.endpoint
                stopper = loop.stopper
                ready.signal()
                try loop.run()
                counters = server.perfCounters
                server.close()
            } catch {
                failure = error
                ready.signal()
            }
        }
        thread.start()
        ready.wait()
        if let failure {
            done.wait()
            throw failure
        }
    }

    func stop() -> QUICPerfServerCounters {
        stopper?.set()
        done.wait()
        return counters
    }
}
