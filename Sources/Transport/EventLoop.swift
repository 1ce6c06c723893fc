import BenchCore
import SystemIO
import Synchronization

/// The one event loop of a thread: epoll readiness for sockets, a timer heap, and a wakeup fd so
/// another thread can stop it. Everything registered with a loop is used on the loop's thread only.
public final class EventLoop {
    public typealias IOHandler = (IOInterest) -> Void

    private let epoll: Epoll
    private let wakeup: Wakeup
    private let stopFlag: StopFlag
    private var handlers: [Int32: IOHandler] = [:]
    private var timers = TimerHeap()
    private var timerCallbacks: [UInt64: () -> Void] = [:]
    private var nextTimerID: UInt64 = 1
    /// Work queued by handlers to run once every handler of the current turn has run.
    private var afterIO: [() -> Void] = []
    private static let wakeupToken = UInt64.max

    public init() throws {
        epoll = try Epoll(capacity: 128)
        wakeup = try Wakeup()
        stopFlag = StopFlag(wakeup: wakeup)
        try epoll.add(wakeup.fd, .read, token: EventLoop.wakeupToken)
    }

    /// A handle another thread can use to stop this loop.
    public var stopper: StopFlag { stopFlag }

    public func register(_ fd: FileDescriptor, _ interest: IOInterest, _ handler: @escaping IOHandler) throws {
        handlers[fd.rawValue] = handler
        try epoll.add(fd, interest, token: UInt64(UInt32(bitPattern: fd.rawValue)))
    }

    public func update(_ fd: FileDescriptor, _ interest: IOInterest) {
        guard handlers[fd.rawValue] != nil else { return }
        try? epoll.modify(fd, interest, token: UInt64(UInt32(bitPattern: fd.rawValue)))
    }

    /// Stops watching `fd` (call before closing it).
    public func unregister(_ fd: FileDescriptor) {
        guard handlers.removeValue(forKey: fd.rawValue) != nil else { return }
        epoll.remove(fd)
    }

    public struct TimerID: Hashable, Sendable { let raw: UInt64 }

    /// Runs `callback` on this loop at `deadline` (or at the next turn if it has passed).
    @discardableResult
    public func schedule(at deadline: Instant, _ callback: @escaping () -> Void) -> TimerID {
        let id = nextTimerID
        nextTimerID += 1
        timerCallbacks[id] = callback
        timers.push(deadline: deadline.nanoseconds, id: id)
        return TimerID(raw: id)
    }

    @discardableResult
    public func schedule(after delay: Nanoseconds, _ callback: @escaping () -> Void) -> TimerID {
        schedule(at: Instant.now() + max(0, delay), callback)
    }

    /// Runs `task` once every I/O handler ready in this turn has run (queued from a timer: once
    /// the due timers have run). A QUIC client queues the page loader's work on
    /// what arrived here, after acknowledging it, so that the ACKs of every connection ready in a
    /// turn leave before any of that work, as a browser's network stack sends them while the
    /// renderer parses.
    public func runAfterIO(_ task: @escaping () -> Void) {
        afterIO.append(task)
    }

    public func cancel(_ timer: TimerID?) {
        guard let timer else { return }
        timerCallbacks[timer.raw] = nil
    }

    /// Runs until `stop()` (from any thread), `deadline`, or `done()` returns true after a turn.
    public func run(until deadline: Instant? = nil, done: () -> Bool = { false }) throws {
        while !stopFlag.isSet && !done() {
            let now = Instant.now()
            if let d = deadline, now >= d { return }
            fireDueTimers(now)
            runQueuedAfterIO()
            if stopFlag.isSet || done() { return }
            var timeout: Nanoseconds? = nil
            if let next = nextLiveDeadline() {
                timeout = max(0, Nanoseconds(bitPattern: next &- Instant.now().nanoseconds))
            }
            if let d = deadline {
                let left = d.since(Instant.now())
                timeout = min(timeout ?? left, max(0, left))
            }
            try epoll.wait(timeout: timeout) { token, ready in
                if token == EventLoop.wakeupToken { wakeup.drain(); return }
                handlers[Int32(bitPattern: UInt32(truncatingIfNeeded: token))]?(ready)
            }
            runQueuedAfterIO()
        }
    }

    /// Stops the loop at the end of the current turn.
    public func stop() { stopFlag.set() }

    private func runQueuedAfterIO() {
        var i = 0
        while i < afterIO.count {  // a task may queue more: they run in this turn too
            afterIO[i]()
            i += 1
        }
        afterIO.removeAll(keepingCapacity: true)
    }

    private func nextLiveDeadline() -> UInt64? {
        while let top = timers.peek() {
            if timerCallbacks[top.id] != nil { return top.deadline }
            _ = timers.pop()
        }
        return nil
    }

    private func fireDueTimers(_ now: Instant) {
        while let top = timers.peek(), top.deadline <= now.nanoseconds {
            _ = timers.pop()
            if let cb = timerCallbacks.removeValue(forKey: top.id) { cb() }
        }
    }
}

/// Thread-safe stop request for an `EventLoop`.
public final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    private let wakeup: Wakeup
    init(wakeup: Wakeup) { self.wakeup = wakeup }
    public var isSet: Bool { flag.load(ordering: .acquiring) }
    public func set() {
        flag.store(true, ordering: .releasing)
        wakeup.signal()
    }
}

/// A binary min-heap of (deadline, id); cancelled timers are skipped when they surface.
struct TimerHeap {
    struct Entry { var deadline: UInt64; var id: UInt64 }
    private var items: [Entry] = []

    func peek() -> Entry? { items.first }

    mutating func push(deadline: UInt64, id: UInt64) {
        items.append(Entry(deadline: deadline, id: id))
        var i = items.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            if less(items[i], items[p]) { items.swapAt(i, p); i = p } else { break }
        }
    }

    mutating func pop() -> Entry? {
        guard !items.isEmpty else { return nil }
        let top = items[0]
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < items.count && less(items[l], items[m]) { m = l }
                if r < items.count && less(items[r], items[m]) { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        return top
    }

    private func less(_ a: Entry, _ b: Entry) -> Bool {
        a.deadline != b.deadline ? a.deadline < b.deadline : a.id < b.id
    }
}
