import BenchCore

/// A bottleneck's queue discipline and its parameters (defaults: the RFCs' and Linux's qdiscs).
public enum DisciplineConfiguration: Sendable, Equatable {
    /// FIFO dropping the arrival when full (limit: `LinkConfiguration.queueLimit`).
    case dropTail
    /// FIFO dropping from the head when full (limit: `LinkConfiguration.queueLimit`).
    case dropHead
    case codel(CoDelParameters)
    case fqCodel(FQCoDelParameters)
    case pie(PIEParameters)

    /// Whether it can mark CE at all (drop-tail and drop-head cannot).
    public var canMark: Bool {
        switch self {
        case .dropTail, .dropHead: return false
        case .codel, .fqCodel, .pie: return true
        }
    }
}

/// RFC 8289 CoDel; defaults of Linux `tc-codel(8)` (target 5 ms, interval 100 ms, limit 1000
/// packets, ECN off).
public struct CoDelParameters: Sendable, Equatable {
    public var target: Nanoseconds = .milliseconds(5)
    public var interval: Nanoseconds = .milliseconds(100)
    public var limit: QueueLimit = .packets(1000)
    public var ecn = false
    /// Mark ECT packets whose sojourn exceeds this (nil: off), as Linux's `ce_threshold`.
    public var ceThreshold: Nanoseconds?
    /// Below this many bytes queued CoDel never drops (one MTU; Linux uses the device's).
    public var mtu = 1500
    public init() {}
}

/// RFC 8290 FQ-CoDel; defaults of Linux `tc-fq_codel(8)`: 1024 flows, quantum 1514, limit 10240
/// packets, memory limit 32 MB, target 5 ms, interval 100 ms, ECN on, drop batch 64.
public struct FQCoDelParameters: Sendable, Equatable {
    public var target: Nanoseconds = .milliseconds(5)
    public var interval: Nanoseconds = .milliseconds(100)
    public var flows = 1024
    public var quantum = 1514
    public var limit = 10240
    public var memoryLimit = 32 << 20
    public var ecn = true
    public var ceThreshold: Nanoseconds?
    public var dropBatch = 64
    public var mtu = 1500
    public init() {}

    var codel: CoDelParameters {
        var c = CoDelParameters()
        c.target = target
        c.interval = interval
        c.ecn = ecn
        c.ceThreshold = ceThreshold
        c.mtu = mtu
        c.limit = .packets(limit)
        return c
    }
}

/// RFC 8033 PIE; defaults of Linux `tc-pie(8)`: target 15 ms, tupdate 15 ms, alpha 1/8 (2/16),
/// beta 1.25 (20/16), limit 1000 packets, ECN off, burst allowance 150 ms, queueing delay from
/// timestamps (the dequeue-rate estimator is an option).
public struct PIEParameters: Sendable, Equatable {
    public var target: Nanoseconds = .milliseconds(15)
    public var tupdate: Nanoseconds = .milliseconds(15)
    public var alpha = 0.125
    public var beta = 1.25
    public var maxBurst: Nanoseconds = .milliseconds(150)
    public var limit: QueueLimit = .packets(1000)
    public var ecn = false
    /// Drop probability scaled by packet size (small packets dropped less).
    public var bytemode = false
    /// RFC 8033's departure-rate estimator instead of per-packet timestamps.
    public var dequeueRateEstimator = false
    public var mtu = 1500
    public init() {}
}
