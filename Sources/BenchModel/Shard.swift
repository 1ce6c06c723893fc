import BenchCore

/// One shard of a plan: `index` of `count`, 1-based (`--shard 2/4`).
public struct ShardSpec: Codable, Hashable, Sendable, CustomStringConvertible {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) { self.index = index; self.count = count }
    public var description: String { "\(index)/\(count)" }

    /// `I/N` with 1 ≤ I ≤ N; nil otherwise.
    public static func parse(_ text: String) -> ShardSpec? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, i >= 1, i <= n else { return nil }
        return ShardSpec(index: i, count: n)
    }

    /// The shard the job engine's environment names, with the variables it came from; nil when none
    /// is set. Kubernetes Indexed Jobs: `JOB_COMPLETION_INDEX` (0-based) with `NETBENCH_SHARD_COUNT`;
    /// GitLab `parallel`: `CI_NODE_INDEX`/`CI_NODE_TOTAL` (1-based); Slurm arrays:
    /// `SLURM_ARRAY_TASK_ID` with `SLURM_ARRAY_TASK_MIN` and `SLURM_ARRAY_TASK_COUNT`.
    /// A variable that is set but unusable is a usage error naming it and its value.
    public static func fromEnvironment(_ env: [String: String]) throws -> (shard: ShardSpec, source: String)? {
        func int(_ name: String) throws -> Int {
            guard let text = env[name] else {
                throw BenchError.usage("\(name) is not set (needed with the other shard variables)")
            }
            guard let v = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw BenchError.usage("\(name)=\(text): not an integer")
            }
            return v
        }
        func checked(_ i: Int, _ n: Int, _ source: String) throws -> (ShardSpec, String) {
            guard n >= 1, i >= 1, i <= n else {
                throw BenchError.usage("\(source): shard \(i) of \(n) is out of range (1-based index 1…count)")
            }
            return (ShardSpec(index: i, count: n), source)
        }
        if env["JOB_COMPLETION_INDEX"] != nil {
            let i = try int("JOB_COMPLETION_INDEX"), n = try int("NETBENCH_SHARD_COUNT")
            return try checked(i + 1, n, "JOB_COMPLETION_INDEX=\(i) NETBENCH_SHARD_COUNT=\(n)")
        }
        if env["CI_NODE_INDEX"] != nil {
            let i = try int("CI_NODE_INDEX"), n = try int("CI_NODE_TOTAL")
            return try checked(i, n, "CI_NODE_INDEX=\(i) CI_NODE_TOTAL=\(n)")
        }
        if env["SLURM_ARRAY_TASK_ID"] != nil {
            let id = try int("SLURM_ARRAY_TASK_ID"), min = try int("SLURM_ARRAY_TASK_MIN"),
                n = try int("SLURM_ARRAY_TASK_COUNT")
            return try checked(
                id - min + 1, n, "SLURM_ARRAY_TASK_ID=\(id) SLURM_ARRAY_TASK_MIN=\(min) SLURM_ARRAY_TASK_COUNT=\(n)")
        }
        return nil
    }

    /// Which (block, run index) units are this shard's. Blocks are the plan's scenario × profile
    /// pairs in execution order. With no more shards than blocks, each shard gets a contiguous range
    /// of whole blocks (every transport and run of a block stays on one machine); with more, blocks
    /// are split by run index, so all transports of one run index still share a shard.
    public func owns(block: Int, run: Int, blocks: Int, runs: Int) -> Bool {
        let i = index - 1
        if count <= blocks {
            return block * count / blocks == i
        }
        let units = blocks * runs
        let unit = block * runs + run
        return unit * count / units == i
    }

    /// Whether any run of `block` is this shard's.
    public func ownsAny(block: Int, blocks: Int, runs: Int) -> Bool {
        (0..<max(runs, 1)).contains { owns(block: block, run: $0, blocks: blocks, runs: max(runs, 1)) }
    }
}

/// Where and when one shard of a merged (or sharded) result ran.
public struct ShardRecord: Codable, Hashable, Sendable {
    public var shard: ShardSpec?
    public var host: HostInfo
    public var startedAt: String
    public var directory: String?
    public init(shard: ShardSpec?, host: HostInfo, startedAt: String, directory: String? = nil) {
        self.shard = shard; self.host = host; self.startedAt = startedAt; self.directory = directory
    }
}
