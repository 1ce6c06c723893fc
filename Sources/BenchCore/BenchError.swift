/// The failure classes of netbench, each mapped to the exit code of the command-line contract.
public enum ExitCode: Int32, Sendable {
    case success = 0
    case regression = 1  // a check or threshold failed
    case runFailed = 2  // transport or emulator error
    case usage = 64  // EX_USAGE
    case dataError = 65  // EX_DATAERR: scenario, profile, HAR, results file
    case noPermission = 77  // EX_NOPERM: missing privilege
}

/// An error carrying its exit class and a message meant for the user.
///
/// Messages name what is at fault: the file, the JSON key path and the value, or the
/// system call and its errno text.
public struct BenchError: Error, CustomStringConvertible, Sendable {
    public var exitCode: ExitCode
    public var message: String

    public init(_ exitCode: ExitCode, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    public static func usage(_ m: String) -> BenchError { BenchError(.usage, m) }
    public static func data(_ m: String) -> BenchError { BenchError(.dataError, m) }
    public static func run(_ m: String) -> BenchError { BenchError(.runFailed, m) }
    public static func privilege(_ m: String) -> BenchError { BenchError(.noPermission, m) }

    public var description: String { message }
}

extension String {
    /// The text with control characters written as escapes (`\n`, `\r`, `\t`, `\u{7}`), so that a
    /// value quoted from a bad file (a key, a host name) cannot break a one-line error message.
    public var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return self }
        var out = ""
        for s in unicodeScalars {
            switch s {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if s.properties.generalCategory == .control {
                    out += "\\u{\(String(s.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(s)
                }
            }
        }
        return out
    }
}
