import Foundation

/// JUnit XML for `netbench check --junit`: one `<testsuite>` per kind of check (regression,
/// threshold), one `<testcase>` per check, `<failure>` / `<skipped>` with the message. The schema
/// CI systems (GitLab, Jenkins, GitHub test reporters) read.
public enum JUnitReport {
    public static func render(_ outcomes: [CheckOutcome], name: String = "netbench check") -> String {
        func count(_ xs: [CheckOutcome], _ s: CheckOutcome.Status) -> Int { xs.filter { $0.status == s }.count }
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out +=
            "<testsuites name=\"\(escape(name))\" tests=\"\(outcomes.count)\" failures=\"\(count(outcomes, .failed))\""
        out += " skipped=\"\(count(outcomes, .skipped))\" errors=\"0\">\n"
        var kinds: [CheckOutcome.Kind] = []
        for o in outcomes where !kinds.contains(o.kind) { kinds.append(o.kind) }
        for kind in kinds {
            let cases = outcomes.filter { $0.kind == kind }
            out +=
                "  <testsuite name=\"\(escape(kind.rawValue))\" tests=\"\(cases.count)\" "
                    + "failures=\"\(count(cases, .failed))\""
            out += " skipped=\"\(count(cases, .skipped))\" errors=\"0\">\n"
            for c in cases {
                out += "    <testcase classname=\"netbench.\(escape(kind.rawValue))\" name=\"\(escape(c.name))\""
                switch c.status {
                case .passed:
                    out += ">\n      <system-out>\(escape(c.message))</system-out>\n    </testcase>\n"
                case .failed:
                    out +=
                        ">\n      <failure message=\"\(escape(c.message))\" "
                            + "type=\"\(escape(kind.rawValue))\">\(escape(c.message))</failure>\n    </testcase>\n"
                case .skipped:
                    out += ">\n      <skipped message=\"\(escape(c.message))\"/>\n    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    /// XML text and attribute escaping; characters XML 1.0 forbids (most C0 controls) are dropped.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            case "\t", "\r": out += " "
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
