import XCTest
import TestSupport

/// A profile whose delay trace has a negative or decreasing time is a data error (exit 65) naming
/// the file, the line and the value, before anything needs root.
final class DelayTraceCommandTests: XCTestCase {
    func testBadDelayTraceExits65NamingFileLineAndValue() throws {
        let dir = Program.tempDirectory(self)
        let cases = [("negative.txt", "0 10\n100 12\n-5 10\n", "line 3", "\"-5\""),
                     ("decreasing.txt", "0 10\n# a comment\n200 12\n150 14\n", "line 4", "\"150\"")]
        for (name, text, line, value) in cases {
            try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
            let profile = dir + "/p-\(name).json"
            try #"{"schemaVersion": 1, "name": "p", "rtt": "40ms", "down": "10Mbit", "up": "10Mbit", "#
                .appending(#""upDelayTrace": "\#(name)"}"#)
                .write(toFile: profile, atomically: true, encoding: .utf8)
            let r = try Program.run(NetbenchBinary.path, ["calibrate", "--profile", profile], cwd: packageRoot)
            XCTAssertEqual(r.status, 65, r.stderr)
            for part in [dir + "/" + name, "upDelayTrace", line, value] {
                XCTAssertTrue(r.stderr.contains(part), "\(part) missing from: \(r.stderr)")
            }
        }
    }
}
