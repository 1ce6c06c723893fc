import XCTest
import TLS

/// One CA for the whole test run, like one CA per benchmark run.
let testCA: CertificateAuthority = {
    do { return try CertificateAuthority(commonName: "netbench test CA") } catch { fatalError("\(error)") }
}()

/// A client and a server connection joined by memory: `pump` moves ciphertext both ways.
final class InMemoryPair {
    let client: TLSConnection
    let server: TLSConnection
    private var scratch = [UInt8](repeating: 0, count: 256 * 1024)

    init(client: TLSClientContext, server: TLSServerContext, serverName: String) throws {
        self.client = try TLSConnection(client: client, serverName: serverName)
        self.server = try TLSConnection(server: server)
    }

    /// Moves all pending ciphertext from `from` to `to`; returns the byte count.
    @discardableResult
    func move(from: TLSConnection, to: TLSConnection) -> Int {
        var total = 0
        while from.hasPendingCiphertext {
            let n = scratch.withUnsafeMutableBytes { from.takeCiphertext(into: $0) }
            scratch.withUnsafeBytes { to.receiveCiphertext(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            total += n
        }
        return total
    }

    func pump() {
        while move(from: client, to: server) + move(from: server, to: client) > 0 {}
    }

    /// Runs both handshakes to completion, then lets the client read what follows the server's
    /// Finished (TLS 1.3 session tickets). Throws the first side's error, after delivering its alert.
    func handshake() throws {
        for _ in 0..<16 {
            let clientDone: Bool
            do { clientDone = try client.handshake() } catch { pump(); throw error }
            move(from: client, to: server)
            let serverDone: Bool
            do { serverDone = try server.handshake() } catch { pump(); throw error }
            move(from: server, to: client)
            if clientDone && serverDone {
                XCTAssertEqual(try readAll(client).count, 0, "no application data expected yet")
                return
            }
        }
        XCTFail("handshake did not complete in 16 rounds")
    }

    /// Everything `connection` can decrypt now (stops at `.wantMore` or `.closed`).
    func readAll(_ connection: TLSConnection) throws -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let result = try buffer.withUnsafeMutableBytes { try connection.readPlaintext(into: $0) }
            guard case .bytes(let n) = result else { return out }
            out += buffer[..<n]
        }
    }
}

func serverContext(names: [[String]] = [["origin.test"]], configure: (inout TLSServerConfiguration) -> Void = { _ in })
    throws -> TLSServerContext
{
    var configuration = TLSServerConfiguration(identities: try names.map { try testCA.issue(hostNames: $0) })
    configure(&configuration)
    return try TLSServerContext(configuration)
}

func clientContext(
    trusting ca: CertificateAuthority = testCA,
    configure: (inout TLSClientConfiguration) -> Void = { _ in }
) throws -> TLSClientContext {
    var configuration = TLSClientConfiguration(trustedRootsPEM: ca.certificatePEM)
    configure(&configuration)
    return try TLSClientContext(configuration)
}

/// Asserts that `body` throws a TLSError of `kind` whose message contains `text` (case-insensitive).
func assertTLSError(
    _ kind: TLSError.Kind, containing text: String, file: StaticString = #filePath,
    line: UInt = #line, _ body: () throws -> Void
) {
    do {
        try body()
        XCTFail("expected a \(kind) error containing \"\(text)\"", file: file, line: line)
    } catch let error as TLSError {
        XCTAssertEqual(error.kind, kind, "\(error)", file: file, line: line)
        XCTAssertTrue(error.message.lowercased().contains(text.lowercased()), "\(error)", file: file, line: line)
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
    }
}
