import Foundation
import BenchCore
import SystemIO
import Transport

/// The Chrome DevTools Protocol over `--remote-debugging-pipe`: JSON messages separated by NUL
/// bytes, commands `{"id", "method", "params", "sessionId"}` one way, answers (same `id`) and
/// events (`method`, `params`) the other. No websocket, no package.
///
/// Calls are synchronous for the caller: `call` runs the event loop until its answer arrives,
/// handing every event that arrives meanwhile to `onEvent`. The loop's stop flag (an interrupt)
/// and a deadline end any wait with an error.
final class DevToolsPipe {
    struct Event {
        var method: String
        var params: [String: Any]
        var sessionID: String?
    }

    enum Failure: Error, CustomStringConvertible {
        case closed(String)
        case timedOut(String)
        case interrupted
        case protocolError(method: String, message: String)
        /// Whether `error` is a time-out of this kind.
        static func isTimeout(_ error: any Error) -> Bool {
            if case .timedOut = error as? Failure { return true }
            return false
        }
        var description: String {
            switch self {
            case .closed(let why): return "the browser closed DevTools (\(why))"
            case .timedOut(let what): return "timed out \(what)"
            case .interrupted: return "interrupted"
            case .protocolError(let m, let msg): return "DevTools \(m): \(msg)"
            }
        }
    }

    let loop: EventLoop
    private let input: FileDescriptor
    private let output: FileDescriptor
    private var inbox: [UInt8] = []
    private var answers: [Int: [String: Any]] = [:]
    private var nextID = 1
    private(set) var closedReason: String?
    var onEvent: (Event) -> Void = { _ in }

    /// `answers`: the browser's fd 4 (read here); `commands`: its fd 3 (written here).
    init(loop: EventLoop, answers: FileDescriptor, commands: FileDescriptor) throws {
        self.loop = loop
        input = answers
        output = commands
        try loop.register(input, .read) { [weak self] _ in self?.readable() }
    }

    func close() { loop.unregister(input) }

    /// Sends a command; its answer is kept for `wait(forAnswer:)`.
    @discardableResult
    func send(_ method: String, _ params: [String: Any] = [:], session: String? = nil) throws -> Int {
        let id = nextID
        nextID += 1
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if let session { message["sessionId"] = session }
        var data = [UInt8](try JSONSerialization.data(withJSONObject: message))
        data.append(0)
        // The pipe is blocking and commands are small: a write returns once all of it is in.
        var done = 0
        while done < data.count {
            let status: IOStatus
            do {
                status = try data.withUnsafeBytes {
                    try Socket.write(output, UnsafeRawBufferPointer(rebasing: $0[done...]))
                }
            } catch {
                closedReason = closedReason ?? "writing \(method): \(error)"
                throw Failure.closed(closedReason!)
            }
            guard case .bytes(let n) = status, n > 0 else { continue }
            done += n
        }
        return id
    }

    /// Sends a command and waits for its result.
    func call(_ method: String, _ params: [String: Any] = [:], session: String? = nil, deadline: Instant) throws
        -> [String: Any]
    {
        let id = try send(method, params, session: session)
        return try wait(forAnswer: id, method: method, deadline: deadline)
    }

    func wait(forAnswer id: Int, method: String, deadline: Instant) throws -> [String: Any] {
        try run(until: deadline, "waiting for \(method)") { answers[id] != nil }
        let answer = answers.removeValue(forKey: id)!
        if let error = answer["error"] as? [String: Any] {
            throw Failure.protocolError(method: method, message: error["message"] as? String ?? "\(error)")
        }
        return answer["result"] as? [String: Any] ?? [:]
    }

    /// Runs the loop until `done()`, the deadline, an interrupt or the browser's end.
    func run(until deadline: Instant, _ what: String, _ done: () -> Bool) throws {
        try loop.run(until: deadline) { done() || closedReason != nil }
        if done() { return }
        if loop.stopper.isSet { throw Failure.interrupted }
        if let why = closedReason { throw Failure.closed(why) }
        throw Failure.timedOut(what)
    }

    private func readable() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let status = buffer.withUnsafeMutableBytes { (try? Socket.read(input, into: $0)) ?? .endOfFile }
        switch status {
        case .bytes(let n):
            inbox += buffer[0..<n]
        case .wouldBlock:
            return
        case .endOfFile:
            closedReason = closedReason ?? "the browser exited"
            loop.unregister(input)
            return
        }
        while let nul = inbox.firstIndex(of: 0) {
            let message = Data(inbox[..<nul])
            inbox.removeSubrange(...nul)
            guard let object = try? JSONSerialization.jsonObject(with: message) as? [String: Any] else { continue }
            if let id = object["id"] as? Int {
                answers[id] = object
            } else if let method = object["method"] as? String {
                onEvent(
                    Event(
                        method: method, params: object["params"] as? [String: Any] ?? [:],
                        sessionID: object["sessionId"] as? String))
            }
        }
    }
}
