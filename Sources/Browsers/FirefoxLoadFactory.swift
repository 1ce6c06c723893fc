import BenchCore
import BenchModel
import Runner
import Replay
import Testbed

/// Headless Firefox as a testbed client (`--client firefox`): one fresh browser per page load
/// (`FirefoxPageRun`), served the same real pages as Chromium.
public final class FirefoxLoadFactory: PageLoadFactory {
    public var client: RunClient { .firefox }
    public var needsRenderedPages: Bool { true }

    public init() {}

    /// Before the first run: Firefox must be installed (exit 2 naming the package), new enough for
    /// WebDriver BiDi (exit 2 naming its version), and certutil present for the run's CA.
    public func prepare(scenarios: [Scenario], notice: (String) -> Void) throws {
        guard let executable = FirefoxBrowser.locate() else {
            throw BenchError.run("--client firefox: Firefox is not installed; " + FirefoxBrowser.installHint)
        }
        _ = try FirefoxBrowser.checkVersion(executable)
        guard FirefoxBrowser.locateCertutil() != nil else {
            throw BenchError.run(
                "--client firefox: certutil is not installed (Debian package libnss3-tools; "
                    + "`scripts/bootstrap.sh --firefox`)")
        }
    }

    public func makeLoad(_ context: PageLoadContext) throws -> PageLoad {
        guard let executable = FirefoxBrowser.locate() else {
            throw BenchError.run("Firefox is not installed: " + FirefoxBrowser.installHint)
        }
        let e = context.serverEndpoints
        guard let server = e.tcp ?? e.udp else {
            throw BenchError.run("no server endpoint for \(context.scenario.name)")
        }
        return FirefoxPageRun(context: context, server: server, executable: executable)
    }
}

extension RunClient {
    /// The Firefox binary runs would use, or nil; `firefoxInstallHint` says how to get one.
    public static var firefoxPath: String? { FirefoxBrowser.locate() }
    public static var firefoxInstallHint: String { FirefoxBrowser.installHint }
    /// For `run --help`: the preferences a Firefox run sets, and why.
    public static var firefoxDocumentation: String { FirefoxPreferences.documentation }
}
