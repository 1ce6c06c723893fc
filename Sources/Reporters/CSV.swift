import Foundation

/// CSV writing by hand, RFC 4180 quoting: a field containing a comma, a double quote, CR or LF is
/// enclosed in double quotes with inner quotes doubled; other fields are written as they are.
/// Records end with LF (not RFC 4180's CRLF) so `cut`, `awk` and `git diff` read the files cleanly;
/// every CSV reader accepts both.
enum CSV {
    static func field(_ text: String) -> String {
        let needsQuotes = text.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard needsQuotes else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func record(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\n"
    }
}
