import Foundation
import BenchCore
import BenchModel
import CommandLineKit
import QUIC

/// `--json` and `--quiet` for the commands that print tables: JSON for scripts, or only what needs
/// attention (the exit status says the rest).
enum OutputMode {
    case table, json, quiet

    static func from(json: Bool, quiet: Bool) throws -> OutputMode {
        if json && quiet { throw BenchError.usage("--json and --quiet exclude each other") }
        return json ? .json : quiet ? .quiet : .table
    }

    /// Sorted keys so that output diffs cleanly and scripts see a stable order.
    static func printJSON<T: Encodable>(_ value: T) throws {
        print(String(decoding: try JSONFile.encode(value), as: UTF8.self), terminator: "")
    }
}

/// Parsers for netbench's own vocabulary (the generic ones live in CommandLineKit).
extension ValueParser where T == [TransportKind] {
    static var transports: ValueParser<[TransportKind]> {
        .init(expected: "a list of h1, h2, h3", completion: .choices(["h1", "h2", "h3", "h1,h2", "h1,h2,h3", "h2,h3"]))
        { TransportKind.parseList($0) }
    }
}

extension ValueParser where T == TransportKind {
    static var transport: ValueParser<TransportKind> { .choice(TransportKind.self) }
}

extension ValueParser where T == LateBinding {
    /// `--late-binding` on run and serve.
    static var lateBinding: ValueParser<LateBinding> {
        .init(expected: "off or a size from 1 KiB to 16 MiB (e.g. 16KiB)", completion: .choices(["off", "16KiB"])) {
            LateBinding($0)
        }
    }
}

extension ValueParser where T == QUICPacing {
    /// `--quic-pacing` on run and serve.
    static var quicPacing: ValueParser<QUICPacing> {
        .init(
            expected: "off or SS,CA: two gains from 1 to 100 or off (e.g. 2,1.25)",
            completion: .choices(["2,1.25", "2,off", "off"])
        ) { QUICPacing(parsing: $0) }
    }
}

extension ValueParser where T == TLSRecordPolicy {
    /// `--tls-records` on run and serve.
    static var tlsRecords: ValueParser<TLSRecordPolicy> {
        .init(
            expected: "dynamic, 16k or a record size from 512 B to 16 KiB (e.g. 4KiB)",
            completion: .choices(["dynamic", "16k"])
        ) { TLSRecordPolicy($0) }
    }
}
