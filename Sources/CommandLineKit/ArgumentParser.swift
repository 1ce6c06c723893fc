import BenchCore

/// Binds a leaf command's arguments: `--name value`, `--name=value`, `-n value`, `-n=value`,
/// boolean flags, positionals, and `--` (everything after it is positional). Every unknown
/// option, missing value and surplus argument is a usage error naming it.
public enum ArgumentParser {
    /// A fresh command (or option group) of `type` with `arguments` bound and validated.
    public static func parse<C: ParsableArguments>(_ type: C.Type, _ arguments: [String]) throws -> C {
        let command = C()
        try bind(command, arguments)
        try command.validate()
        return command
    }

    /// The same for a command known only by its type (the dispatcher's case).
    public static func parse(any type: any ParsableCommand.Type, _ arguments: [String]) throws -> any ParsableCommand {
        let command = type.init()
        try bind(command, arguments)
        try command.validate()
        return command
    }

    /// Binds every option and positional of `command` and of its groups, then validates the groups.
    static func bind(_ command: any ParsableArguments, _ arguments: [String]) throws {
        let b = Bindings(command)
        if let problem = b.problems.first { throw DeclarationError(description: problem) }
        let (given, positionals) = try scan(arguments, b.options)
        for o in b.options {
            let g = given[ObjectIdentifier(o)]
            try o.bind(g?.values ?? [], as: g?.name ?? o.spec.long)
        }
        try bindPositionals(b.positionals, positionals)
        for group in b.groups { try group.validate() }
    }

    /// Each option's texts in order with the name used last, and the positionals.
    static func scan(_ arguments: [String], _ options: [any OptionBinding]) throws
        -> (given: [ObjectIdentifier: (values: [String], name: String)], positionals: [String])
    {
        var given: [ObjectIdentifier: (values: [String], name: String)] = [:]
        var positionals: [String] = []
        var i = 0
        var onlyPositionals = false
        func isOptionName(_ s: String) -> Bool { options.contains { $0.spec.names.contains(s) } }
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if onlyPositionals || arg == "-" || !arg.hasPrefix("-") { positionals.append(arg); continue }
            if arg == "--" { onlyPositionals = true; continue }
            var name = arg
            var inline: String?
            if let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            guard let option = options.first(where: { $0.spec.names.contains(name) }) else {
                throw BenchError.usage("unknown option '\(name)'")
            }
            var value = ""
            if option.spec.isFlag {
                if inline != nil { throw BenchError.usage("\(name) takes no value") }
            } else if let inline {
                value = inline
            } else {
                guard i < arguments.count, !arguments[i].hasPrefix("--"), !isOptionName(arguments[i]) else {
                    throw BenchError.usage("\(name) needs a value (\(option.spec.valueName ?? "VALUE"))")
                }
                value = arguments[i]
                i += 1
            }
            let id = ObjectIdentifier(option)
            given[id] = ((given[id]?.values ?? []) + [value], name)
        }
        return (given, positionals)
    }

    /// Each declaration takes its minimum, then the surplus goes to the first that takes more.
    static func bindPositionals(_ bindings: [any PositionalBinding], _ values: [String]) throws {
        let required = bindings.reduce(0) { $0 + $1.spec.minimum }
        if values.count < required {
            var have = values.count
            for b in bindings {
                if have < b.spec.minimum { throw BenchError.usage("missing \(b.spec.name): \(b.spec.help)") }
                have -= b.spec.minimum
            }
        }
        var surplus = values.count - required
        var index = 0
        for b in bindings {
            let capacity = b.spec.maximum.map { $0 - b.spec.minimum } ?? Int.max
            let take = b.spec.minimum + min(surplus, capacity)
            surplus -= take - b.spec.minimum
            try b.bind(Array(values[index..<(index + take)]))
            index += take
        }
        if index < values.count { throw BenchError.usage("unexpected argument '\(values[index])'") }
    }
}

/// A command whose declarations contradict each other (an option name declared twice, say): a
/// bug in the program, not in its command line; `CommandDeclarations.problems` lists them all.
public struct DeclarationError: Error, CustomStringConvertible {
    public var description: String
}
