import BenchCore
import BenchModel
import Runner
import Replay
import Testbed

/// Headless Chromium as a testbed client (`--client chromium`): one fresh browser per page load
/// (`ChromiumPageRun`), served real pages by the replay server.
public final class ChromiumLoadFactory: PageLoadFactory {
    public var client: RunClient { .chromium }
    public var needsRenderedPages: Bool { true }

    public init() {}

    /// The browser must be installed; says, once, which rendered pages could not keep their
    /// scenario's size (they are served larger, never cut) and what a browser cannot discover as
    /// the scenario says.
    public func prepare(scenarios: [Scenario], notice: (String) -> Void) throws {
        guard ChromiumBrowser.locate() != nil else {
            throw BenchError.run("--client chromium: Chromium is not installed; " + ChromiumBrowser.installHint)
        }
        for s in scenarios where s.bulk == nil {
            let renderer = PageRenderer(scenario: s, port: 65535)
            let over = s.resources.filter { renderer.servedBytes(of: $0) > $0.bytes }
            if !over.isEmpty {
                let sizes = over.map { "\($0.id) is \(renderer.servedBytes(of: $0) - $0.bytes) B larger" }
                notice(
                    "\(s.name): rendered for the browser, " + sizes.joined(separator: ", ")
                        + " than the scenario says (content does not fit; served whole)")
            }
            if !renderer.notes.isEmpty {
                let more = renderer.notes.count > 3 ? "; and \(renderer.notes.count - 3) more" : ""
                notice("\(s.name): for the browser, " + renderer.notes.prefix(3).joined(separator: "; ") + more)
            }
        }
    }

    public func makeLoad(_ context: PageLoadContext) throws -> PageLoad {
        guard let executable = ChromiumBrowser.locate() else {
            throw BenchError.run("Chromium is not installed: " + ChromiumBrowser.installHint)
        }
        let e = context.serverEndpoints
        guard let server = e.tcp ?? e.udp else {
            throw BenchError.run("no server endpoint for \(context.scenario.name)")
        }
        return ChromiumPageRun(context: context, server: server, executable: executable)
    }
}

extension RunClient {
    /// The Chromium binary runs would use, or nil; `chromiumInstallHint` says how to get one.
    public static var chromiumPath: String? { ChromiumBrowser.locate() }
    public static var chromiumInstallHint: String { ChromiumBrowser.installHint }
}
