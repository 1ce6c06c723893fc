import Foundation
import BenchCore
import BenchModel
import Statistics
import Transport
internal import CPNG

/// PNG frames decoded with libpng's simplified API (errors come back in the image struct; nothing
/// longjmps through Swift).
enum PNGImage {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The image's pixels as 8-bit RGBA rows, and its size.
    static func decodeRGBA(_ png: [UInt8]) throws -> (pixels: [UInt8], width: Int, height: Int) {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        let begun = png.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard begun != 0 else { throw Failure(description: "not a PNG libpng reads: \(message(&image))") }
        defer { png_image_free(&image) }
        image.format = cpng_format_rgba()
        let width = Int(image.width), height = Int(image.height)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let done = pixels.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
        guard done != 0 else { throw Failure(description: "PNG \(width)×\(height): \(message(&image))") }
        return (pixels, width, height)
    }

    /// An RGBA image as PNG bytes (tests build frames with it).
    static func encodeRGBA(_ pixels: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        precondition(pixels.count == width * height * 4, "RGBA needs 4 bytes per pixel")
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        image.width = png_uint_32(width)
        image.height = png_uint_32(height)
        image.format = cpng_format_rgba()
        var size = 0
        _ = pixels.withUnsafeBytes { png_image_write_to_memory(&image, nil, &size, 0, $0.baseAddress, 0, nil) }
        guard size > 0 else { throw Failure(description: "cannot size the PNG: \(message(&image))") }
        var out = [UInt8](repeating: 0, count: size)
        let ok = out.withUnsafeMutableBytes { o in
            pixels.withUnsafeBytes {
                png_image_write_to_memory(&image, o.baseAddress, &size, 0, $0.baseAddress, 0, nil)
            }
        }
        guard ok != 0 else { throw Failure(description: "cannot write the PNG: \(message(&image))") }
        return Array(out.prefix(size))
    }

