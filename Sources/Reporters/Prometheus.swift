import Foundation
import BenchModel
import Statistics

/// `metrics.prom`: the run's summary in the Prometheus text exposition format (version 0.0.4), one
/// gauge family per figure, one sample per scenario × profile × transport × client. Times are in
/// seconds (Prometheus' base unit). Labels: scenario, profile, transport, client, netbench_version
/// and, when the results record one, commit. A cell whose figure is unknown (no counted run with
/// it) has no sample for that family. No timestamps: a Pushgateway refuses them.
public enum PrometheusExposition {
    public static let fileName = "metrics.prom"

    struct Family: Sendable {
        var name: String
        var help: String
        var value: @Sendable (ResultsAnalysis, CellKey) -> Double?
    }

    static func seconds(_ metric: String, _ pick: @escaping @Sendable (Summary) -> Double)
        -> @Sendable (ResultsAnalysis, CellKey) -> Double?
    {
        // To the nanosecond, so that 8601.8 ms reads 8.6018 rather than 8.601799999999999.
        { a, cell in a.summary(metric, cell).map { (pick($0) * 1e6).rounded() / 1e9 } }
    }

    static let families: [Family] = [
        Family(
            name: "netbench_plt_median_seconds",
            help: "Median page load time of the counted runs (navigation start to last byte).",
            value: seconds("pltMs", \.median)),
        Family(
            name: "netbench_plt_p95_seconds", help: "95th percentile page load time of the counted runs.",
            value: seconds("pltMs", \.p95)),
        Family(
            name: "netbench_ttfb_median_seconds",
            help: "Median time to first byte of the document of the counted runs.",
            value: seconds("ttfbMs", \.median)),
        Family(
            name: "netbench_ttfb_p95_seconds", help: "95th percentile time to first byte of the counted runs.",
            value: seconds("ttfbMs", \.p95)),
        Family(
            name: "netbench_runs", help: "Counted runs (status ok, not warm-up).",
            value: { a, cell in Double(a.countedRuns(cell).count) }),
        Family(
            name: "netbench_failures", help: "Failed runs.",
            value: { a, cell in Double(a.runs(cell).filter { $0.status == .failed }.count) }),
    ]

    public static func render(_ analysis: ResultsAnalysis) -> String {
        let results = analysis.results
        var out = ""
        for family in families {
            out += "# HELP \(family.name) \(escapeHelp(family.help))\n# TYPE \(family.name) gauge\n"
            for cell in analysis.cells {
                guard let v = family.value(analysis, cell) else { continue }
                var labels: [(String, String)] = [
                    ("scenario", cell.scenario), ("profile", cell.profile),
                    ("transport", cell.transport.rawValue),
                    ("client", (cell.client ?? analysis.clients[0]).rawValue),
                    ("netbench_version", results.netbenchVersion),
                ]
                if let commit = results.source?.commit { labels.append(("commit", commit)) }
                out +=
                    family.name + "{" + labels.map { "\($0.0)=\"\(escapeLabel($0.1))\"" }.joined(separator: ",") + "} "
                    + number(v) + "\n"
            }
        }
        return out
    }

    /// The shortest decimal that reads back as the same double (`Double.description`), without the
    /// `.0` of integers.
    static func number(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }

