import BenchCore

/// How a shell may complete an argument's value; used by the generated completion scripts.
public enum ValueCompletion: Sendable, Equatable {
    case none
    case file(extensions: [String])
    case directory
    case choices([String])
}

/// One declared option: everything help, man page, completion and the parser need to know.
public struct OptionSpec: Sendable {
    /// `--transport`
    public var long: String
    /// `-t`, or nil
    public var short: String?
    /// `LIST`; nil for a boolean flag.
    public var valueName: String?
    public var help: String
    /// Shown as "(default: …)" in help; nil when there is none or the help text already says it.
    public var defaultDescription: String?
    public var isRequired: Bool
    /// Each occurrence adds a value instead of replacing the previous one.
    public var isRepeatable: Bool
    public var completion: ValueCompletion

    public var isFlag: Bool { valueName == nil }
    public var names: [String] { [long] + (short.map { [$0] } ?? []) }

    /// `-t, --transport LIST`
    public var synopsis: String {
        (short.map { $0 + ", " } ?? "") + long + (valueName.map { " " + $0 } ?? "")
    }
}

/// One declared positional argument (or a run of them).
public struct PositionalSpec: Sendable {
    /// `FILE`, `DIR_A`
    public var name: String
    public var help: String
    public var minimum: Int
    /// nil: any number.
    public var maximum: Int?
    public var completion: ValueCompletion

    /// `DIR`, `[DIR]`, `FILE...`, `[FILE...]`
    public var synopsis: String {
        let many = maximum == nil || maximum! > 1
        let core = name + (many ? "..." : "")
        return minimum == 0 ? "[\(core)]" : core
    }
}

/// An exit status a command documents in its help.
public struct ExitCodeDoc: Sendable {
    public var code: Int32
    public var meaning: String
    public init(_ code: ExitCode, _ meaning: String) { self.code = code.rawValue; self.meaning = meaning }
    public init(_ code: Int32, _ meaning: String) { self.code = code; self.meaning = meaning }
}
