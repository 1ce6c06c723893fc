import BenchCore

/// Hand-written argument parsing (no packages): `--name value`, `--name=value`, `-o value`,
/// boolean flags and positionals. Every unknown option is a usage error naming it.
struct Arguments {
    private var items: [String]
    let command: String

    init(_ items: [String], command: String) {
        self.items = items
        self.command = command
    }

    var wantsHelp: Bool { items.contains("--help") || items.contains("-h") }

    /// Removes and returns the value of `--name VALUE` / `--name=VALUE` (or any alias).
    mutating func option(_ names: String...) throws -> String? {
        var i = 0
        var found: String?
        while i < items.count {
            let item = items[i]
            if let n = names.first(where: { item == $0 }) {
                guard i + 1 < items.count, !items[i + 1].hasPrefix("--") else {
                    throw BenchError.usage("\(n) needs a value")
                }
                found = items[i + 1]
                items.removeSubrange(i...(i + 1))
                continue
            }
            if let n = names.first(where: { item.hasPrefix($0 + "=") }) {
                found = String(item.dropFirst(n.count + 1))
                items.remove(at: i)
                continue
            }
            i += 1
        }
        return found
    }

    /// Removes `--name` and says whether it was there.
    mutating func flag(_ names: String...) -> Bool {
        let before = items.count
        items.removeAll { names.contains($0) }
        return items.count != before
    }

    mutating func intOption(_ names: String..., range: ClosedRange<Int>) throws -> Int? {
        guard let v = try option(names.first!, names.dropFirst().first ?? names.first!) else { return nil }
        guard let n = Int(v), range.contains(n) else {
            throw BenchError.usage("\(names.first!) '\(v)' must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    /// What is left once options are taken: positionals. Anything still starting with `-` is unknown.
    func positionals() throws -> [String] {
        if let unknown = items.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
            throw BenchError.usage("unknown option '\(unknown)'")
        }
        return items
    }
}

/// A subcommand: parses, validates, runs; returns the exit code.
protocol Command {
    static var name: String { get }
    static var summary: String { get }
    static var help: String { get }
    static func run(_ args: inout Arguments) throws -> ExitCode
}
