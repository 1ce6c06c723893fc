import BenchCore

/// What a browser's page looked like while it loaded, WebPageTest-style: the frames Chromium
/// painted during one load of a cell, made in a run of its own after the cell's measured runs
/// (capturing frames costs the browser CPU, so a measured run never captures them). Not a run:
/// it enters no statistics.
public struct FilmstripRecord: Codable, Sendable, Hashable {
    public struct Frame: Codable, Sendable, Hashable {
        /// When the frame was painted, ms from navigation start (0: what showed before the first paint).
        public var ms: Double
        /// The frame as a JPEG, base64.
        public var jpeg: String
        public init(ms: Double, jpeg: String) { self.ms = ms; self.jpeg = jpeg }
    }

    public var scenario: String
    public var profile: String
    public var transport: TransportKind
    public var client: RunClient
    /// Each frame from the time it was painted until the next, in time order.
    public var frames: [Frame]
    /// This load's own milestones (the filmstrip run's, not the measured runs' medians).
    public var firstContentfulPaintMs: Double?
    public var largestContentfulPaintMs: Double?
    public var loadEventMs: Double?
    /// Why the capture failed, when it did (frames may then be empty).
    public var error: String?

    public init(scenario: String, profile: String, transport: TransportKind, client: RunClient, frames: [Frame]) {
        self.scenario = scenario; self.profile = profile; self.transport = transport; self.client = client;
        self.frames = frames
    }

    /// The frame showing at `ms` (the last one painted at or before it); nil before the first.
    public func frameIndex(at ms: Double) -> Int? {
        frames.lastIndex { $0.ms <= ms }
    }
}