    private static func message(_ image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

/// The frames a browser painted during a load, as base64 PNGs with the wall-clock time each showed
/// (ms since the epoch), kept as they come and decoded only after the load: decoding during it would
/// take CPU from the browser.
///
/// A frame that arrived before navigation was asked for showed before navigation start, whatever its
/// time says: a screencast frame's timestamp and the page's time origin come from different clocks,
/// and the blank tab's frame, received before `Page.navigate` was sent, was stamped up to 3.5 ms
/// after the page's time origin here (1 load in 4).
final class PaintedFrames {
    private var captured: [(epochMs: Double, png: String)] = []
    /// How many frames had arrived when navigation was asked for.
    private(set) var arrivedBeforeNavigation = 0
    var count: Int { captured.count }

    func add(epochMs: Double, base64PNG: String) { captured.append((epochMs, base64PNG)) }

    /// Call just before asking the browser to navigate: the frames so far (or the first `frames` of
    /// them, for frames added afterwards) showed before it.
    func navigationAsked(afterFrames frames: Int? = nil) {
        arrivedBeforeNavigation = min(frames ?? captured.count, captured.count)
    }

    /// The longest time between two consecutive frames, ms.
    var longestGapMs: Double? {
        let t = captured.map(\.epochMs).sorted()
        return t.count < 2 ? nil : zip(t.dropFirst(), t).map { $0 - $1 }.max()
    }

    /// The frames on the page's clock (`timeOrigin`: navigation start, ms since the epoch): the last
    /// frame before navigation start shows at 0, earlier ones are dropped.
    func frames(timeOrigin: Double) throws -> [VisualMetrics.Frame] {
        let placed = captured.enumerated().map { i, c in
            (epochMs: i < arrivedBeforeNavigation ? min(c.epochMs, timeOrigin) : c.epochMs, png: c.png)
        }
        let sorted = placed.sorted { $0.epochMs < $1.epochMs }
        let before = sorted.lastIndex { $0.epochMs <= timeOrigin }
        var out: [VisualMetrics.Frame] = []
        for (i, c) in sorted.enumerated() where before.map({ i >= $0 }) ?? true {
            guard let data = Data(base64Encoded: c.png) else {
                throw PNGImage.Failure(description: "frame \(i) is not base64")
            }
            let image = try PNGImage.decodeRGBA([UInt8](data))
            let ms = max(0, c.epochMs - timeOrigin)
            out.append(VisualMetrics.Frame(ms: ms, histogram: FrameHistogram(pixels: image.pixels, bytesPerPixel: 4)))
        }
        return out
    }

    /// The run's visual metrics from these frames, or why there are none.
    func metrics(timeOrigin: Double) -> Result<(VisualMetrics, frames: Int), PNGImage.Failure> {
        do {
            let frames = try frames(timeOrigin: timeOrigin)
            guard frames.first?.ms == 0 else {
                return .failure(PNGImage.Failure(description: "no frame showed what was there at navigation start"))
            }
            guard let m = VisualMetrics.compute(frames) else {
                return .failure(PNGImage.Failure(description: "no frames captured"))
            }
            return .success((m, frames.count))
        } catch let e as PNGImage.Failure {
            return .failure(e)
        } catch {
            return .failure(PNGImage.Failure(description: "\(error)"))
        }
    }
}

extension RunMetrics {
    /// Records `m` (computed from `frames` frames) in the run's metrics; `gapMs`: the longest time
    /// between frames taken on a cadence (Firefox), nil for frames sent as painted (Chromium).
    mutating func setVisual(_ m: VisualMetrics, frames: Int, gapMs: Double? = nil) {
        visualFrameGapMaxMs = gapMs
        speedIndexMs = m.speedIndexMs
        firstVisualChangeMs = m.firstVisualChangeMs
        visuallyComplete85Ms = m.visuallyComplete85Ms
        visuallyComplete95Ms = m.visuallyComplete95Ms
        visuallyComplete99Ms = m.visuallyComplete99Ms
        visuallyCompleteMs = m.visuallyCompleteMs
        visualFrames = frames
    }
}

/// Firefox's frames for visual metrics: WebDriver BiDi has no screencast, so a screenshot of the
/// viewport (`browsingContext.captureScreenshot`, PNG) is asked for every `interval`, one at a time
/// (a tick while one is outstanding is skipped). The browser draws the snapshot some time between the
/// command and its answer: each frame is timed at the midpoint, so its time is uncertain by half
/// that round trip. A fresh Firefox answers its first screenshots slowly (hundreds of ms here), so
/// `warmUp` takes screenshots of the blank page until one answers within `settled` before the page
/// is navigated to. A screenshot refused while the page is replaced ("Unable to capture screenshot")
/// is skipped; the run's metrics fail only if no frame came.
final class ScreenshotCadence {
    /// Stated in `run --help`; WebPageTest's video is 10 frames per second too.
    static let interval: Nanoseconds = .milliseconds(100)
    static let settled = 100.0

    let frames = PaintedFrames()
    private let bidi: WebDriverBiDi
    private let context: String
    private var timer: EventLoop.TimerID?
    private var outstanding = false
    private var stopped = false
    /// Round trip of the last screenshot answered, ms.
    private(set) var lastLatencyMs: Double?
    private(set) var refused: [String] = []
    private var measuring = false

    init(bidi: WebDriverBiDi, context: String) {
        self.bidi = bidi
        self.context = context
    }

    /// The longest time between two consecutive frames, ms: how late a change can be seen (the cadence
    /// plus a screenshot's round trip, longer on a busy machine); nil with fewer than two frames.
    var longestGapMs: Double? { frames.longestGapMs }

    /// Why no frame came, when none did.
    var failure: String? {
        guard frames.count == 0 else { return nil }
        return "browsingContext.captureScreenshot gave no frame"
            + (refused.isEmpty ? "" : " (\(refused.count) refused: \(refused[0]))")
    }

    /// Screenshots of what shows now, one after another, until one answers within `settled` ms or
    /// `deadline` passes; the last one is the frame at navigation start.
    func warmUp(deadline: Instant) throws {
        repeat {
            capture()
            try bidi.run(until: deadline + .seconds(5), "a screenshot") { !outstanding }
        } while (lastLatencyMs ?? .infinity) > Self.settled && Instant.now() < deadline
    }

    /// Takes a frame now and then every `interval` until `stop()`.
    func start() {
        measuring = true
        tick()
    }

    func stop() {
        stopped = true
        bidi.loop.cancel(timer)
        timer = nil
    }

    /// Takes one more frame and waits for it (the page as it stayed), until `deadline`.
    func finalFrame(deadline: Instant) throws {
        stop()
        try bidi.run(until: deadline, "the last screenshot") { !outstanding }
        capture()
        try bidi.run(until: deadline, "the last screenshot") { !outstanding }
    }

    private func tick() {
        guard !stopped else { return }
        if !outstanding { capture() }
        timer = bidi.loop.schedule(after: Self.interval) { [weak self] in self?.tick() }
    }

    private func capture() {
        let asked = Date().timeIntervalSince1970 * 1000
        outstanding = true
        let params: [String: Any] = ["context": context, "origin": "viewport", "format": ["type": "image/png"]]
        do {
            try bidi.send("browsingContext.captureScreenshot", params) { [weak self] answer in
                guard let self else { return }
                self.outstanding = false
                let latency = Date().timeIntervalSince1970 * 1000 - asked
                if let data = (answer["result"] as? [String: Any])?["data"] as? String {
                    self.lastLatencyMs = latency
                    self.frames.add(epochMs: asked + latency / 2, base64PNG: data)
                } else {
                    self.refused.append(
                        [answer["error"] as? String, answer["message"] as? String].compactMap { $0 }
                            .joined(separator: ": "))
                    // Refused while the page was being replaced: the next one at once, not at the next tick.
                    if self.measuring && !self.stopped { self.capture() }
                }
            }
        } catch {
            outstanding = false
            refused.append("\(error)")
        }
    }
}
