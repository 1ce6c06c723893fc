import Foundation

/// Help text generated from a command's configuration and declarations: usage line, discussion,
/// arguments, options (with short aliases and defaults), subcommands, examples, exit codes.
public enum HelpFormatter {
    static let width = 100
    static let column = 26

    public static func help(for type: any ParsableCommand.Type, path: [String]) -> String {
        let c = type.configuration
        let d = CommandDeclarations(of: type)
        let name = path.joined(separator: " ")
        var s = ""
        if path.count == 1, !c.subcommands.isEmpty {
            s += "\(name)\(c.version.map { " " + $0 } ?? ""): \(c.abstract)\n\n"
            s += "usage: \(name) <command> [options]\n\n"
        } else {
            s +=
                wrap(words: usageParts(type, path: path), indent: "usage: ".count + name.count + 1, first: "usage: ")
                + "\n\n"
            if !c.discussion.isEmpty || path.count > 1 { s += c.abstract + "\n\n" }
        }
        if !c.discussion.isEmpty { s += discussion(c.discussion) + "\n" }
        if !c.subcommands.isEmpty {
            s += path.count == 1 ? "commands:\n" : "subcommands:\n"
            s += rows(c.subcommands.map { ($0.configuration.name, $0.configuration.abstract) })
            s +=
                "\n'\(name) <\(path.count == 1 ? "command" : "subcommand")> --help' describes "
                    + "\(path.count == 1 ? "a command" : "one")\n"
            return s
        }
        if !d.positionals.isEmpty {
            s += "arguments:\n" + rows(d.positionals.map { ($0.synopsis, $0.help) }) + "\n"
        }
        s += optionSections(d)
        if !c.examples.isEmpty { s += "\nexamples:\n" + c.examples.map { "  " + $0 + "\n" }.joined() }
        if !c.exitCodes.isEmpty {
            s += "\nexit codes:\n" + rows(c.exitCodes.map { ("\($0.code)", $0.meaning) }, column: 8)
        }
        return s
    }

    /// "options:" (the command's own and `--help`), then one section per titled option group.
    static func optionSections(_ d: CommandDeclarations) -> String {
        func row(_ o: OptionSpec) -> (String, String) {
            let byDefault = o.defaultDescription.map { " (default: \($0))" } ?? ""
            return (o.synopsis, o.help + byDefault + (o.isRepeatable ? " (repeatable)" : ""))
        }
        var s = ""
        for section in d.sections {
            if let title = section.title {
                s += "\n\(title):\n" + rows(section.options.map(row))
            } else {
                s += "options:\n" + rows(section.options.map(row) + [("-h, --help", "show this help")])
            }
        }
        return s
    }

    /// `netbench run [-t LIST] … [FILE...]`: required options bare, the others in brackets.
    public static func usage(_ type: any ParsableCommand.Type, path: [String]) -> String {
        usageParts(type, path: path).joined(separator: " ")
    }

    /// The usage line's parts; wrapping never splits one (`[--seed N]` stays whole).
    static func usageParts(_ type: any ParsableCommand.Type, path: [String]) -> [String] {
        let d = CommandDeclarations(of: type)
        var parts = [path.joined(separator: " ")]
        if !type.configuration.subcommands.isEmpty {
            parts.append(type.configuration.subcommands.map { $0.configuration.name }.joined(separator: "|"))
            parts.append("[options]")
            return parts
        }
        parts += d.positionals.filter { $0.minimum > 0 }.map(\.synopsis)
        for o in d.options {
            let text = o.long + (o.valueName.map { " " + $0 } ?? "")
            parts.append(o.isRequired ? text : "[\(text)]")
        }
        parts += d.positionals.filter { $0.minimum == 0 }.map(\.synopsis)
        return parts
    }

    /// Two columns: the term, then its text wrapped under the text column.
    static func rows(_ items: [(String, String)], column: Int = column) -> String {
        var s = ""
        for (term, text) in items {
            let lead = "  " + term
            if lead.count + 2 <= column {
                s +=
                    wrap(text, indent: column, first: lead.padding(toLength: column, withPad: " ", startingAt: 0))
                    + "\n"
            } else {
                s += lead + "\n" + wrap(text, indent: column, first: String(repeating: " ", count: column)) + "\n"
            }
        }
        return s
    }

    /// Paragraphs are wrapped; lines that start with two spaces (tables, JSON) are kept verbatim.
    static func discussion(_ text: String) -> String {
        var out = ""
        var paragraph: [String] = []
        func flush() {
            if !paragraph.isEmpty { out += wrap(paragraph.joined(separator: " "), indent: 0, first: "") + "\n" }
            paragraph = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.trimmingCharacters(in: .whitespaces).isEmpty {
                flush(); out += "\n"
            } else if line.hasPrefix("  ") {
                flush(); out += hanging(line) + "\n"
            } else {
                paragraph.append(line)
            }
        }
        flush()
        return out.hasSuffix("\n\n") ? String(out.dropLast()) : out
    }

    /// A table row (`  term   text`) too long for a line wraps its text under the text column.
    static func hanging(_ line: String) -> String {
        guard line.count > width, let gap = line.dropFirst(2).range(of: "  ") else { return line }
        let textStart = line[gap.upperBound...].firstIndex { $0 != " " } ?? line.endIndex
        let indent = line.distance(from: line.startIndex, to: textStart)
        guard indent < width / 2 else { return line }
        return wrap(String(line[textStart...]), indent: indent, first: String(line[..<textStart]))
    }

    /// Word wrap at `width`; continuation lines are indented by `indent` spaces.
    static func wrap(_ text: String, indent: Int, first: String) -> String {
        wrap(words: text.split(separator: " ").map(String.init), indent: indent, first: first)
    }

    static func wrap(words: [String], indent: Int, first: String) -> String {
        var lines: [String] = []
        var line = first
        var empty = true
        for word in words {
            if !empty, line.count + 1 + word.count > width {
                lines.append(line)
                line = String(repeating: " ", count: indent)
                empty = true
            }
            line += (empty ? "" : " ") + word
            empty = false
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }
}
