import BenchCore

/// What a command says about itself beyond its options and arguments (those are declared as
/// properties with `@Option`, `@Flag` and `@Argument`). Help, man page and completion scripts are
/// generated from this and the declarations.
public struct CommandConfiguration {
    public var name: String
    /// One line, shown in the parent's command list.
    public var abstract: String
    /// Paragraphs shown after the usage line; lines starting with two spaces are kept as they are.
    public var discussion: String
    public var examples: [String]
    public var exitCodes: [ExitCodeDoc]
    public var subcommands: [any ParsableCommand.Type]
    /// The root command answers `--version` with this.
    public var version: String?

    public init(name: String, abstract: String, discussion: String = "", examples: [String] = [],
                exitCodes: [ExitCodeDoc] = [], subcommands: [any ParsableCommand.Type] = [], version: String? = nil) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.examples = examples
        self.exitCodes = exitCodes
        self.subcommands = subcommands
        self.version = version
    }
}

/// A command: declared options and arguments, `validate()` for checks across them, `run()`.
/// A command with subcommands only dispatches (its `run` is never called).
public protocol ParsableCommand {
    static var configuration: CommandConfiguration { get }
    init()
    /// Checks that need more than one option, or values beyond their parser; throws usage errors.
    func validate() throws
    func run() throws -> ExitCode
}

extension ParsableCommand {
    public func validate() throws {}
    public func run() throws -> ExitCode {
        let names = Self.configuration.subcommands.map { $0.configuration.name }
        throw BenchError.usage("missing subcommand: " + names.joined(separator: ", "))
    }
}

/// The options and positionals a command declares, in declaration order.
public struct CommandDeclarations {
    public var options: [OptionSpec]
    public var positionals: [PositionalSpec]

    init(options: [any OptionBinding], positionals: [any PositionalBinding]) {
        self.options = options.map(\.spec)
        self.positionals = positionals.map(\.spec)
    }

    public init(of type: any ParsableCommand.Type) {
        let b = Bindings(type.init())
        self.init(options: b.options, positionals: b.positionals)
    }
}

/// The property wrappers of one command instance, found by reflection.
struct Bindings {
    var options: [any OptionBinding] = []
    var positionals: [any PositionalBinding] = []

    init(_ command: any ParsableCommand) {
        for child in Mirror(reflecting: command).children {
            if let o = child.value as? any OptionBinding { options.append(o) }
            if let p = child.value as? any PositionalBinding { positionals.append(p) }
        }
    }
}
