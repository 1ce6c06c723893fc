import Foundation
import BenchCore
import SystemIO
import Transport

/// WebDriver BiDi (W3C) over the project's WebSocket client: commands `{"id", "method",
/// "params"}`, answers `{"type": "success"|"error", "id", …}` and events `{"type": "event",
/// "method", "params"}`. Calls are synchronous for the caller: `call` runs the event loop until its
/// answer arrives, handing events that arrive meanwhile to `onEvent`.
final class WebDriverBiDi {
    struct Event {
        var method: String
        var params: [String: Any]
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
            case .closed(let why): return "the browser closed WebDriver BiDi (\(why))"
            case .timedOut(let what): return "timed out \(what)"
            case .interrupted: return "interrupted"
            case .protocolError(let m, let msg): return "WebDriver BiDi \(m): \(msg)"
            }
        }
    }

    let socket: WebSocketConnection
    var loop: EventLoop { socket.loop }
    private var answers: [Int: [String: Any]] = [:]
    /// Answers handed to a callback instead of kept for `call` (commands sent with `send(_:_:onAnswer:)`).
    private var answerHandlers: [Int: ([String: Any]) -> Void] = [:]
    private var nextID = 1
    var onEvent: (Event) -> Void = { _ in }

    init(socket: WebSocketConnection) {
        self.socket = socket
        socket.onText = { [weak self] text in self?.received(text) }
    }

    func close() { socket.close() }

    @discardableResult
    func send(_ method: String, _ params: [String: Any] = [:]) throws -> Int {
        let id = nextID
        nextID += 1
        let data = try JSONSerialization.data(withJSONObject: ["id": id, "method": method, "params": params])
        do { try socket.sendText(String(decoding: data, as: UTF8.self)) } catch {
            throw Failure.closed(socket.closedReason ?? "\(error)")
        }
        return id
    }

    /// Sends a command whose answer (the whole message: `type`, `result` or `error`, `message`) goes
    /// to `onAnswer` when it arrives, while the loop runs for something else.
    func send(_ method: String, _ params: [String: Any], onAnswer: @escaping ([String: Any]) -> Void) throws {
        let id = try send(method, params)
        answerHandlers[id] = onAnswer
    }

    func call(_ method: String, _ params: [String: Any] = [:], deadline: Instant) throws -> [String: Any] {
        let id = try send(method, params)
        try run(until: deadline, "waiting for \(method)") { answers[id] != nil }
        let answer = answers.removeValue(forKey: id)!
        if answer["type"] as? String == "error" {
            let message = (answer["message"] as? String).flatMap { $0.isEmpty ? nil : $0 }
            throw Failure.protocolError(
                method: method,
                message: [answer["error"] as? String, message].compactMap { $0 }.joined(separator: ": "))
        }
        return answer["result"] as? [String: Any] ?? [:]
    }

    /// Runs the loop until `done()`, the deadline, an interrupt or the connection's end.
    func run(until deadline: Instant, _ what: String, _ done: () -> Bool) throws {
        try loop.run(until: deadline) { done() || socket.closedReason != nil }
        if done() { return }
        if loop.stopper.isSet { throw Failure.interrupted }
        if let why = socket.closedReason { throw Failure.closed(why) }
        throw Failure.timedOut(what)
    }

    private func received(_ text: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return }
        if let id = object["id"] as? Int, object["type"] as? String != "event" {
            if let handler = answerHandlers.removeValue(forKey: id) { return handler(object) }
            answers[id] = object
        } else if object["type"] as? String == "event", let method = object["method"] as? String {
            onEvent(Event(method: method, params: object["params"] as? [String: Any] ?? [:]))
        }
    }

    /// The value of a `script.evaluate`/`script.callFunction` result: a string result's text
    /// (the page scripts return JSON text), or the exception's message.
    static func stringResult(_ result: [String: Any], method: String) throws -> String {
        if result["type"] as? String == "exception" {
            let details = result["exceptionDetails"] as? [String: Any]
            throw Failure.protocolError(method: method, message: details?["text"] as? String ?? "exception")
        }
        guard let value = result["result"] as? [String: Any], value["type"] as? String == "string",
            let s = value["value"] as? String
        else {
            throw Failure.protocolError(method: method, message: "no string result")
        }
        return s
    }
}
