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
    public static func currentThreadMs() -> Double { currentThreadNs().map { Double($0) / 1e6 } ?? .nan }

    /// The calling thread's user and system CPU time in nanoseconds and its voluntary context switches
    /// (`getrusage(RUSAGE_THREAD)`: times of microsecond resolution, tick-sampled on kernels without
    /// fine-grained accounting; each switch a sleep that blocked, a wait that found nothing ready).
    /// System time includes whatever the kernel does inside the thread's system calls: for a TUN
    /// write without NAPI, the receiving stack's whole IP and TCP input.
    public static func currentThreadUsage() -> (user: Int64, system: Int64, voluntarySwitches: Int64)? {
        var usage = rusage()
        guard getrusage(__rusage_who_t(1), &usage) == 0 else { return nil }  // RUSAGE_THREAD (a GNU extension)
        func ns(_ t: timeval) -> Int64 { Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_usec) * 1_000 }
        return (ns(usage.ru_utime), ns(usage.ru_stime), Int64(usage.ru_nvcsw))
    }

    /// CPU time of the calling thread in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`); nil when unreadable.
    public static func currentThreadNs() -> Int64? {
        var ts = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 else { return nil }
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// A thread's CPU time on a CPU so far (ns), from `/proc/<pid>/schedstat` (any thread of any
    /// process, kernel threads included); nil once it has gone.
    public static func threadOnCPUNs(pid: Int32) -> Int64? {
        guard let text = ProcessControl.readSmallFile("/proc/\(pid)/schedstat"),
            let first = text.split(separator: " ").first
        else { return nil }
        return Int64(first)
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
