import Foundation

/// A suite's `runs`: a count, or `"auto"` (each cell runs until its median PLT is precise enough;
/// see `netbench run --runs auto`). The count stays an `Int` for every reader; `suite.$runs.isAuto`
/// says whether the file asked for auto, and the count is then the default maximum.
@propertyWrapper
public struct SuiteRunCount: Codable, Hashable, Sendable {
    /// The maximum number of runs per cell when `runs` is "auto" and no `--max-runs` is given.
    public static let autoDefaultMaximum = 30

    public var wrappedValue: Int
    public var isAuto: Bool

    public init(wrappedValue: Int) { self.wrappedValue = wrappedValue; isAuto = false }
    public var projectedValue: SuiteRunCount { self }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let n = try? c.decode(Int.self) {
            wrappedValue = n
            isAuto = false
        } else if let s = try? c.decode(String.self), s == "auto" {
            wrappedValue = SuiteRunCount.autoDefaultMaximum
            isAuto = true
        } else {
            throw DecodingError.dataCorruptedError(
                in: c, debugDescription: "expected a whole number of runs or \"auto\"")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        if isAuto { try c.encode("auto") } else { try c.encode(wrappedValue) }
    }
}
