import BenchCore
import SystemIO

/// Where one emulator run's packets are captured: `<directory>/<label>-<path>-<up|down>-<in|out>.pcap`.
public struct CaptureRequest: Sendable, Equatable {
    public var directory: String
    /// Names the run (scenario, profile, transport, client, run index) so runs never share a file.
    public var label: String
    /// Told at once, on the packet loop's thread, when the capture stops (a full disk); the run
    /// goes on whatever it does. Must not block.
    public var onFailure: (@Sendable (String) -> Void)?
    public init(directory: String, label: String, onFailure: (@Sendable (String) -> Void)? = nil) {
        self.directory = directory
        self.label = label
        self.onFailure = onFailure
    }

    public static func == (a: CaptureRequest, b: CaptureRequest) -> Bool {
        a.directory == b.directory && a.label == b.label
    }
}

/// The pcap files of one `start()`…`stop()` of the emulator: per path and direction, the packets
/// as they enter the link model (every packet routed to a link, those it then drops included) and
/// as they leave it (every packet released to a TUN).
///
/// Confined to the packet loop's thread between `start` and `stop`, like the forwarder's other
/// state. The first failure (a full disk) stops the whole capture; the run goes on, and `failure`
/// says what happened.
final class PacketCapture {
    struct Direction {
        let entering: PcapWriter
        let leaving: PcapWriter
    }

    private var uplinks: [Direction] = []
    private var downlinks: [Direction] = []
    /// Every file of this capture, in path order (up-in, up-out, down-in, down-out).
    let files: [String]
    private(set) var failure: String?
    /// Called once, on the packet loop's thread, with `failure` when the capture stops: it must
    /// not block (print a line, signal a process).
    var onFailure: (@Sendable (String) -> Void)?
    /// CLOCK_REALTIME − CLOCK_MONOTONIC (ns): packet times are monotonic, pcap's are wall clock.
    private let wallClockOffset: Int64

    init(_ request: CaptureRequest, pathNames: [String]) throws {
        wallClockOffset = Socket.realtimeMinusMonotonic()
        var files: [String] = []
        for name in pathNames {
            var pair: [Direction] = []
            for direction in ["up", "down"] {
                let stem = "\(request.directory)/\(request.label)-\(name)-\(direction)"
                let entering = try PcapWriter(path: stem + "-in.pcap")
                let d = Direction(entering: entering, leaving: try PcapWriter(path: stem + "-out.pcap"))
                files += [d.entering.path, d.leaving.path]
                pair.append(d)
            }
            uplinks.append(pair[0])
            downlinks.append(pair[1])
        }
        self.files = files
    }

    var isActive: Bool { failure == nil }

    /// A packet routed to path `path`'s uplink (`up`) or downlink, before the link model sees it.
    @inline(__always)
    func entering(path: Int, up: Bool, _ bytes: UnsafeRawBufferPointer, at time: Instant) {
        guard failure == nil else { return }
        let d = up ? uplinks[path] : downlinks[path]
        record(d.entering, bytes, time)
    }

    /// A packet the link model released, as written to the TUN.
    @inline(__always)
    func leaving(path: Int, up: Bool, _ bytes: UnsafeRawBufferPointer, at time: Instant) {
        guard failure == nil else { return }
        let d = up ? uplinks[path] : downlinks[path]
        record(d.leaving, bytes, time)
    }

    /// Writes what is still buffered (at `stop`, after the loop has ended).
    func finish() {
        guard failure == nil else { return }
        for w in (uplinks + downlinks).flatMap({ [$0.entering, $0.leaving] }) {
            do { try w.flush() } catch {
                stop(w, error)
                return
            }
        }
    }

    private func record(_ writer: PcapWriter, _ bytes: UnsafeRawBufferPointer, _ time: Instant) {
        do { try writer.append(bytes, wallClock: Int64(time.nanoseconds) + wallClockOffset) } catch {
            stop(writer, error)
        }
    }

    private func stop(_ writer: PcapWriter, _ error: Error) {
        let message = "packet capture stopped: writing \(writer.path) failed: \(error)"
        failure = message
        onFailure?(message)
    }
}
