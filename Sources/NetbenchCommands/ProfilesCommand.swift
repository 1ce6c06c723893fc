import Foundation
import BenchCore
import BenchModel
import Runner
import Testbed
import Browsers
import Workloads
import RemoteExecution
import CommandLineKit

struct ProfilesCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "profiles",
            abstract: "list the network profiles (down/up/RTT/loss/queue/trace)",
            discussion: """
                Lists the profiles of the scenario library (see 'netbench doctor' for where it was found) and the \
                built-in loopback; path-change profiles show their paths and events. RTT convention: `rtt` is \
                the round trip; each direction of the emulated link gets rtt/2 of one-way delay (WebPageTest's \
                convention; sitespeed.io/Browsertime name the same profiles with half these RTTs).
                """,
            examples: ["netbench profiles", "netbench profiles --quiet", "netbench profiles --json"],
            exitCodes: [ExitCodeDoc(.success, "listed"), Netbench.usageExit, Netbench.dataExit])
    }

    @Flag("--json", help: "print the profiles as JSON (the profile files' own keys)") var json: Bool
    @Flag("--quiet", "-q", help: "print only the profile names, one per line") var quiet: Bool

    func validate() throws { _ = try OutputMode.from(json: json, quiet: quiet) }

    func run() throws -> ExitCode {
        let profiles = try Library.locate().allProfiles()
        switch try OutputMode.from(json: json, quiet: quiet) {
        case .json:
            try OutputMode.printJSON(profiles)
            return .success
        case .quiet:
            for p in profiles { print(p.name) }
            return .success
        case .table:
            break
        }
        var rows = [["name", "down", "up", "RTT", "loss", "queue", "source"]]
        for p in profiles {
            if p.paths != nil {
                rows.append([p.name, p.summary, "", "", "", "", p.source ?? ""])
                continue
            }
            let down =
                p.downTrace.map { "trace:" + URL(fileURLWithPath: $0).lastPathComponent } ?? p.down?.description ?? "-"
            let up = p.upTrace.map { "trace:" + URL(fileURLWithPath: $0).lastPathComponent } ?? p.up?.description ?? "-"
            var loss = p.loss?.description ?? "0%"
            if p.lossModel != nil { loss = "bursty (GE)" }
            rows.append([
                p.name, p.isEmulated ? down : "-", p.isEmulated ? up : "-",
                p.rtt?.description ?? (p.isEmulated ? "-" : "measured"),
                p.isEmulated ? loss : "-", p.isEmulated ? p.queueSummary : "-", p.source ?? "",
            ])
        }
        print(Table.render(rows))
        print("RTT = round trip; each direction gets RTT/2.")
        return .success
    }
}

/// A plain-text table with aligned columns.
enum Table {
    static func render(_ rows: [[String]]) -> String {
        guard let first = rows.first else { return "" }
        var widths = Array(repeating: 0, count: first.count)
        for r in rows { for (i, c) in r.enumerated() where i < widths.count { widths[i] = max(widths[i], c.count) } }
        return rows.map { r in
            r.enumerated().map { i, c in i == r.count - 1 ? c : c + String(repeating: " ", count: widths[i] - c.count) }
                .joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
