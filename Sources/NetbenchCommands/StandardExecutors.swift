import BenchModel
import Browsers
import RemoteExecution
import Runner
import Testbed
import Workloads

/// The testbed as `netbench run` assembles it: netbench's own client, Chromium, Firefox and cross traffic.
public enum StandardExecutors {
    /// The browsers `--client` names, for the testbed and for `run --server` alike.
    public static func browsers() -> [PageLoadFactory] { [ChromiumLoadFactory(), FirefoxLoadFactory()] }

    public static func testbed(_ request: RunRequest) throws -> TestbedFactory {
        try TestbedFactory(request: request, clients: browsers(), background: CrossTrafficWorkload())
    }
}

extension BenchmarkRunner {
    /// A runner of `request` on the standard testbed (`StandardExecutors.testbed`).
    public convenience init(request: RunRequest, netbenchVersion: String) throws {
        self.init(
            request: request, netbenchVersion: netbenchVersion,
            executors: try StandardExecutors.testbed(request))
    }
}
