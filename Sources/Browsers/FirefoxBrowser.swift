import Foundation
import BenchCore
import BenchModel
import Testbed
import Runner
import SystemIO

/// One headless Firefox for one run: a fresh profile in a temporary directory (the run's
/// preferences in user.js, the run's certificate authority in the profile's NSS database), the
/// remote agent's WebDriver BiDi on a port of its choosing in the browser's namespace, and a stop
/// that ends exactly the processes this launch created, by PID.
///
/// As with Chromium, the browser starts in the calling thread's network namespace (inside
/// `NetworkNamespace.with(client)` it runs on the emulated client's side), with the parent-death
/// signal (setpriv) and a process group of its own.
final class FirefoxBrowser {
    /// Where Firefox is looked for: `$NETBENCH_FIREFOX`, then Debian's firefox-esr and the usual places.
    static let candidates = [
        "/usr/lib/firefox-esr/firefox-esr", "/usr/bin/firefox-esr", "/usr/lib/firefox/firefox", "/usr/bin/firefox",
    ]

    /// The oldest Firefox whose WebDriver BiDi has what a run uses (script.addPreloadScript,
    /// browsingContext.navigate waiting for the load, script.evaluate with awaitPromise): ESR 128.
    static let minimumMajorVersion = 128

    static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let p = environment["NETBENCH_FIREFOX"], !p.isEmpty {
            return FileManager.default.isExecutableFile(atPath: p) ? p : nil
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let installHint =
        "install the Debian package firefox-esr (`apt-get install -y firefox-esr libnss3-tools`, or "
            + "`scripts/bootstrap.sh --firefox`), or point NETBENCH_FIREFOX at a Firefox binary"

    /// certutil (Debian's libnss3-tools) writes the run's CA into the profile's NSS database.
    static func locateCertutil() -> String? {
        if let p = ChildProcess.locate("certutil") { return p }
        return FileManager.default.isExecutableFile(atPath: "/usr/bin/certutil") ? "/usr/bin/certutil" : nil
    }

    /// `firefox --version` ("Mozilla Firefox 153.7.0esr"), or why it could not be read.
    static func version(of executable: String) throws -> String {
        let r: ChildProcess.Result
        do { r = try ChildProcess.run(executable, ["--version"]) } catch {
            throw BenchError.run("cannot run \(executable) --version: \(error)")
        }
        let text = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard r.status == 0, !text.isEmpty else {
            throw BenchError.run(
                "\(executable) --version failed (status \(r.status)): "
                    + r.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return text
    }

    /// The major version in a `--version` line, nil when it names none.
    static func majorVersion(_ versionLine: String) -> Int? {
        for word in versionLine.split(separator: " ").reversed() {
            let digits = word.prefix { $0.isNumber }
            if !digits.isEmpty, word.dropFirst(digits.count).first == "." || digits.count == word.count {
                return Int(digits)
            }
        }
        return nil
    }

    /// Throws (exit 2) unless `executable` is a Firefox with the WebDriver BiDi a run needs.
    static func checkVersion(_ executable: String) throws -> String {
        let line = try version(of: executable)
        guard let major = majorVersion(line) else {
            throw BenchError.run("\(executable): cannot read a Firefox version from '\(line)'")
        }
        guard major >= minimumMajorVersion else {
            throw BenchError.run(
                "\(executable) is \(line): WebDriver BiDi as --client firefox uses it needs Firefox "
                    + "\(minimumMajorVersion) or later (firefox-esr from Debian 12's security updates)")
        }
        return line
    }

    let pid: Int32
    let directory: String
    var profile: String { directory + "/profile" }
    private let process: BackgroundProcess
    private var stopped = false

    /// Writes the profile (`preferences` as user.js, `caPEM` trusted in its NSS database) and
    /// starts `executable` headless with the remote agent on a free port.
    init(executable: String, preferences: FirefoxPreferences, caPEM: String, namespace: String?) throws {
        Self.removeStaleProfiles()
        let directory =
            NSTemporaryDirectory() + "netbench-firefox-\(getpid())-" + UUID().uuidString.prefix(8).lowercased()
        self.directory = directory
        let profile = directory + "/profile"
        do {
            try FileManager.default.createDirectory(atPath: profile, withIntermediateDirectories: true)
            try preferences.userJS.write(toFile: profile + "/user.js", atomically: true, encoding: .utf8)
            if !caPEM.isEmpty { try Self.trust(caPEM: caPEM, profile: profile, directory: directory) }
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        let setpriv = "/usr/bin/setpriv"
        let wrap = FileManager.default.isExecutableFile(atPath: setpriv) ? [setpriv, "--pdeathsig", "KILL", "--"] : []
        // Port 0: the agent picks a free port and names it on stderr (and in WebDriverBiDiServer.json).
        let argv =
            wrap + [
                executable, "--headless", "--no-remote", "--new-instance", "--profile", profile,
                "--remote-debugging-port", "0", "about:blank",
            ]
        ProcessControl.ignoreBrokenPipes()
        do {
            process = try NetworkNamespace.with(namespace) {
                try BackgroundProcess(
                    executable: argv[0], arguments: argv, descriptors: [:], stderrPath: directory + "/stderr.log")
            }
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw BenchError.run("cannot start Firefox (\(executable)): \(error)")
        }
        pid = process.pid
    }

    deinit { stop(grace: 0) }

    /// A new NSS database in the profile holding every certificate of `caPEM` as trusted for TLS
    /// servers (`C,,`); Firefox's TLS and its QUIC stack (Neqo, on NSS) both verify against it.
    /// certutil imports only the first certificate of a file, so each gets a file of its own: a
    /// `run --server --ca` bundle may hold several roots, or the server's certificate before its CA
    /// (Firefox takes a trusted leaf as its own anchor).
    static func trust(caPEM: String, profile: String, directory: String) throws {
        guard let certutil = locateCertutil() else {
            throw BenchError.run("certutil is not installed (Debian package libnss3-tools); " + installHint)
        }
        var commands = [["-N", "-d", "sql:" + profile, "--empty-password"]]
        for (i, certificate) in certificates(inPEM: caPEM).enumerated() {
            let file = directory + "/run-ca-\(i).pem"
            try certificate.write(toFile: file, atomically: true, encoding: .utf8)
            let name = i == 0 ? "netbench run CA" : "netbench run CA \(i + 1)"
            commands.append(["-A", "-d", "sql:" + profile, "-n", name, "-t", "C,,", "-i", file])
        }
        for args in commands {
            let r = try ChildProcess.run(certutil, args)
            guard r.status == 0 else {
                throw BenchError.run(
                    "certutil \(args.joined(separator: " ")) failed (status \(r.status)): "
                        + r.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
    }

    /// Each PEM certificate block of `pem` (BEGIN to END line), in order; other text is left out.
    static func certificates(inPEM pem: String) -> [String] {
        let begin = "-----BEGIN CERTIFICATE-----", end = "-----END CERTIFICATE-----"
        var out: [String] = []
        var rest = pem[...]
        while let b = rest.range(of: begin), let e = rest.range(of: end, range: b.upperBound..<rest.endIndex) {
            out.append(String(rest[b.lowerBound..<e.upperBound]) + "\n")
            rest = rest[e.upperBound...]
        }
        return out
    }

    static func removeStaleProfiles() { BrowserProcesses.removeStaleProfiles(prefix: "netbench-firefox-") }

    var isRunning: Bool { !process.hasExited }

    var stderrText: String { (try? String(contentsOfFile: directory + "/stderr.log", encoding: .utf8)) ?? "" }

    /// The last lines of stderr (for failure messages).
    var errorTail: String {
        let lines = stderrText.split(separator: "\n").filter { !$0.contains("headless mode") }
        return lines.suffix(3).joined(separator: " | ")
    }

    /// The port of WebDriver BiDi once the agent listens ("WebDriver BiDi listening on
    /// ws://127.0.0.1:PORT"), waiting until `deadline`; throws if the browser exits first.
    func bidiPort(deadline: Instant) throws -> UInt16 {
        let marker = "WebDriver BiDi listening on ws://"
        while true {
            for line in stderrText.split(separator: "\n") {
                guard let r = line.range(of: marker) else { continue }
                let hostPort = line[r.upperBound...].prefix { !$0.isWhitespace }
                if let colon = hostPort.lastIndex(of: ":"),
                    let port = UInt16(hostPort[hostPort.index(after: colon)...])
                {
                    return port
                }
            }
            guard isRunning else {
                throw BenchError.run("Firefox exited before WebDriver BiDi listened: \(errorTail)")
            }
            guard Instant.now() < deadline else {
                throw BenchError.run("Firefox's WebDriver BiDi did not listen in time: \(errorTail)")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    func stop(grace: Nanoseconds) {
        guard !stopped else { return }
        stopped = true
        BrowserProcesses.stop(process, pid: pid, grace: grace)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
