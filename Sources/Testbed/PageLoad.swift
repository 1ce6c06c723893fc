import BenchCore
import BenchModel
import Runner
import LinkEmulator
import QUIC
import Transport

/// What any client needs for one page load in a testbed: the page, the protocol, where the
/// scenario's servers listen, whom to trust, where the client sits and how long it may take.
public struct PageLoadContext {
    public var scenario: Scenario
    public var transport: TransportKind
    public var serverEndpoints: ServerHost.Endpoints
    public var credentials: RunCredentials
    /// The client's namespace and source address in an emulated network; nil on loopback.
    public var clientNamespace: String?
    public var clientAddress: UInt32?
    public var timeout: Nanoseconds
    /// A filmstrip run (`run --filmstrip`): a browser captures what it paints; not a measured run.
    public var screencast = false
    /// `run --visual-metrics`: a browser captures what it paints during the run and records Speed Index
    /// and visually complete in the run's metrics.
    public var visualMetrics = false
    /// `run --cpu-slowdown N`: the browser's CPU slowed down N times.
    public var cpuSlowdown: Double?
    /// A browser on a recorded page makes its `Date` and `Math.random` deterministic with this
    /// `Math.random` seed (`run --seed`); nil: `run --no-deterministic-js`.
    public var deterministicJSSeed: UInt32?

    public init(
        scenario: Scenario, transport: TransportKind, serverEndpoints: ServerHost.Endpoints,
        credentials: RunCredentials, timeout: Nanoseconds
    ) {
        self.scenario = scenario
        self.transport = transport
        self.serverEndpoints = serverEndpoints
        self.credentials = credentials
        self.timeout = timeout
    }
}

/// What one page load produced, in the records' shape.
public struct PageLoadOutcome {
    public var requests: [RequestRecord]
    public var connections: [ConnectionRecord]
    public var metrics: RunMetrics
    public var failure: String?
    public var pathEvents: [PathEventRecord] = []
    /// A browser's painted frames (a screencast); nil otherwise.
    public var frames: [FilmstripRecord.Frame]?
    /// How the client's CPU was slowed down (`run --cpu-slowdown`), when it was.
    public var cpuSlowdown: CPUSlowdownRecord?
    /// A recorded page's deterministic JavaScript, when it was applied.
    public var deterministicJS: DeterministicJSRecord?
    /// When the loader started (the origin of every time in the records).
    public var navigationStart: Instant?
    /// A browser on a real page: scenario resources the page never requested, by id (nil: none).
    public var notRequested: [String]?

    public init(
        requests: [RequestRecord], connections: [ConnectionRecord], metrics: RunMetrics,
        failure: String?
    ) {
        self.requests = requests
        self.connections = connections
        self.metrics = metrics
        self.failure = failure
    }

    /// A load that did not happen, and why.
    public static func failed(_ why: String) -> PageLoadOutcome {
        PageLoadOutcome(requests: [], connections: [], metrics: RunMetrics(), failure: why)
    }
}

/// One page load by one client: netbench's own loader (`PageRun`) or a browser's.
public protocol PageLoad {
    /// `register` receives the load's stop handle (nil when it ends), so an interrupt ends it at once.
    func execute(register: (StopFlag?) -> Void) throws -> PageLoadOutcome
}

/// How a client other than netbench's own plugs into the testbed: it makes the page loads of its
/// runs (`RunClient`), told where the servers are and where the client sits.
public protocol PageLoadFactory: AnyObject {
    var client: RunClient { get }
    /// Whether the replay server must serve real pages (HTML, CSS, scripts: `PageRenderer`).
    var needsRenderedPages: Bool { get }
    /// Checked before the first run: throws what would fail every run; `notice` gets what the user
    /// should know about these scenarios with this client.
    func prepare(scenarios: [Scenario], notice: (String) -> Void) throws
    func makeLoad(_ context: PageLoadContext) throws -> PageLoad
}

/// Competing flows on the bottleneck during every page load of a block (a profile's
/// `crossTraffic`), started by a `BackgroundTrafficFactory` when the block's network is up.
public protocol BackgroundTraffic: AnyObject {
    /// Starts the flows ahead of the page and returns once the page is due.
    func begin()
    /// Stops what stops with the page (at its last byte) and returns the flows' record.
    func end(_ outcome: PageLoadOutcome) -> CrossTrafficRecord?
    /// A run that failed: stops the flows if they run and returns what they did.
    func abandon() -> CrossTrafficRecord?
    func close()
}

/// Starts a block's background traffic (its own servers live as long as the block).
public protocol BackgroundTrafficFactory: AnyObject {
    func start(
        flows: [CrossFlowSpec], network: EmulatedNetwork, credentials: RunCredentials,
        quic: QUICConfiguration, tcpCongestionControl: String
    ) throws -> BackgroundTraffic
}
