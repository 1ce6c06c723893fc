import BenchModel
import Runner

/// A run observer that prints nothing and keeps nothing, for tests that run a plan for its results
/// (the testbed's, the browsers' and the workloads' tests).
public final class QuietObserver: RunObserver {
    public init() {}
    public func blockStarting(profile: Profile, runs: Int) {}
    public func runStarting(position: Int, total: Int, label: String) {}
    public func runFinished(position: Int, total: Int, record: RunRecord) {}
    public func notice(_ text: String) {}
}

extension BenchmarkRunner {
    /// Runs the plan with nothing printed and no file written; all the results.
    public func executeQuietly() throws -> ResultsFile {
        try execute(observer: QuietObserver()) { _ in }
    }
}
