import XCTest
import TestSupport

/// `scripts/install.sh` into a temporary prefix; the installed binary, run from another directory
/// without NETBENCH_HOME, finds the shipped profiles, suites and pages, and runs an emulated profile.
final class InstallTests: XCTestCase {
    func install() throws -> String {
        let binary = try NetbenchBinary.path
        let prefix = Program.tempDirectory(self) + "/prefix"
        let script = packageRoot + "/scripts/install.sh"
        let r = try Program.run("/bin/sh", [script, "--prefix", prefix, "--binary", binary])
        XCTAssertEqual(r.status, 0, r.stderr)
        for f in [
            "bin/netbench", "share/netbench/profiles/LTE.json", "share/netbench/traces/ATT-LTE-driving-2016.down",
            "share/netbench/suites/default.json", "share/netbench/pages/small-page.json", "share/man/man1/netbench.1",
            "share/bash-completion/completions/netbench", "share/zsh/site-functions/_netbench",
        ] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: prefix + "/" + f), f)
        }
        return prefix
    }

    func testInstalledBinaryFindsItsLibraryFromAnotherDirectory() throws {
        let prefix = try install()
        let elsewhere = Program.tempDirectory(self)
        let env = Program.environmentWithoutHome
        let profiles = try Program.run(
            prefix + "/bin/netbench", ["profiles", "--quiet"], cwd: elsewhere, environment: env)
        XCTAssertEqual(profiles.status, 0, profiles.stderr)
        for name in ["loopback", "LTE", "4G", "Cable", "3GFast", "ATT-LTE-driving"] {
            XCTAssertTrue(
                profiles.stdout.split(separator: "\n").contains(Substring(name)), "\(name) in \(profiles.stdout)")
        }
        let doctor = try Program.run(prefix + "/bin/netbench", ["doctor", "--json"], cwd: elsewhere, environment: env)
        XCTAssertTrue(
            doctor.stdout.contains(prefix + "/share/netbench (installed next to the executable)"), doctor.stdout)
        // The default suite (and its ../pages scenario) and a named profile resolve; the unknown one fails as usage.
        let run = try Program.run(
            prefix + "/bin/netbench", ["run", "--profile", "LTE,NoSuchProfile", "--out", elsewhere + "/x"],
            cwd: elsewhere, environment: env)
        XCTAssertEqual(run.status, 64, run.stderr)
        XCTAssertTrue(run.stderr.contains("unknown profile 'NoSuchProfile' (known: "), run.stderr)
        XCTAssertTrue(run.stderr.contains("LTE"), run.stderr)
    }

    func testBinaryCopiedAloneKnowsOnlyLoopbackAndSaysWhy() throws {
        let binary = try NetbenchBinary.path
        let dir = Program.tempDirectory(self)
        try FileManager.default.createDirectory(atPath: dir + "/bin", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: binary, toPath: dir + "/bin/netbench")
        let r = try Program.run(
            dir + "/bin/netbench", ["run", "--profile", "LTE", dir + "/none.json"], cwd: dir,
            environment: Program.environmentWithoutHome)
        XCTAssertEqual(r.status, 65, r.stderr)  // the scenario is read first
        let p = try Program.run(
            dir + "/bin/netbench", ["profiles", "--quiet"], cwd: dir, environment: Program.environmentWithoutHome)
        XCTAssertEqual(p.stdout, "loopback\n")
    }

    /// A real emulated run (LTE) of the installed binary from another directory: needs root or user namespaces.
    func testInstalledBinaryRunsANamedEmulatedProfile() throws {
        let prefix = try install()
        let elsewhere = Program.tempDirectory(self)
        let r = try Program.run(
            prefix + "/bin/netbench",
            [
                "run", prefix + "/share/netbench/pages/small-page.json", "--profile", "LTE", "--transport", "h2",
                "--runs", "1", "--out", elsewhere + "/out", "--json",
            ], cwd: elsewhere, environment: Program.environmentWithoutHome)
        if r.status == 77 { try missingPrerequisite("emulated profiles need root or user namespaces: \(r.stderr)") }
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let cells = json?["cells"] as? [[String: Any]] ?? []
        XCTAssertEqual(cells.first?["profile"] as? String, "LTE", r.stdout)
        XCTAssertEqual(cells.first?["runs"] as? Int, 1, r.stdout)
        XCTAssertNotNil((cells.first?["pltMs"] as? [String: Any])?["median"], r.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: elsewhere + "/out/results.json"))
    }
}
