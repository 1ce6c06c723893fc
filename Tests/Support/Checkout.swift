import Foundation

/// The package checkout the tests run in (for `Scenarios/`, `scripts/` and the files tests pass to
/// the built binary), found from this file's path: Tests/Support/Checkout.swift.
public let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// The shared test pages and links (Tests/Support/Fixtures, this target's resources): small pages
/// that several test targets load in-process or hand to the built binary.
public enum Fixture {
    /// The path of fixture `name` (e.g. `small-page.json`) in the build's copy of the resources.
    public static func path(_ name: String) -> String {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures/" + name).path
    }
}

/// The `netbench` executable that `swift build` puts beside the test bundle.
public enum NetbenchBinary {
    /// The build products directory (.build/<triple>/debug or release), where this target's
    /// resource bundle and the executable both are.
    static var productsDirectory: String { Bundle.module.bundleURL.deletingLastPathComponent().path }

    /// The executable of this build, else the checkout's debug build; a missing prerequisite (see
    /// `require`) when neither is built, so that every test that runs it goes through `require`.
    public static var path: String {
        get throws {
            let candidates = [productsDirectory + "/netbench", packageRoot + "/.build/debug/netbench"]
            guard let built = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
                try missingPrerequisite("netbench binary not built at \(candidates[0]): run `swift build` first")
            }
            return built
        }
    }
}
