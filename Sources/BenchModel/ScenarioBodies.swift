import Foundation
import BenchCore

extension Scenario.Resource {
    /// A recorded response body: a file named by the SHA-256 of its bytes in the scenario's `bodies`
    /// directory, served with the recorded content type and encoding.
    public struct Body: Codable, Hashable, Sendable {
        /// Lower-case hex SHA-256 of the stored bytes; the file's name.
        public var sha256: String
        /// `content-type` sent with the body; nil: the type's default.
        public var contentType: String?
        /// `content-encoding` of the stored bytes (`gzip`, `br`, …), sent as recorded; nil: identity.
        public var contentEncoding: String?

        public init(sha256: String, contentType: String? = nil, contentEncoding: String? = nil) {
            self.sha256 = sha256; self.contentType = contentType; self.contentEncoding = contentEncoding
        }
    }
}

/// The bytes of a scenario's recorded bodies, by SHA-256 hex, as `Scenario.load(from:)` read them.
/// Equal and hashed by directory and digests: the bytes follow from those.
public struct RecordedBodies: Hashable, Sendable {
    /// Where the files were read from.
    public var directory: String
    public var bytes: [String: [UInt8]]

    public init(directory: String, bytes: [String: [UInt8]]) { self.directory = directory; self.bytes = bytes }

    public static func == (a: RecordedBodies, b: RecordedBodies) -> Bool {
        a.directory == b.directory && a.bytes.keys.sorted() == b.bytes.keys.sorted()
    }
    public func hash(into h: inout Hasher) {
        h.combine(directory)
        h.combine(bytes.keys.sorted())
    }
}

extension Scenario {
    /// The recorded body a resource is served with, if it has one and it was read.
    public func recordedBody(of r: Resource) -> [UInt8]? {
        guard let b = r.body else { return nil }
        return recordedBodies?.bytes[b.sha256]
    }

    /// How many resources have recorded bodies.
    public var recordedBodyCount: Int { resources.filter { $0.body != nil }.count }

    func validateBody(_ b: Resource.Body, at keyPath: String, _ bad: (String, String) -> Void) {
        if !Self.isSHA256Hex(b.sha256) {
            bad(keyPath + ".sha256", "'\(b.sha256)' is not 64 lower-case hex digits")
        }
        for (key, value) in [("contentType", b.contentType), ("contentEncoding", b.contentEncoding)] {
            if let v = value, v.isEmpty || v.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value > 0x7E }) {
                bad(keyPath + "." + key, "'\(v)' is not a printable ASCII header value")
            }
        }
    }

    func validateBodiesDirectory(_ bad: (String, String) -> Void) {
        if let d = bodies, d.isEmpty { bad("bodies", "must not be empty") }
        if let t = recordedAt, HARTime.milliseconds(t) == nil {
            bad("recordedAt", "'\(t)' is not an ISO 8601 date-time (e.g. 2026-11-27T19:00:00.000Z)")
        }
        if bodies == nil, let i = resources.firstIndex(where: { $0.body != nil }) {
            bad("bodies", "missing: resources[\(i)].body needs the directory of recorded bodies")
        }
    }

    static func isSHA256Hex(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// Reads every recorded body from `bodies` (relative to `directory`, the scenario file's). A missing
    /// file, one whose length is not the resource's `bytes`, or whose digest is not its name is a data
    /// error naming the scenario, the key path and the file.
    mutating func readRecordedBodies(file: String, directory: URL) throws {
        guard let dir = bodies, resources.contains(where: { $0.body != nil }) else { return }
        let root = dir.hasPrefix("/") ? URL(fileURLWithPath: dir) : directory.appendingPathComponent(dir)
        var bytes: [String: [UInt8]] = [:]
        for (i, r) in resources.enumerated() {
            guard let b = r.body else { continue }
            let path = root.appendingPathComponent(b.sha256).path
            let key = "\(file): resources[\(i)].body.sha256"
            if bytes[b.sha256] == nil {
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw BenchError.data(
                        "\(key): body file \(path) "
                            + (FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"))
                }
                let body = [UInt8](data)
                let digest = SHA256.hex(body)
                guard digest == b.sha256 else {
                    throw BenchError.data("\(key): body file \(path) has SHA-256 \(digest), not its name")
                }
                bytes[b.sha256] = body
            }
            if let n = bytes[b.sha256]?.count, Int64(n) != r.bytes {
                throw BenchError.data(
                    "\(file): resources[\(i)].bytes: \(r.bytes), but its body file \(path) holds \(n) bytes")
            }
        }
        recordedBodies = RecordedBodies(directory: root.path, bytes: bytes)
    }
}
