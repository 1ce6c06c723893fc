import XCTest
import Runner

/// Where the scenario library is found: NETBENCH_HOME, the checkout, ./Scenarios, then next to the binary.
final class LibraryTests: XCTestCase {
    func makeLibrary(_ dir: String) throws {
        try FileManager.default.createDirectory(atPath: dir + "/profiles", withIntermediateDirectories: true)
    }

    func testSearchOrder() throws {
        let t = Program.tempDirectory(self)
        let bin = t + "/prefix/bin/netbench"
        try FileManager.default.createDirectory(atPath: t + "/prefix/bin", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: bin, contents: Data()))
        let cwd = t + "/work"
        try FileManager.default.createDirectory(atPath: cwd, withIntermediateDirectories: true)

        var l = Library.locate(executablePath: bin, environment: [:], currentDirectory: cwd)
        XCTAssertEqual(l.source, .missing)
        XCTAssertEqual(l.root, cwd + "/Scenarios")

        try makeLibrary(t + "/prefix/share/netbench")
        l = Library.locate(executablePath: bin, environment: [:], currentDirectory: cwd)
        XCTAssertEqual(l.source, .installed)
        XCTAssertEqual(l.root, t + "/prefix/share/netbench")

        try makeLibrary(cwd + "/Scenarios")
        l = Library.locate(executablePath: bin, environment: [:], currentDirectory: cwd)
        XCTAssertEqual(l.source, .currentDirectory)

        try makeLibrary(t + "/home/Scenarios")
        l = Library.locate(executablePath: bin, environment: ["NETBENCH_HOME": t + "/home"], currentDirectory: cwd)
        XCTAssertEqual(l.source, .environment)
        XCTAssertEqual(l.root, t + "/home/Scenarios")
        // NETBENCH_HOME may also be an installed library itself.
        l = Library.locate(
            executablePath: bin, environment: ["NETBENCH_HOME": t + "/prefix/share/netbench"], currentDirectory: cwd)
        XCTAssertEqual(l.root, t + "/prefix/share/netbench")

        // A binary inside a checkout finds the checkout's library before the current directory's.
        try makeLibrary(t + "/checkout/Scenarios")
        try FileManager.default.createDirectory(atPath: t + "/checkout/.build/debug", withIntermediateDirectories: true)
        l = Library.locate(
            executablePath: t + "/checkout/.build/debug/netbench", environment: [:], currentDirectory: cwd)
        XCTAssertEqual(l.source, .checkout)
        XCTAssertEqual(l.root, t + "/checkout/Scenarios")
    }

    func testUnknownProfileWithoutALibrarySaysHowToGetOne() throws {
        let l = Library(root: Program.tempDirectory(self) + "/Scenarios", source: .missing)
        XCTAssertThrowsError(try l.profile("LTE")) { e in
            XCTAssertTrue("\(e)".contains("unknown profile 'LTE' (known: loopback"), "\(e)")
            XCTAssertTrue("\(e)".contains("NETBENCH_HOME"), "\(e)")
        }
    }
}
