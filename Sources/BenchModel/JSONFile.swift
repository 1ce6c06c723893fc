import Foundation
import BenchCore

/// Reading and encoding netbench's JSON files, with errors that name the file, the key path and
/// what was expected. Bytes only: `SystemIO.AtomicFile` writes them.
public enum JSONFile {
    /// Decodes `T` from `path`; a missing file, bad JSON or a wrong field becomes a `BenchError.data`.
    public static func load<T: Decodable>(_ type: T.Type, from path: String) throws -> T {
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDir: ObjCBool = false
            let what =
                FileManager.default.fileExists(atPath: path, isDirectory: &isDir)
                ? (isDir.boolValue ? "is a directory" : "cannot be read") : "does not exist"
            throw BenchError.data("\(path): \(what)")
        }
        return try decode(type, from: data, file: path)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, file: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let e as DecodingError {
            throw BenchError.data("\(file): \(describe(e).escapingControlCharacters)")
        } catch {
            throw BenchError.data("\(file): \(error.localizedDescription.escapingControlCharacters)")
        }
    }

    /// Encodes with sorted keys (results diff cleanly) and pretty printing.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var data = try enc.encode(value)
        data.append(0x0A)
        return data
    }

    /// `resources[3].parent: expected a string, found a number` from a DecodingError.
    public static func describe(_ e: DecodingError) -> String {
        func path(_ p: [CodingKey]) -> String {
            var s = ""
            for k in p {
                if let i = k.intValue { s += "[\(i)]" } else { s += (s.isEmpty ? "" : ".") + k.stringValue }
            }
            return s.isEmpty ? "(top level)" : s
        }
        switch e {
        case .keyNotFound(let key, let ctx):
            let parent = path(ctx.codingPath)
            return (parent == "(top level)" ? "" : parent + ": ") + "missing required key '\(key.stringValue)'"
        case .typeMismatch(let type, let ctx):
            return "\(path(ctx.codingPath)): expected \(typeName(type)); \(ctx.debugDescription)"
        case .valueNotFound(let type, let ctx):
            return "\(path(ctx.codingPath)): expected \(typeName(type)), found null"
        case .dataCorrupted(let ctx):
            if ctx.codingPath.isEmpty {
                let under = (ctx.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
                return "not valid JSON: \(under ?? ctx.debugDescription)"
            }
            return "\(path(ctx.codingPath)): \(ctx.debugDescription)"
        @unknown default:
            return "\(e)"
        }
    }

    private static func typeName(_ t: Any.Type) -> String {
        switch t {
        case is String.Type: return "a string"
        case is Int.Type, is Int64.Type: return "an integer"
        case is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        default:
            let n = String(describing: t)
            if n.hasPrefix("Array") { return "an array" }
            if n.hasPrefix("Dictionary") { return "an object" }
            return n
        }
    }
}

/// A decoding helper for enums: names the allowed values when a string is not one of them.
public protocol NamedValues: RawRepresentable, CaseIterable, Decodable where RawValue == String {}

extension NamedValues {
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let s = try c.decode(String.self)
        guard let v = Self(rawValue: s) else {
            throw DecodingError.dataCorruptedError(
                in: c,
                debugDescription: "'\(s)' is not one of \(Self.allCases.map { $0.rawValue }.joined(separator: ", "))")
        }
        self = v
    }
}

extension Scenario.ResourceType: NamedValues {}
extension Scenario.QueryMatch: NamedValues {}

extension Scenario {
    /// Loads and validates a scenario file, and reads its recorded bodies (`bodies`).
    public static func load(from path: String) throws -> Scenario {
        let (value, directory) = try Scenario.loadValidated(from: path)
        var s = value.withBulkResource()
        try s.readRecordedBodies(file: path, directory: directory)
        return s
    }
}
