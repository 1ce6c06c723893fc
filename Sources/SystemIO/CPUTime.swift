import Foundation
import BenchCore

/// CPU time as the kernel accounts it, in milliseconds.
///
/// What each clock misses: a thread's clock (`CLOCK_THREAD_CPUTIME_ID`) counts only that thread's
/// own user and system time, not softirq work done on its behalf in another context (packet
/// reception on loopback is often charged to whichever thread was running); the process figure
/// (`getrusage(RUSAGE_SELF)`) counts every thread of netbench together, including the emulator's,
/// Chromium's and other helper processes not at all.
public enum CPUTime {
    /// CPU time of the calling thread.
    public static func currentThreadMs() -> Double {
        var ts = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 else { return .nan }
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    }

    /// User + system CPU time of the whole process, all threads.
    public static func processMs() -> Double {
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return .nan }
        func ms(_ t: timeval) -> Double { Double(t.tv_sec) * 1000 + Double(t.tv_usec) / 1000 }
        return ms(usage.ru_utime) + ms(usage.ru_stime)
    }
}

/// Another thread's CPU clock (`pthread_getcpuclockid`), captured on that thread and readable from
/// any thread while it lives.
public struct ThreadCPUClock: Sendable {
    let id: clockid_t

    /// The calling thread's clock; nil if the kernel does not give one.
    public static func current() -> ThreadCPUClock? {
        var id = clockid_t()
        guard pthread_getcpuclockid(pthread_self(), &id) == 0 else { return nil }
        return ThreadCPUClock(id: id)
    }

    /// The thread's CPU time so far; nil once the thread has gone.
    public func readMs() -> Double? {
        var ts = timespec()
        guard clock_gettime(id, &ts) == 0 else { return nil }
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    }
}
