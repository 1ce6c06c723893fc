import Foundation

/// A roff man page (section 1) generated from the same declarations as `--help`: one subsection
/// per command with its usage, discussion, arguments, options, examples and exit codes.
public enum ManPage {
    public static func render(_ root: any ParsableCommand.Type, date: String, extraSections: [(String, String)] = [])
        -> String
    {
        let c = root.configuration
        let name = c.name
        var s = ".TH \(name.uppercased()) 1 \"\(date)\" \"\(name) \(c.version ?? "")\" \"User Commands\"\n"
        s += ".SH NAME\n\(escape(name)) \\- \(escape(c.abstract))\n"
        s += ".SH SYNOPSIS\n.B \(name)\n.I command\n[\\fIoptions\\fR]\n"
        if !c.discussion.isEmpty { s += ".SH DESCRIPTION\n" + paragraphs(c.discussion) }
        s += ".SH COMMANDS\n"
        for (path, command) in CommandLineTool.allCommands(root).dropFirst()
        where command.configuration.subcommands.isEmpty {
            s += section(command, path: path)
        }
        for (title, text) in extraSections { s += ".SH \(escape(title.uppercased()))\n" + paragraphs(text) }
        return s
    }

    static func section(_ type: any ParsableCommand.Type, path: [String]) -> String {
        let c = type.configuration
        let d = CommandDeclarations(of: type)
        var s = ".SS \"\(escape(path.joined(separator: " ")))\"\n"
        s += ".PP\n\(escape(c.abstract))\n"
        let usage = HelpFormatter.wrap(
            words: HelpFormatter.usageParts(type, path: path), indent: path.joined(separator: " ").count + 1, first: "")
        s += ".PP\n.nf\n\(escape(usage))\n.fi\n"
        if !c.discussion.isEmpty { s += paragraphs(c.discussion) }
        for p in d.positionals { s += ".TP\n\\fI\(escape(p.synopsis))\\fR\n\(escape(p.help))\n" }
        for section in d.sections {
            if let title = section.title { s += ".PP\n\(escape(title.prefix(1).uppercased() + title.dropFirst())):\n" }
            for o in section.options { s += option(o) }
        }
        if !c.examples.isEmpty {
            s += ".PP\nExamples:\n.nf\n" + c.examples.map { "  " + escape($0) + "\n" }.joined() + ".fi\n"
        }
        if !c.exitCodes.isEmpty {
            s += ".PP\nExit status:\n"
            for e in c.exitCodes { s += ".TP\n.B \(e.code)\n\(escape(e.meaning))\n" }
        }
        return s
    }

    /// `.TP` with the names in bold, the value name in italics, and the help with its default.
    static func option(_ o: OptionSpec) -> String {
        var term = (o.short.map { "\\fB\(escape($0))\\fR, " } ?? "") + "\\fB\(escape(o.long))\\fR"
        if let v = o.valueName { term += " \\fI\(escape(v))\\fR" }
        return ".TP\n\(term)\n\(escape(o.help + (o.defaultDescription.map { " (default: \($0))" } ?? "")))\n"
    }

    /// Prose becomes `.PP` paragraphs; indented lines stay preformatted (`.nf`/`.fi`).
    static func paragraphs(_ text: String) -> String {
        var s = ""
        var inBlock = false
        var startParagraph = true
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.trimmingCharacters(in: .whitespaces).isEmpty {
                if inBlock { s += ".fi\n"; inBlock = false }
                startParagraph = true
            } else if line.hasPrefix("  ") {
                if !inBlock { s += ".PP\n.nf\n"; inBlock = true }
                s += escape(line) + "\n"
            } else {
                if inBlock { s += ".fi\n"; inBlock = false; startParagraph = true }
                if startParagraph { s += ".PP\n"; startParagraph = false }
                s += escape(line) + "\n"
            }
        }
        if inBlock { s += ".fi\n" }
        return s
    }

    /// Backslashes and dashes escaped, other than ASCII as `\[uXXXX]` (groff reads bytes, not
    /// UTF-8, without preconv); a leading `.` or `'` would be read as a request.
    static func escape(_ text: String) -> String {
        var t = ""
        for u in text.unicodeScalars {
            switch u {
            case "\\": t += "\\e"
            case "-": t += "\\-"
            case _ where u.value < 128: t.unicodeScalars.append(u)
            default: t += "\\[u" + String(format: "%04X", u.value) + "]"
            }
        }
        if t.hasPrefix(".") || t.hasPrefix("'") { t = "\\&" + t }
        return t
    }
}
