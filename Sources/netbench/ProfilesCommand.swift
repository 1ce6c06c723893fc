import Foundation
import BenchCore
import BenchModel
import Runner

struct ProfilesCommand: Command {
    static let name = "profiles"
    static let summary = "list the network profiles (down/up/RTT/loss/queue/trace)"
    static let help = """
    usage: netbench profiles [--json]

    Lists the profiles in Scenarios/profiles (and the built-in loopback). RTT convention: `rtt` is the
    round trip; each direction of the emulated link gets rtt/2 of one-way delay (WebPageTest's
    convention; sitespeed.io/Browsertime name the same profiles with half these RTTs).

    options:
      --json   print the profiles as JSON
    example:
      netbench profiles
    """

    static func run(_ args: inout Arguments) throws -> ExitCode {
        let json = args.flag("--json")
        _ = try args.positionals()
        let profiles = try Library.locate().allProfiles()
        if json {
            print(String(decoding: try JSONFile.encode(profiles), as: UTF8.self), terminator: "")
            return .success
        }
        var rows = [["name", "down", "up", "RTT", "loss", "queue", "source"]]
        for p in profiles {
            if p.paths != nil {
                rows.append([p.name, p.summary, "", "", "", "", p.source ?? ""])
                continue
            }
            let down = p.downTrace.map { "trace:" + URL(fileURLWithPath: $0).lastPathComponent } ?? p.down?.description ?? "-"
            let up = p.upTrace.map { "trace:" + URL(fileURLWithPath: $0).lastPathComponent } ?? p.up?.description ?? "-"
            var loss = p.loss?.description ?? "0%"
            if p.lossModel != nil { loss = "bursty (GE)" }
            rows.append([p.name, p.isEmulated ? down : "-", p.isEmulated ? up : "-", p.rtt?.description ?? (p.isEmulated ? "-" : "measured"),
                         p.isEmulated ? loss : "-", p.isEmulated ? (p.queue?.description ?? "BDP") : "-", p.source ?? ""])
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
            r.enumerated().map { i, c in i == r.count - 1 ? c : c + String(repeating: " ", count: widths[i] - c.count) }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