    static func escapeLabel(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    static func escapeHelp(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// The Pushgateway path of these results: `/metrics/job/netbench/suite/<suite>`, then
    /// `/label/<label>` when the results record one. Values are base64url-encoded (`@base64`) when
    /// they hold anything beyond letters, digits, `-`, `_` and `.`, as the Pushgateway's URL scheme allows.
    public static func pushPath(_ results: ResultsFile) -> String {
        var path = "/metrics/job/netbench" + segment("suite", results.suite.name)
        if let label = results.source?.label { path += segment("label", label) }
        return path
    }

    static func segment(_ name: String, _ value: String) -> String {
        let plain =
            !value.isEmpty
            && value.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                    || "-_.".unicodeScalars.contains($0)
            }
        if plain && value != "." && value != ".." { return "/\(name)/\(value)" }
        // An empty value is "=" in base64 form.
        let b64 = Data(value.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_")
        return "/\(name)@base64/" + (b64.isEmpty ? "=" : b64)
    }
}

/// `metrics.influx`: InfluxDB line protocol, one point per run (warm-up and failed runs included,
/// tagged), timestamped with the run's own start (nanoseconds since the epoch); a run without a
/// recorded start takes the results' start. Measurement `netbench_run`; tags suite, scenario,
/// profile, transport, client, netbench_version, commit (when known), status, warmup; fields
/// index and each metric the run recorded (ms, bytes, counts), plus `error` for a failed run.
public enum InfluxLineProtocol {
    public static let fileName = "metrics.influx"
    public static let measurement = "netbench_run"

    static let fields: [(key: String, metric: String)] = [
        ("plt_ms", "pltMs"), ("ttfb_ms", "ttfbMs"), ("handshake_ms", "handshakeMs"), ("goodput_mbps", "goodputMbps"),
        ("ideal_plt_ms", "idealPltMs"), ("ideal_ttfb_ms", "idealTtfbMs"), ("load_event_ms", "loadEventMs"),
    ]
    static let integerFields: [(key: String, metric: String)] = [
        ("bytes", "bytes"), ("requests", "requests"), ("connections", "connections"),
    ]

    public static func render(_ results: ResultsFile) -> String {
        var out = ""
        let fallback = nanoseconds(results.startedAt)
        for run in results.runs {
            var tags: [(String, String)] = [
                ("suite", results.suite.name), ("scenario", run.scenario), ("profile", run.profile),
                ("transport", run.transport.rawValue), ("client", (run.client ?? .builtin).rawValue),
                ("netbench_version", results.netbenchVersion),
            ]
            if let commit = results.source?.commit { tags.append(("commit", commit)) }
            tags += [("status", run.status.rawValue), ("warmup", run.warmup == true ? "true" : "false")]
            tags.sort { $0.0 < $1.0 }  // InfluxDB's recommended order
            var f: [String] = ["index=\(run.index)i"]
            for (key, metric) in fields {
                if let v = run.metrics.value(named: metric) { f.append("\(key)=\(PrometheusExposition.number(v))") }
            }
            for (key, metric) in integerFields {
                if let v = run.metrics.value(named: metric) { f.append("\(key)=\(Int64(v))i") }
            }
            if let e = run.error { f.append("error=\"\(escapeString(e))\"") }
            var line = escapeKey(measurement, measurement: true)
            for (k, v) in tags where !v.isEmpty { line += "," + escapeKey(k) + "=" + escapeKey(v) }
            line += " " + f.joined(separator: ",")
            if let t = run.startedAt.flatMap(nanoseconds) ?? fallback { line += " \(t)" }
            out += line + "\n"
        }
        return out
    }

    /// ISO 8601 (with or without fractional seconds) → ns since the epoch, at millisecond precision.
    static func nanoseconds(_ text: String) -> Int64? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let g = ISO8601DateFormatter()
        g.formatOptions = [.withInternetDateTime]
        guard let date = f.date(from: text) ?? g.date(from: text) else { return nil }
        return Int64((date.timeIntervalSince1970 * 1000).rounded()) * 1_000_000
    }

    static func escapeKey(_ s: String, measurement: Bool = false) -> String {
        var out = ""
        for c in s {
            if c == "," || c == " " || (!measurement && c == "=") || c == "\\" { out.append("\\") }
            if c == "\n" { out += "\\n"; continue }
            out.append(c)
        }
        return out
    }

    static func escapeString(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}

extension PrometheusExposition {
    public static let reporter = TextReporter(fileName: fileName, needsAnalysis: true) { render($1!) }
}
extension InfluxLineProtocol {
    public static let reporter = TextReporter(fileName: fileName, needsAnalysis: false) { r, _ in render(r) }
}
