import BenchCore
import BenchModel

/// The matrix a suite expands to, in execution order.
///
/// Profiles are the outer loop (an emulated network is set up once per profile); inside a profile the
/// runs are interleaved — run 1 of every scenario × transport, then run 2, … — so slow drift of the
/// machine hits every transport alike. Warm-up runs come first and are marked.
public struct RunPlan: Sendable {
    public struct Item: Sendable, Hashable {
        public var scenarioIndex: Int
        public var profileIndex: Int
        public var transport: TransportKind
        /// Index among the counted runs of this cell; warm-ups have negative indices (-1, -2, …).
        public var index: Int
        public var warmup: Bool { index < 0 }
    }

    public var items: [Item]

    public init(scenarios: Int, profiles: Int, transports: [TransportKind], runs: Int, warmupRuns: Int) {
        var out: [Item] = []
        for p in 0..<profiles {
            for round in 0..<(warmupRuns + runs) {
                let index = round < warmupRuns ? -(warmupRuns - round) : round - warmupRuns
                for s in 0..<scenarios {
                    for t in transports {
                        out.append(Item(scenarioIndex: s, profileIndex: p, transport: t, index: index))
                    }
                }
            }
        }
        items = out
    }

    public var count: Int { items.count }
}
