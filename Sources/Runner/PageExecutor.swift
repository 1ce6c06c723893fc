import Foundation
import BenchCore
import BenchModel
import Transport

/// One run as the scheduler asks for it.
public struct RunSpec: Sendable, Hashable {
    public var scenarioIndex: Int
    public var transport: TransportKind
    /// Index among the counted runs of the cell; warm-ups are negative (-1, -2, …).
    public var index: Int
    public var client: RunClient
    /// False for the migration baseline: the same load without the profile's network events.
    public var withEvents: Bool
    public var timeout: Nanoseconds?
    /// A filmstrip run (`run --filmstrip`): the browser captures what it paints; not a measured run.
    public var filmstrip = false

    public init(
        scenarioIndex: Int, transport: TransportKind, index: Int, client: RunClient = .builtin,
        withEvents: Bool = true, timeout: Nanoseconds? = nil
    ) {
        self.scenarioIndex = scenarioIndex; self.transport = transport; self.index = index
        self.client = client; self.withEvents = withEvents; self.timeout = timeout
    }
}

/// Does one run of one profile's block and returns its record; the scheduler decides what runs
/// when (warm-ups, interleaving, migration baselines, persistence, cancellation, shards, resume).
/// The testbed's implementation is `ProfileTestbed` (servers, emulated network, a client per run);
/// `run --server` has `RemoteExecutor`; tests use stand-ins that need no sockets.
public protocol PageExecutor: AnyObject {
    /// Whether the profile changes the network during a run (each such run is then followed by a
    /// baseline run without the change).
    var hasPathEvents: Bool { get }
    /// `register` receives the run's stop handle (nil when it ends), so a cancel can end it at once.
    func execute(_ run: RunSpec, register: (StopFlag?) -> Void) -> RunRecord
    /// Releases the block's network and servers.
    func close()
}

/// Makes the executor of each profile's block.
public protocol PageExecutorFactory: AnyObject {
    /// Checked before anything is written: what would fail every run (a browser that is missing)
    /// throws; what the user should know about the plan goes to `notice`.
    func prepare(notice: (String) -> Void) throws
    func makeExecutor(profile: Profile, profileIndex: Int) throws -> PageExecutor
    /// The physical lower bound of a run's page load, in ms, before any run was measured (for the ETA).
    func idealPltMs(profile: Profile, scenarioIndex: Int, transport: TransportKind) -> Double?
}

extension PageExecutorFactory {
    public func prepare(notice: (String) -> Void) throws {}
}
