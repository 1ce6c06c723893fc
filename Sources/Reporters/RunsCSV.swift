import BenchModel

/// `runs.csv`: one row per run as recorded (failed and warm-up runs included), with its metrics,
/// status and error, so a spreadsheet can redo any figure. Runs of another client than the built-in
/// one add last columns: `client` and the browser's `loadEventMs`, `firstContentfulPaintMs`,
/// `largestContentfulPaintMs`. Runs with visual metrics (`run --visual-metrics`) add
/// `speedIndexMs`, `firstVisualChangeMs`, `visuallyComplete85Ms`, `visuallyComplete95Ms`,
/// `visuallyComplete99Ms` and `visuallyCompleteMs` after those.
public enum RunsCSV {
    public static let visualHeader = [
        "speedIndexMs", "firstVisualChangeMs", "visuallyComplete85Ms", "visuallyComplete95Ms",
        "visuallyComplete99Ms", "visuallyCompleteMs",
    ]

    public static let header = [
        "scenario", "profile", "transport", "index", "warmup", "status", "error", "startedAt",
        "pltMs", "ttfbMs", "handshakeMs", "idealPltMs", "idealTtfbMs", "goodputMbps", "bytes",
        "requests", "connections", "rttMs", "migrationSurvived", "stallMs", "recoveryMs",
        "emulatorFlagged", "releaseLatenessP99Us", "tunDrops",
    ]

    public static func render(_ results: ResultsFile) -> String {
        let withClient = results.runs.contains { ($0.client ?? .builtin) != .builtin }
        let withVisual = results.runs.contains { $0.metrics.speedIndexMs != nil }
        var out = CSV.record(
            header
                + (withClient ? ["client", "loadEventMs", "firstContentfulPaintMs", "largestContentfulPaintMs"] : [])
                + (withVisual ? visualHeader : []))
        for run in results.runs {
            let m = run.metrics
            func num(_ v: Double?) -> String { v.map(Format.number) ?? "" }
            func int<T: BinaryInteger>(_ v: T?) -> String { v.map { String($0) } ?? "" }
            func bool(_ v: Bool?) -> String { v.map { $0 ? "true" : "false" } ?? "" }
            out += CSV.record(
                [
                    run.scenario, run.profile, run.transport.rawValue, String(run.index), bool(run.warmup ?? false),
                    run.status.rawValue, run.error ?? "", run.startedAt ?? "",
                    num(m.pltMs), num(m.ttfbMs), num(m.handshakeMs), num(m.idealPltMs), num(m.idealTtfbMs),
                    num(m.goodputMbps), int(m.bytes), int(m.requests), int(m.connections), num(m.rttMs),
                    bool(m.migration?.survived), num(m.migration?.stallMs), num(m.migration?.recoveryMs),
                    bool(run.emulator?.flagged), num(run.emulator?.releaseLatenessP99Us), int(run.emulator?.tunDrops),
                ]
                    + (withClient
                        ? [
                            (run.client ?? .builtin).rawValue, num(m.loadEventMs), num(m.firstContentfulPaintMs),
                            num(m.largestContentfulPaintMs),
                        ] : [])
                    + (withVisual
                        ? [
                            num(m.speedIndexMs), num(m.firstVisualChangeMs), num(m.visuallyComplete85Ms),
                            num(m.visuallyComplete95Ms), num(m.visuallyComplete99Ms), num(m.visuallyCompleteMs),
                        ] : []))
        }
        return out
    }
}
