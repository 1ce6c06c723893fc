import Foundation
import BenchCore
import BenchModel
import SystemIO
import Workloads

/// `netbench merge` of `netbench load --shard` directories (each with load.json).
enum LoadMergeInput {
    static func holdsLoad(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path + "/load.json") || path.hasSuffix("load.json")
    }

    static func merge(_ inputs: [String], into out: String) throws -> ExitCode {
        let shards = try inputs.map { dir -> (source: String, results: LoadResults) in
            let file = dir.hasSuffix(".json") ? dir : dir + "/load.json"
            guard let data = FileManager.default.contents(atPath: file) else {
                throw BenchError.data("\(file): cannot read (a load shard's load.json)")
            }
            let r = try JSONFile.decode(LoadResults.self, from: data, file: file)
            guard r.schemaVersion == LoadResults.currentVersion else {
                throw BenchError.data(
                    "\(file): schemaVersion \(r.schemaVersion), expected \(LoadResults.currentVersion)")
            }
            return (dir, r)
        }
        let merged = try LoadResults.merged(shards)
        try AtomicFile.write(try JSONFile.encode(merged), to: out + "/load.json")
        for l in merged.loads { print(LoadSummary.text(l)) }
        print("merged \(shards.count) load shard(s) → \(out)/load.json")
        return .success
    }
}
