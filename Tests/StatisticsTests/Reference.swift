import Foundation

/// `Fixtures/reference.json`, written by `scripts/stats-reference.py`.
struct Reference: Decodable {
    struct Interval: Decodable {
        var low: Double
        var high: Double
        var lowTolerance: Double
        var highTolerance: Double
    }
    struct Sample: Decodable {
        var name: String
        var values: [Double]
        var percentiles: [[Double]]
        var mean: Double
        var sd: Double?
        var mad: Double
        var outliers: [Bool]
        var medianCI: Interval
    }
    struct Pair: Decodable {
        var a: String
        var b: String
        var u: Double
        var p: Double
        var relativeChange: Double
        var relativeCI: Interval
    }
    var samples: [Sample]
    var pairs: [Pair]

    static func load() throws -> Reference {
        let url = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/reference.json")
        return try JSONDecoder().decode(Reference.self, from: Data(contentsOf: url))
    }

    func sample(_ name: String) -> Sample { samples.first { $0.name == name }! }
}
