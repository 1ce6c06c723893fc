import Foundation
import BenchCore

/// Files written whole or not at all: a temporary file in the same directory, fsync, rename. The
/// model and the reporters produce bytes; this is where they reach the disk.
public enum AtomicFile {
    /// Writes `data` to `path` atomically, creating the directory if needed.
    public static func write(_ data: Data, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
            throw BenchError.run("\(dir): cannot create the directory: \(error.localizedDescription)")
        }
        do {
            try AppendOnlyFile.replace(path) { write in try write([UInt8](data)) }
        } catch let e as SystemError {
            // The file asked for, not the temporary one beside it (which `replace` removed).
            throw BenchError.run("\(path): cannot write: \(e.reason)")
        }
    }
}
