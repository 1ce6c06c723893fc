import Foundation
import BenchCore

/// Turns an option's text into a typed value. `expected` completes the usage error
/// "--runs 'zero': expected a whole number from 1 to 100000".
public struct ValueParser<T> {
    public var expected: String
    public var completion: ValueCompletion
    /// nil: the text is not valid (the caller reports `expected`); may also throw its own usage error.
    public var convert: (String) throws -> T?

    public init(expected: String, completion: ValueCompletion = .none, _ convert: @escaping (String) throws -> T?) {
        self.expected = expected
        self.completion = completion
        self.convert = convert
    }
}

extension ValueParser where T == String {
    public static var string: ValueParser<String> { .init(expected: "a value") { $0 } }
    public static var nonEmpty: ValueParser<String> { .init(expected: "a non-empty value") { $0.isEmpty ? nil : $0 } }
    public static func file(_ extensions: String...) -> ValueParser<String> {
        .init(expected: "a file", completion: .file(extensions: extensions)) { $0.isEmpty ? nil : $0 }
    }
    public static var directory: ValueParser<String> {
        .init(expected: "a directory", completion: .directory) { $0.isEmpty ? nil : $0 }
    }
}

extension ValueParser where T == Int {
    public static func int(_ range: ClosedRange<Int>) -> ValueParser<Int> {
        .init(expected: "a whole number from \(range.lowerBound) to \(range.upperBound)") {
            Int($0).flatMap { range.contains($0) ? $0 : nil }
        }
    }
}

extension ValueParser where T == UInt64 {
    public static var uint64: ValueParser<UInt64> { .init(expected: "a whole number ≥ 0") { UInt64($0) } }
}

extension ValueParser where T == Nanoseconds {
    /// Durations as `Units.parseDuration` reads them (`ms`, `s`), at least `minimum`.
    public static func duration(atLeast minimum: Nanoseconds = 1) -> ValueParser<Nanoseconds> {
        .init(
            expected: minimum > 1
                ? "a duration of at least \(Units.format(Double(minimum) / 1e9, 0))s" : "a duration (e.g. 30s, 100ms)"
        ) {
            Units.parseDuration($0).flatMap { $0 >= minimum ? $0 : nil }
        }
    }
}

extension ValueParser where T == Int64 {
    public static var size: ValueParser<Int64> {
        .init(expected: "a size (e.g. 2.3MB, 512KiB)") { Units.parseBytes($0) }
    }
}

extension ValueParser where T == Double {
    public static var bitrate: ValueParser<Double> {
        .init(expected: "a rate (e.g. 10Mbit)") { Units.parseBitrate($0).flatMap { $0 > 0 ? $0 : nil } }
    }
    /// `5%` or `5` → 0.05.
    public static var percent: ValueParser<Double> {
        .init(expected: "a percentage (e.g. 5%)") { text in
            var t = text.trimmingCharacters(in: .whitespaces)
            if t.hasSuffix("%") { t.removeLast() }
            guard let v = Double(t.trimmingCharacters(in: .whitespaces)), v.isFinite, v >= 0 else { return nil }
            return v / 100
        }
    }
}

extension ValueParser where T: RawRepresentable & CaseIterable, T.RawValue == String {
    /// One of an enum's raw values; help and completion list them.
    public static func choice(_ type: T.Type = T.self) -> ValueParser<T> {
        let names = T.allCases.map(\.rawValue)
        return .init(expected: "one of " + names.joined(separator: ", "), completion: .choices(names)) {
            T(rawValue: $0)
        }
    }
}

extension ValueParser {
    /// A comma-separated list of `element` values (at least one).
    public static func list<E>(of element: ValueParser<E>) -> ValueParser<[E]> where T == [E] {
        .init(
            expected: "a comma-separated list of "
                + element.expected.replacingOccurrences(of: "a ", with: "", options: .anchored),
            completion: element.completion
        ) { text in
            let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty
            }
            guard !parts.isEmpty else { return nil }
            var out: [E] = []
            for p in parts {
                guard let v = try element.convert(p) else { return nil }
                out.append(v)
            }
            return out
        }
    }
}
