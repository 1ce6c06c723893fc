import Foundation
import BenchModel
import SystemIO

/// What `netbench run` records as `ResultsFile.source`: the git commit, branch and commit date of
/// the working directory when it is inside a repository (read with the `git` program), and the
/// `--label` given. Nil when there is neither a repository nor a label.
enum SourceDetection {
    static func detect(directory: String = FileManager.default.currentDirectoryPath, label: String?) -> SourceInfo? {
        var info = SourceInfo(label: label)
        if let git = ChildProcess.locate("git") {
            func git1(_ args: [String]) -> String? {
                guard let r = try? ChildProcess.run(git, ["-C", directory] + args), r.status == 0 else { return nil }
                let out = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                return out.isEmpty ? nil : out
            }
            if let commit = git1(["rev-parse", "--verify", "HEAD"]) {
                info.commit = commit
                info.branch = git1(["symbolic-ref", "--quiet", "--short", "HEAD"])
                if let seconds = git1(["show", "-s", "--format=%ct", "HEAD"]).flatMap(TimeInterval.init) {
                    let f = ISO8601DateFormatter()
                    f.formatOptions = [.withInternetDateTime]
                    info.commitDate = f.string(from: Date(timeIntervalSince1970: seconds))
                }
                if let r = try? ChildProcess.run(
                    git, ["-C", directory, "status", "--porcelain", "--untracked-files=no"]), r.status == 0
                {
                    info.dirty = !r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
                }
            }
        }
        return info.commit == nil && info.label == nil ? nil : info
    }
}
