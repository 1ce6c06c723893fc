import Foundation
import BenchCore

/// `corpus.json`, the index `netbench scenario generate --corpus` writes next to its pages (schema
/// v1): how the corpus was drawn and, per page, its file, its scenario name, where it sits in the
/// distribution (request and weight quantiles) and what it came out as.
public struct CorpusManifest: Codable, Hashable, Sendable {
    public static let currentSchemaVersion = 1
    public static let fileName = "corpus.json"
    /// How the pages are placed, for readers of the file (see `CorpusDesign`, `CorpusGenerator`).
    public static let methodText =
        "Latin hypercube over (request-count quantile, page-weight quantile): each axis cut into N equal strata, "
        + "one page per stratum of each axis, axes paired by a seeded permutation. Requests: the HTTP Archive 2024 "
        + "requests-per-page "
        + "distribution (piecewise log-linear through its p10/p25/p50/p75/p90) at the request quantile. Weight: a "
        + "log-normal fitted to "
        + "256 pages of that request count drawn by the generator's model, at the weight quantile. Hosts carry the "
        + "page's label."

    public struct Page: Codable, Hashable, Sendable {
        /// The scenario file, relative to the manifest.
        public var file: String
        public var name: String
        public var requestsQuantile: Double
        /// The weight's quantile among the model's pages of the same request count.
        public var bytesQuantile: Double
        public var requests: Int
        public var bytes: Int64
        public var origins: Int
        /// The generator seed of this page (with `--requests`, `--bytes` it draws the same page, hosts unlabelled).
        public var seed: UInt64
    }

    public var schemaVersion: Int
    public var count: Int
    public var seed: UInt64
    public var distribution: String
    public var method: String
    public var pages: [Page]

    public init(count: Int, seed: UInt64, distribution: String, pages: [Page]) {
        schemaVersion = Self.currentSchemaVersion
        self.count = count; self.seed = seed; self.distribution = distribution
        method = Self.methodText
        self.pages = pages
    }

    public func validate(file: String) throws {
        var problems = ValidationProblems(file: file, schemaVersion: schemaVersion, reads: Self.currentSchemaVersion)
        if pages.isEmpty { problems.add("pages", "must list at least one page") }
        var seen = Set<String>()
        for (i, p) in pages.enumerated() {
            if p.file.isEmpty || p.file.hasPrefix("/") || p.file.contains("..") {
                problems.add("pages[\(i)].file", "'\(p.file)' must be a file name inside the corpus directory")
            }
            if !seen.insert(p.file).inserted { problems.add("pages[\(i)].file", "'\(p.file)' is listed twice") }
        }
        try problems.throwIfAny()
    }

    /// The scenario files a suite's entry names when that entry is a directory: the pages its
    /// `corpus.json` lists, in order; without one, every `*.json` file in it, sorted by name. Paths
    /// are absolute. An empty directory or a listed page that is missing is a data error naming the
    /// suite, the key and the directory.
    public static func scenarioFiles(inDirectory dir: String, suite: String, key: String, value: String? = nil) throws
        -> [String]
    {
        let value = value ?? dir
        let base = URL(fileURLWithPath: dir, isDirectory: true).standardizedFileURL
        let manifestPath = base.appendingPathComponent(fileName).path
        let fm = FileManager.default
        if fm.fileExists(atPath: manifestPath) {
            let (manifest, _) = try CorpusManifest.loadValidated(from: manifestPath)
            return try manifest.pages.enumerated().map { i, page in
                let path = base.appendingPathComponent(page.file).path
                guard fm.fileExists(atPath: path) else {
                    throw BenchError.data(
                        "\(suite): \(key): '\(value)': \(manifestPath): pages[\(i)].file: '\(page.file)' does not exist"
                    )
                }
                return path
            }
        }
        let names = (try? fm.contentsOfDirectory(atPath: base.path)) ?? []
        let files = names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
        guard !files.isEmpty else {
            throw BenchError.data(
                "\(suite): \(key): '\(value)' is a directory without scenario files (*.json) or \(fileName)")
        }
        return files.map { base.appendingPathComponent($0).path }
    }
}

extension CorpusManifest: ValidatedFile {}
