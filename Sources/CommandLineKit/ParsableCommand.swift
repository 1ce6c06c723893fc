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

    public init(
        name: String, abstract: String, discussion: String = "", examples: [String] = [],
        exitCodes: [ExitCodeDoc] = [], subcommands: [any ParsableCommand.Type] = [], version: String? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.examples = examples
        self.exitCodes = exitCodes
        self.subcommands = subcommands
        self.version = version
    }
}

/// Declared options and arguments that parsing fills in: a command, or a group of options that
/// commands include whole with `@OptionGroup` (swift-argument-parser's `ParsableArguments`).
public protocol ParsableArguments {
    init()
    /// Checks that need more than one option, or values beyond their parser; throws usage errors.
    /// A group's runs after every option is bound, before its command's.
    func validate() throws
    /// The heading of a group's own section in help and the man page ("server options"); nil: its
    /// options are listed with the command's. A command's is not used.
    static var title: String? { get }
}

extension ParsableArguments {
    public func validate() throws {}
    public static var title: String? { nil }
}

/// A command: declared options and arguments, `validate()` for checks across them, `run()`.
/// A command with subcommands only dispatches (its `run` is never called).
public protocol ParsableCommand: ParsableArguments {
    static var configuration: CommandConfiguration { get }
    func run() throws -> ExitCode
}

extension ParsableCommand {
    public func run() throws -> ExitCode {
        let names = Self.configuration.subcommands.map { $0.configuration.name }
        throw BenchError.usage("missing subcommand: " + names.joined(separator: ", "))
    }
}

/// Options listed under one heading: the command's own (title nil), or one group's.
public struct OptionSection {
    public var title: String?
    public var options: [OptionSpec]
}

/// The options and positionals a command declares, in declaration order (its groups' included).
public struct CommandDeclarations {
    public var options: [OptionSpec]
    public var positionals: [PositionalSpec]
    /// The command's own options first (with those of untitled groups), then each titled group's.
    public var sections: [OptionSection]
    /// One line per option name declared more than once (by the command or its groups), or
    /// reserved (`--help`, `-h`); empty when the declarations are sound.
    public var problems: [String]

    init(_ b: Bindings) {
        options = b.options.map(\.spec)
        positionals = b.positionals.map(\.spec)
        var sections = [OptionSection(title: nil, options: [])]
        for (o, title) in zip(options, b.sections) {
            if let i = sections.firstIndex(where: { $0.title == title }) {
                sections[i].options.append(o)
            } else {
                sections.append(OptionSection(title: title, options: [o]))
            }
        }
        self.sections = sections
        problems = b.problems
    }

    public init(of type: any ParsableArguments.Type) {
        self.init(Bindings(type.init()))
    }
}

/// The property wrappers of one command instance and of its groups, found by reflection.
struct Bindings {
    var options: [any OptionBinding] = []
    var positionals: [any PositionalBinding] = []
    /// Per option, in the same order: the title of the section it is listed in.
    var sections: [String?] = []
    /// Per option, in the same order: the type that declares it (for problems).
    var owners: [String] = []
    /// Every group, inner groups before the group holding them, in declaration order.
    var groups: [any ParsableArguments] = []

    init(_ arguments: any ParsableArguments) {
        collect(arguments, section: nil)
    }

    private mutating func collect(_ arguments: any ParsableArguments, section: String?) {
        for child in Mirror(reflecting: arguments).children {
            if let o = child.value as? any OptionBinding {
                options.append(o)
                sections.append(section)
                owners.append(String(describing: type(of: arguments)))
            }
            if let p = child.value as? any PositionalBinding { positionals.append(p) }
            if let g = child.value as? any GroupBinding {
                collect(g.arguments, section: type(of: g.arguments).title ?? section)
                groups.append(g.arguments)
            }
        }
    }

    /// `--keylog is declared by RunCommand and by DiagnosticOptions`: a parser would bind only
    /// the first, so the second declaration would silently never receive a value.
    var problems: [String] {
        var declaredBy: [String: [String]] = [:]
        var order: [String] = []
        for (o, owner) in zip(options, owners) {
            for name in o.spec.names {
                if declaredBy[name] == nil { order.append(name) }
                declaredBy[name, default: []].append(owner)
            }
        }
        var out = order.compactMap { name -> String? in
            let owners = declaredBy[name]!
            guard owners.count > 1 else { return nil }
            return "\(name) is declared \(owners.count) times: by " + owners.joined(separator: " and by ")
        }
        for reserved in ["--help", "-h"] {
            guard let owners = declaredBy[reserved] else { continue }
            out.append("\(reserved) is reserved for help, but declared by \(owners.joined(separator: " and "))")
        }
        return out
    }
}
