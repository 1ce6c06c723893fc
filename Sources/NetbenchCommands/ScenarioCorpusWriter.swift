import BenchCore
import BenchModel
import SystemIO
import Foundation

/// `netbench scenario generate --corpus N -o DIR`: writes the pages of a `CorpusGenerator` and
/// its `corpus.json` into DIR (created if missing; existing page files are replaced).
enum ScenarioCorpusWriter {
    /// --corpus takes only --seed, --distribution and -o (a directory).
    static func validate(_ c: ScenarioGenerate) throws {
        var others: [String] = []
        if c.preset != nil { others.append("--preset") }
        if c.requests != nil { others.append("--requests") }
        if c.bytes != nil { others.append("--bytes") }
        if c.origins != nil { others.append("--origins") }
        if c.chain != nil { others.append("--script-chain") }
        if c.name != nil { others.append("--name") }
        if !others.isEmpty {
            throw BenchError.usage(
                "--corpus draws every page's size itself; it takes --seed, --distribution and -o, not "
                    + "\(others.joined(separator: ", "))"
            )
        }
        guard let out = c.output else {
            throw BenchError.usage("--corpus needs -o DIR (the directory the pages go to)")
        }
        if out.hasSuffix(".json") { throw BenchError.usage("--corpus writes a directory: -o \(out) looks like a file") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: out, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw BenchError.usage("-o \(out) is a file; --corpus writes into a directory")
        }
    }

    static func write(count: Int, seed: UInt64, distribution: PageDistribution?, to dir: String) throws -> ExitCode {
        let generator = try CorpusGenerator(count: count, seed: seed, distribution: distribution ?? .mobile2024)
        let (pages, manifest) = try generator.generate()
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            throw BenchError.usage("-o \(dir): cannot create the directory (\(error.localizedDescription))")
        }
        let base = URL(fileURLWithPath: dir, isDirectory: true)
        for page in pages {
            try page.scenario.validate(file: page.entry.file)
            try AtomicFile.write(
                try JSONFile.encode(page.scenario), to: base.appendingPathComponent(page.entry.file).path)
        }
        try AtomicFile.write(
            try JSONFile.encode(manifest), to: base.appendingPathComponent(CorpusManifest.fileName).path)
        print(summary(manifest, dir: dir))
        return .success
    }

    /// One line per page would drown a 10,000-page corpus: the count and the spread it covers.
    static func summary(_ m: CorpusManifest, dir: String) -> String {
        let requests = m.pages.map(\.requests).sorted()
        let bytes = m.pages.map(\.bytes).sorted()
        func at(_ q: Double, _ xs: [Int64]) -> Int64 { xs[min(xs.count - 1, Int(q * Double(xs.count)))] }
        let r = requests.map(Int64.init)
        return
            "wrote \(m.pages.count) pages and \(CorpusManifest.fileName) to \(dir) (seed \(m.seed), "
                + "\(m.distribution)): "
            + "requests \(requests.first!)–\(requests.last!) (median \(at(0.5, r))), "
            + "weight \(Units.formatBytes(bytes.first!))–\(Units.formatBytes(bytes.last!)) (median "
            + "\(Units.formatBytes(at(0.5, bytes))))"
    }
}
