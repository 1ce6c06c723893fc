/// The colour histogram of one painted frame, as WebPageTest computes it for visual progress:
/// per channel (red, green, blue) the number of pixels at each of the 256 intensities, near-white
/// pixels (all three channels ≥ 250) left out, so a page's blank background does not count as
/// content and compression noise on white does not either.
public struct FrameHistogram: Sendable, Equatable {
    /// `counts[channel * 256 + value]`, channel 0 red, 1 green, 2 blue.
    public private(set) var counts: [Int]

    public init() { counts = [Int](repeating: 0, count: 3 * 256) }

    /// The histogram of packed 8-bit pixels, `bytesPerPixel` bytes each (3: RGB, 4: RGBA; alpha ignored).
    public init(pixels: UnsafeBufferPointer<UInt8>, bytesPerPixel: Int) {
        precondition(bytesPerPixel >= 3, "a pixel needs red, green and blue")
        self.init()
        var i = 0
        let n = pixels.count - pixels.count % bytesPerPixel
        counts.withUnsafeMutableBufferPointer { c in
            while i < n {
                let r = Int(pixels[i]), g = Int(pixels[i + 1]), b = Int(pixels[i + 2])
                if r < 250 || g < 250 || b < 250 {
                    c[r] += 1
                    c[256 + g] += 1
                    c[512 + b] += 1
                }
                i += bytesPerPixel
            }
        }
    }

    public init(pixels: [UInt8], bytesPerPixel: Int) {
        self = pixels.withUnsafeBufferPointer { FrameHistogram(pixels: $0, bytesPerPixel: bytesPerPixel) }
    }

    /// Adds `n` pixels of one colour (for building histograms by hand).
    public mutating func add(red: UInt8, green: UInt8, blue: UInt8, count n: Int = 1) {
        guard red < 250 || green < 250 || blue < 250 else { return }
        counts[Int(red)] += n
        counts[256 + Int(green)] += n
        counts[512 + Int(blue)] += n
    }
}

/// Speed Index and visually complete, WebPageTest's histogram method (its `visualmetrics`):
///
/// - A frame's visual progress compares its histogram with the first frame's and the last one's:
///   per channel and intensity, what the last frame has that the first lacks (|last − first|) is the
///   target; what the frame has that the first lacks (|frame − first|) is matched against it within
///   a slop of intensities (5 below to 4 above, as WebPageTest's `range(i − 5, i + 5)`), so slight
///   colour shifts (compression) still match. Progress is matched / target over the three channels,
///   floored to a whole percent; 100% when the last frame differs from the first in nothing.
/// - Speed Index is the integral over time of 1 − progress, with progress a step function that
///   changes at each frame: Σ (tᵢ₊₁ − tᵢ)·(1 − progressᵢ), from the first frame to the last.
/// - First visual change: the first frame that differs from the first one; visually complete at p%:
///   the first frame whose progress reaches p.
///
/// The frames must start with what showed at navigation start (time 0) and end with the page as it
/// stayed; times are ms from navigation start.
public struct VisualMetrics: Sendable, Equatable {
    public struct Frame: Sendable, Equatable {
        public var ms: Double
        public var histogram: FrameHistogram
        public init(ms: Double, histogram: FrameHistogram) { self.ms = ms; self.histogram = histogram }
    }

    public var speedIndexMs: Double
    /// nil when no frame differs from the first (nothing painted).
    public var firstVisualChangeMs: Double?
    public var visuallyComplete85Ms: Double
    public var visuallyComplete95Ms: Double
    public var visuallyComplete99Ms: Double
    /// Progress reaches 100%.
    public var visuallyCompleteMs: Double
    /// Each frame's time and progress (0…100, whole percent).
    public var progress: [(ms: Double, percent: Int)]

    public static func == (a: VisualMetrics, b: VisualMetrics) -> Bool {
        a.speedIndexMs == b.speedIndexMs && a.firstVisualChangeMs == b.firstVisualChangeMs
            && a.visuallyComplete85Ms == b.visuallyComplete85Ms && a.visuallyComplete95Ms == b.visuallyComplete95Ms
            && a.visuallyComplete99Ms == b.visuallyComplete99Ms && a.visuallyCompleteMs == b.visuallyCompleteMs
            && a.progress.map(\.ms) == b.progress.map(\.ms) && a.progress.map(\.percent) == b.progress.map(\.percent)
    }

    /// Intensities matched either side of a bucket: `i - slopBelow ..< i + slopAbove`.
    static let slopBelow = 5
    static let slopAbove = 5

    /// The metrics of `frames` (sorted by time here); nil without frames.
    public static func compute(_ frames: [Frame]) -> VisualMetrics? {
        let sorted = frames.sorted { $0.ms < $1.ms }
        guard let first = sorted.first, let last = sorted.last else { return nil }
        let progress = sorted.map {
            (ms: $0.ms, percent: percent($0.histogram, first: first.histogram, last: last.histogram))
        }
        var si = 0.0
        for i in 0..<(progress.count - 1) {
            si += (progress[i + 1].ms - progress[i].ms) * (1 - Double(progress[i].percent) / 100)
        }
        func reaching(_ p: Int) -> Double { progress.first { $0.percent >= p }?.ms ?? last.ms }
        return VisualMetrics(
            speedIndexMs: si,
            firstVisualChangeMs: sorted.dropFirst().first { $0.histogram != first.histogram }?.ms,
            visuallyComplete85Ms: reaching(85), visuallyComplete95Ms: reaching(95), visuallyComplete99Ms: reaching(99),
            visuallyCompleteMs: reaching(100), progress: progress)
    }

    /// A frame's visual progress between `first` and `last`, whole percent (floored).
    public static func percent(_ frame: FrameHistogram, first: FrameHistogram, last: FrameHistogram) -> Int {
        var total = 0, matched = 0
        for channel in 0..<3 {
            let base = channel * 256
            var available = (0..<256).map { abs(frame.counts[base + $0] - first.counts[base + $0]) }
            for i in 0..<256 {
                var target = abs(last.counts[base + i] - first.counts[base + i])
                guard target > 0 else { continue }
                total += target
                for j in max(0, i - slopBelow)..<min(256, i + slopAbove) where target > 0 {
                    let m = min(target, available[j])
                    available[j] -= m
                    matched += m
                    target -= m
                }
            }
        }
        guard total > 0 else { return 100 }
        return Int((Double(matched) / Double(total) * 100).rounded(.down))
    }
}
