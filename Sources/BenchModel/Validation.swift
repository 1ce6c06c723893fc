import Foundation
import BenchCore

/// The problems found in one file, each naming the key path and the value at fault; thrown together
/// as one data error (exit 65) so a user fixes them in one pass. Shared by scenarios, profiles and
/// suites, which all start with the same schema-version check.
struct ValidationProblems {
    let file: String
    private(set) var messages: [String] = []

    init(file: String, schemaVersion: Int, reads current: Int) {
        self.file = file
        if schemaVersion != current {
            add("schemaVersion", "is \(schemaVersion); this netbench reads version \(current)")
        }
    }

    mutating func add(_ keyPath: String, _ what: String) {
        messages.append("\(file): \(keyPath.escapingControlCharacters): \(what.escapingControlCharacters)")
    }

    func throwIfAny() throws {
        if !messages.isEmpty { throw BenchError.data(messages.joined(separator: "\n")) }
    }
}

/// A file netbench loads the same way whatever it holds: decode (errors name the key path), then
/// validate (every problem named), then resolve relative paths against the file's directory.
protocol ValidatedFile: Decodable {
    func validate(file: String) throws
}

extension ValidatedFile {
    /// The decoded and validated contents of `path`, and the directory its relative paths refer to.
    static func loadValidated(from path: String) throws -> (value: Self, directory: URL) {
        let value = try JSONFile.load(Self.self, from: path)
        try value.validate(file: path)
        return (value, URL(fileURLWithPath: path).deletingLastPathComponent())
    }
}
