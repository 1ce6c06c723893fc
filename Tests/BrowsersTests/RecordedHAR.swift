import Foundation
import BenchModel
import SystemIO
@testable import NetbenchCommands

/// A HAR with content written by hand, imported as `netbench import-har` does (scenario and bodies in a
/// directory): the recorded pages of the browser tests.
enum RecordedHAR {
    /// One GET entry whose response has `text` as its content.
    static func entry(_ url: String, _ mime: String, _ text: String, started: String = "2026-11-27T12:00:00.000Z")
        -> [String: Any]
    {
        [
            "startedDateTime": started, "time": 10,
            "request": ["method": "GET", "url": url, "headers": []],
            "response": [
                "status": 200, "headers": [["name": "Content-Type", "value": mime]],
                "content": ["size": text.utf8.count, "mimeType": mime, "text": text],
            ],
        ]
    }

    /// `dir/name.json` and `dir/bodies/` from the entries (and the HAR's pages, if given); the scenario loaded.
    @discardableResult
    static func importInto(_ dir: String, name: String, entries: [[String: Any]], pages: [[String: Any]]? = nil)
        throws -> Scenario
    {
        var log: [String: Any] = ["version": "1.2", "entries": entries]
        if let pages { log["pages"] = pages }
        let result = try HARImporter.importHAR(
            try JSONSerialization.data(withJSONObject: ["log": log]), file: dir + "/\(name).har",
            options: .init(name: name, bodiesDirectory: "bodies"))
        try ImportHARCommand.writeBodies(result.bodies, to: "bodies", besideScenario: dir + "/\(name).json")
        try AtomicFile.write(try JSONFile.encode(result.scenario), to: dir + "/\(name).json")
        return try Scenario.load(from: dir + "/\(name).json")
    }
}
