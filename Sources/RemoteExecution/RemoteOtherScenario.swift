import BenchCore
import BenchModel
import Runner
import Testbed
import Transport
import TLS

extension RemoteExecutor {
    /// The scenario files of a plan as `identify` and `refusal` compare them: path, name, bytes.
    public typealias ScenarioFile = (file: String, name: String, bytes: [UInt8])

    /// What to refuse with after `verifyCertificates` threw `certificateFailure`. netbench serve of
    /// another scenario has certificates for that scenario's names only, so the plan's names fail
    /// there before its description could be read: it is read once more, over TCP+TLS without any
    /// certificate check. netbench serve describing other scenarios: exit 65, the
    /// `ScenarioDigest.Mismatch` naming both and the certificate failure; anything else (no answer,
    /// no description, or the plan's scenarios served): exit 2 with the certificate failure.
    ///
    /// Neither the chain nor the names are checked on that connection: netbench serve's CA is in no
    /// system store, and a user who gave another server's `--ca` is as well served by hearing which
    /// scenario is there. Nothing read over it is trusted beyond choosing between two refusals: no
    /// run, probe or identity comes from it. QUIC (GnuTLS) has no such mode, hence TCP only: a server
    /// listening on UDP alone keeps exit 2.
    public func refusal(
        afterCertificateFailure certificateFailure: Error, transports: [TransportKind], scenarioFiles: [ScenarioFile]
    ) -> BenchError {
        let certificate = BenchError.run("\(certificateFailure)")
        let transport = transports.first { $0 != .h3 } ?? .h2
        let host = scenarios.first?.origins.first?.host ?? endpoint.host
        var tls = RemoteServerProbe.tlsConfiguration(for: transport, credentials: credentials, tlsVersion: tlsVersion)
        tls.verifiesPeer = false
        let head: RemoteServerProbe.Head
        do {
            let settings = ClientSettings(tls: try TLSClientContext(tls), quic: quic)
            head = try RemoteServerProbe.get(
                ServerDescription.path, over: transport, at: address, serverName: host, settings: settings,
                timeout: .seconds(10))
        } catch {
            return certificate
        }
        do {
            _ = try RemoteServerIdentity.judge(
                status: head.status, description: ServerDescription(headers: head.headers),
                scenarios: scenarioFiles, server: endpoint.description)
        } catch let other as ScenarioDigest.Mismatch {
            return .data("\(other); nor does its certificate verify for this scenario's names: \(certificateFailure)")
        } catch {
            return certificate
        }
        return certificate
    }
}
