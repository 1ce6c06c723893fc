import BenchCore
import BenchModel
import Foundation
import Reporters

/// The file formats netbench reads: each entry does what the commands do with a file that loaded
/// (decode, validate, the figures `scenario show`, `profiles` and the reports print from it), so a
/// value that passes validation but traps later is found too.
enum ModelEntries {
    static func scenario(_ bytes: [UInt8], file: String) -> FuzzOutcome {
        attempt(file) {
            let s = try JSONFile.decode(Scenario.self, from: Data(bytes), file: file)
            try s.validate(file: file)
            let page = s.withBulkResource()
            let summary = ScenarioSummary(page, rttMs: 40, bitsPerSecond: 10e6)
            _ = (summary.totalBytes, summary.criticalPathMs, page.depth)
            for transport in TransportKind.allCases {
                let ideal = IdealPageLoad(rttMs: 40, downlinkBitsPerSecond: 10e6, transport: transport)
                _ = (ideal.pltMs(page), ideal.ttfbMs(page))
            }
            _ = page.resources.map(\.thinkTime)
            _ = try JSONFile.encode(s)
        }
    }

    static func profile(_ bytes: [UInt8], file: String) -> FuzzOutcome {
        attempt(file) {
            let p = try JSONFile.decode(Profile.self, from: Data(bytes), file: file)
            try p.validate(file: file)
            _ = p.summary
            _ = [p.rtt, p.tcpUserTimeout].compactMap { $0?.description }
            _ = (p.events ?? []).map { ($0.at.description, $0.duration?.description) }
            _ = try JSONFile.encode(p)
        }
    }

    static func suite(_ bytes: [UInt8], file: String) -> FuzzOutcome {
        attempt(file) {
            let s = try JSONFile.decode(Suite.self, from: Data(bytes), file: file)
            try s.validate(file: file)
            _ = s.budget?.description
            _ = try JSONFile.encode(s)
        }
    }

    static func results(_ bytes: [UInt8], file: String) -> FuzzOutcome {
        attempt(file) {
            let r = try ResultsFile.decode(Data(bytes), file: file)
            var out: [UInt8] = []
            try r.encodeJSON { out += $0 }
        }
    }

    /// What `netbench report DIR` does with a results file (fewer bootstrap resamples, same code).
    static func report(_ bytes: [UInt8], file: String) -> FuzzOutcome {
        attempt(file) {
            let r = try ResultsFile.decode(Data(bytes), file: file)
            _ = try ReportWriter.render(r, formats: ReportFormat.standard, resamples: 20)
            _ = TextSummary.render(r)
        }
    }

    static func runsLog(_ bytes: [UInt8], file: String) -> FuzzOutcome {
        attempt(file) {
            let whole = try ResultsLog.parse(Data(bytes), file: file)
            var out: [UInt8] = []
            try whole.resultsFile.encodeJSON { out += $0 }
        }
    }

    static func har(_ bytes: [UInt8], file: String) -> FuzzOutcome {
        attempt(file) {
            let result = try HARImporter.importHAR(Data(bytes), file: file)
            let data = try JSONFile.encode(result.scenario)
            // What import-har writes must load again as a valid scenario.
            let again = try JSONFile.decode(Scenario.self, from: data, file: file)
            try again.validate(file: file)
            _ = (result.scenario.totalBytes, result.scenario.depth, result.report.notes.map(\.description))
            _ = ScenarioSummary(again).criticalPathMs
        }
    }

    /// Runs `body`; a thrown error must meet the data-error contract.
    private static func attempt(_ file: String, _ body: () throws -> Void) -> FuzzOutcome {
        do {
            try body()
            return .accepted
        } catch {
            return FuzzTarget.checkDataError(error, file: file)
        }
    }
}
