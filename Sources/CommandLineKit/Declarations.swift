import BenchCore

/// What the parser binds values into. The property wrappers are classes so that a command, a
/// plain struct, receives its values without being mutated (the parser finds them with `Mirror`).
protocol OptionBinding: AnyObject {
    var spec: OptionSpec { get }
    /// Every occurrence's text in order (empty: not given), and the name the user typed last.
    func bind(_ values: [String], as name: String) throws
}

protocol PositionalBinding: AnyObject {
    var spec: PositionalSpec { get }
    func bind(_ values: [String]) throws
}

protocol GroupBinding: AnyObject {
    var arguments: any ParsableArguments { get }
}

/// `@OptionGroup var server: ServerOptionGroup`: every option the group declares, with its help,
/// becomes an option of the command, listed in the group's own section of help and man page.
/// Several commands include one group, so they share one declaration and one help text.
///
/// The group is a struct whose own wrappers are classes: parsing binds them in place, and the
/// value read here (a copy sharing those wrappers) sees what was parsed.
@propertyWrapper
public final class OptionGroup<Group: ParsableArguments>: GroupBinding {
    public let wrappedValue: Group

    public init() { wrappedValue = Group() }

    var arguments: any ParsableArguments { wrappedValue }
}

/// `@Option("--runs", "-n", value: "N", help: "…", parse: .int(1...100_000)) var runs: Int?`
///
/// - `var x: T?` with no default: nil when not given.
/// - `default:`: the value when not given (shown in help).
/// - `var x: T` with no default: a required option.
/// - `repeating:` with `var x: [T]`: every occurrence adds one value.
@propertyWrapper
public final class Option<Value>: OptionBinding {
    public let spec: OptionSpec
    private let convert: ([String], String) throws -> Value?
    private var value: Value?

    public var wrappedValue: Value {
        guard let value else { preconditionFailure("\(spec.long) read before the arguments were parsed") }
        return value
    }

    private init(spec: OptionSpec, initial: Value?, convert: @escaping ([String], String) throws -> Value?) {
        self.spec = spec
        self.value = initial
        self.convert = convert
    }

    /// An optional option: nil when not given.
    public convenience init<T>(
        _ long: String, _ short: String? = nil, value name: String, help: String,
        parse: ValueParser<T>
    ) where Value == T? {
        let spec = OptionSpec(
            long: long, short: short, valueName: name, help: help, defaultDescription: nil,
            isRequired: false, isRepeatable: false, completion: parse.completion)
        self.init(spec: spec, initial: .some(nil)) { values, used in
            guard let last = values.last else { return .some(nil) }
            return .some(try Option.single(last, used, parse))
        }
    }

    /// An option with a default (`defaultText` replaces the default's description in help).
    public convenience init(
        _ long: String, _ short: String? = nil, value name: String, default: Value,
        defaultText: String? = nil, help: String, parse: ValueParser<Value>
    ) {
        let spec = OptionSpec(
            long: long, short: short, valueName: name, help: help,
            defaultDescription: defaultText ?? "\(`default`)", isRequired: false, isRepeatable: false,
            completion: parse.completion)
        self.init(spec: spec, initial: `default`) { values, used in
            guard let last = values.last else { return `default` }
            return try Option.single(last, used, parse)
        }
    }

    /// A required option: a usage error names it when it is missing.
    public convenience init(
        _ long: String, _ short: String? = nil, value name: String, help: String,
        parse: ValueParser<Value>
    ) {
        let spec = OptionSpec(
            long: long, short: short, valueName: name, help: help, defaultDescription: nil,
            isRequired: true, isRepeatable: false, completion: parse.completion)
        self.init(spec: spec, initial: nil) { values, used in
            guard let last = values.last else { throw BenchError.usage("\(long) \(name) is required") }
            return try Option.single(last, used, parse)
        }
    }

    /// A repeatable option: `--header A --header B` gives `[A, B]`.
    public convenience init<T>(
        _ long: String, _ short: String? = nil, value name: String, help: String,
        repeating parse: ValueParser<T>
    ) where Value == [T] {
        let spec = OptionSpec(
            long: long, short: short, valueName: name, help: help, defaultDescription: nil,
            isRequired: false, isRepeatable: true, completion: parse.completion)
        self.init(spec: spec, initial: []) { values, used in try values.map { try Option.single($0, used, parse) } }
    }

    func bind(_ values: [String], as name: String) throws { value = try convert(values, name) }

    static func single<T>(_ text: String, _ name: String, _ parse: ValueParser<T>) throws -> T {
        guard let v = try parse.convert(text) else {
            throw BenchError.usage("\(name) '\(text)': expected \(parse.expected)")
        }
        return v
    }
}

/// `@Flag("--repeat-view", help: "…") var repeatView: Bool`
@propertyWrapper
public final class Flag: OptionBinding {
    public let spec: OptionSpec
    public private(set) var wrappedValue = false

    public init(_ long: String, _ short: String? = nil, help: String) {
        spec = OptionSpec(
            long: long, short: short, valueName: nil, help: help, defaultDescription: nil,
            isRequired: false, isRepeatable: false, completion: .none)
    }

    func bind(_ values: [String], as name: String) throws { wrappedValue = !values.isEmpty }
}

/// Positional arguments, bound in declaration order.
///
/// - `var x: String`: exactly one; `var x: String?`: zero or one;
/// - `var x: [String]` with `count:`: a run of them (e.g. `1...` or `2...2`).
@propertyWrapper
public final class Argument<Value>: PositionalBinding {
    public let spec: PositionalSpec
    private let convert: ([String]) -> Value
    private var value: Value?

    public var wrappedValue: Value {
        guard let value else { preconditionFailure("\(spec.name) read before the arguments were parsed") }
        return value
    }

    private init(spec: PositionalSpec, convert: @escaping ([String]) -> Value) {
        self.spec = spec
        self.convert = convert
    }

    public convenience init(_ name: String, help: String, completion: ValueCompletion = .none) where Value == String {
        self.init(spec: PositionalSpec(name: name, help: help, minimum: 1, maximum: 1, completion: completion)) {
            $0[0]
        }
    }

    public convenience init(_ name: String, help: String, completion: ValueCompletion = .none) where Value == String? {
        self.init(spec: PositionalSpec(name: name, help: help, minimum: 0, maximum: 1, completion: completion)) {
            $0.first
        }
    }

    public convenience init(
        _ name: String, count: PartialRangeFrom<Int> = 0..., help: String,
        completion: ValueCompletion = .none
    ) where Value == [String] {
        self.init(
            spec: PositionalSpec(
                name: name, help: help, minimum: count.lowerBound, maximum: nil, completion: completion)
        ) { $0 }
    }

    func bind(_ values: [String]) throws { value = convert(values) }
}
