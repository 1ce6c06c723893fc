import BenchCore
import LinkModel

/// A path event as the emulator carried it out.
public struct AppliedPathEvent: Sendable, Equatable {
    public var path: String
    public var action: PathEvent.Action
    /// The offset the schedule asked for (nil for live control), from `start()`.
    public var scheduledAt: Nanoseconds?
    /// The offset at which the emulator applied it, from `start()`.
    public var appliedAt: Nanoseconds
}

/// What one `start()`…`stop()` interval of the emulator did, and whether its timing can be trusted.
public struct EmulatorReport: Sendable {
    public struct PathStatistics: Sendable {
        public var name: String
        public var uplink: LinkCounters
        public var downlink: LinkCounters
        public var uplinkQueueLimit: QueueLimit
        public var downlinkQueueLimit: QueueLimit
        /// Measured one-way delay of each forwarded packet (its TUN write − its TUN read); the
        /// reordering count is in `uplink.reordered` / `downlink.reordered`.
        public var uplinkDelay = OneWayDelayHistogram()
        public var downlinkDelay = OneWayDelayHistogram()
        /// Each direction's queueing delay (sojourn histogram) and time series; nil in reports
        /// made without the loop (none today: every run records them).
        public var uplinkQueueing: LinkQueueing?
        public var downlinkQueueing: LinkQueueing?
    }

    public struct DeviceDrops: Sendable {
        public var namespace: String
        public var device: String
        public var before: DeviceDropCounters
        public var after: DeviceDropCounters
        public var txDropsRose: Bool { after.txDropped > before.txDropped }
        public var rxDropsRose: Bool { after.rxDropped > before.rxDropped }
    }

    public var duration: Nanoseconds
    public var paths: [PathStatistics]
    /// Packets written to a TUN.
    public var releasedPackets: Int64
    /// Release lateness (write time − scheduled release), nearest-rank percentiles over a 1 µs histogram.
    public var latenessP50: Nanoseconds
    public var latenessP99: Nanoseconds
    public var latenessMax: Nanoseconds
    /// The two parts of it: how late the loop woke from its timed sleeps (the timer floor's part),
    /// and each packet's lateness beyond its pass's late wake-up (the emulator's own part).
    public var wakeLatenessP99: Nanoseconds = 0
    public var ownLatenessP99: Nanoseconds = 0
    public var devices: [DeviceDrops]
    /// Packets to an address no path owns; non-IPv4 packets; packets lost for want of a buffer;
    /// failed TUN reads and writes. All should stay 0.
    public var unroutablePackets: Int64
    public var nonIPv4Packets: Int64
    public var poolExhaustedDrops: Int64
    public var readErrors: Int64
    public var writeErrors: Int64
    /// Whether the TUNs carried TCP super-packets (`EmulatedNetwork.Options.tunOffload`), and how
    /// many super-packets the loop could not cut into segments (dropped; should stay 0).
    public var tunOffload = false
    public var unsegmentablePackets: Int64 = 0
    /// With offload: TUN reads and writes made (packets per write shows the merging), and how long
    /// segments held for merging waited past their release in the writer (p99; not part of the
    /// lateness above, unlike the wait of `releaseWindow`).
    public var offloadReads: Int64 = 0
    public var offloadWrites: Int64 = 0
    public var offloadHoldP99: Nanoseconds = 0
    /// The TUNs' threaded-NAPI kernel threads (`EmulatedNetwork.Options.tunNAPIThreads`; 0: the
    /// receiving stacks ran inside the loop's writes) and their CPU time during the run: the
    /// endpoints' GRO, IP and TCP input and the ACK-clocked sends it triggers, the work a NIC's
    /// receive softirq does on a real host. nil when not measured.
    public var napiThreads = 0
    public var napiCPUTime: Nanoseconds?
    /// Why threaded NAPI was asked for and not used.
    public var napiFallback: String?
    /// The loop thread's user and system CPU time (`getrusage(RUSAGE_THREAD)`, tick-sampled here);
    /// without NAPI threads, system time includes the receiving stacks' work inside its writes.
    /// Arrivals stamped by the kernel as packets entered the TUNs (`Options.kernelArrivalStamps`):
    /// whether they were, why not when asked for, how many reads matched a tapped copy and how many
    /// kept their read time, and how long after entering the loop read them (p50, p99, max).
    public var kernelArrivalStamps = false
    public var arrivalStampsFallback: String?
    public var arrivalsStamped: Int64 = 0
    public var arrivalsUnstamped: Int64 = 0
    public var readLatencyP50: Nanoseconds = 0
    public var readLatencyP99: Nanoseconds = 0
    public var readLatencyMax: Nanoseconds = 0
    public var loopUserTime: Nanoseconds?
    public var loopSystemTime: Nanoseconds?
    /// How often the loop's thread slept and was woken (its voluntary context switches); nil when
    /// unknown. Each sleep costs about the timer floor's `cpuPerWakeUp` of the loop's CPU.
    public var loopSleeps: Int64?
    public var pathEvents: [AppliedPathEvent]
    /// CPU time the packet loop's thread used, and how long it waited runnable for a CPU
    /// (a large wait means the machine is too busy for faithful timing); nil when unknown.
    public var loopCPUTime: Nanoseconds?
    public var loopRunQueueWait: Nanoseconds?
    /// CPU time stolen from this machine by its hypervisor during the run (all CPUs, /proc/stat);
    /// nil when unknown. Like the run-queue wait, something the emulator could not control.
    public var stealTime: Nanoseconds?
    /// How far ahead of a release the precise mode stops sleeping and polls (nil: default mode,
    /// which sleeps until each release).
    public var spinMargin: Nanoseconds?
    /// How long before each release the loop polled instead of sleeping (0: never), and the CPU
    /// time those polls took in all (part of `loopCPUTime`, at most 2% of the run).
    public var releaseSpinWindow: Nanoseconds = 0
    public var releaseSpinTime: Nanoseconds = 0
    /// The batching window of links of 500 Mbit/s or more (`ReleaseWindow`; 0: none; its wait is
    /// part of the lateness above), and the loop's passes that released packets (released packets
    /// per pass: how much it batched).
    public var releaseWindow: Nanoseconds = 0
    /// Lateness of the packets the window did not hold (`LinkReleaseGate.unheld`: every packet of a
    /// pass that was not a window's end, and a window's last packet before a gap), p50 and p99: what
    /// a crossing's last packet can be late by. Equal to the lateness above when no link has a window.
    public var unheldLatenessP50: Nanoseconds = 0
    public var unheldLatenessP99: Nanoseconds = 0
    /// Lateness of the packets released while no link held any (no windowed link streaming): before
    /// and between transfers, as a handshake and a first request are. nil when there were none.
    public var promptLatenessP50: Nanoseconds?
    public var promptLatenessP99: Nanoseconds?
    public var releasePasses: Int64 = 0
    /// Packets a release window held past their release (not among the unheld above), and their
    /// hold in all, each from its release to the window's end that released it: the part of their
    /// lateness the window chose, apart from the loop's wake-ups (at most `releaseWindow` each).
    public var heldPackets: Int64 = 0
    public var heldWait: Nanoseconds = 0
    /// The loop's fatal error, if it ended early.
    public var loopFailure: String?
    /// Whether the links drained before the stop (`stop(drain:)`); nil when not asked to.
    public var drained: Bool?
    /// The pcap files of this run (`start(capture:)`); empty without a capture.
    public var pcapFiles: [String] = []
    /// Why the capture stopped or never started (the run went on without it); nil when it worked.
    public var captureFailure: String?
    /// The link logs of this run (`start(linkLog:)`), per path up then down; empty without.
    public var linkLogFiles: [String] = []
    /// Why the link log stopped or never started (the run went on without it); nil when it worked.
    public var linkLogFailure: String?

    /// Share of one CPU the packet loop used (its CPU time over the run's duration); nil when unknown.
    public var loopCPUShare: Double? { loopCPUTime.map { duration > 0 ? Double($0) / Double(duration) : 0 } }

    /// TUN transmit drops during the run, all devices together (should be 0).
    public var tunTxDrops: Int64 { devices.reduce(0) { $0 + max(0, $1.after.txDropped - $1.before.txDropped) } }
    /// TUN receive drops during the run (packets the emulator wrote that the namespace dropped).
    public var tunRxDrops: Int64 { devices.reduce(0) { $0 + max(0, $1.after.rxDropped - $1.before.rxDropped) } }

    /// Packets lost outside the link model, or a failed loop: the run's emulation is not what the
    /// profile claims; empty when it is. Lateness is judged against the figures it could move
    /// (LinkModel.LatenessBound) by the caller, which knows them.
    public var flagReasons: [String] {
        var reasons: [String] = []
        for d in devices where d.txDropsRose {
            reasons.append(
                "TUN \(d.device) in \(d.namespace) dropped \(d.after.txDropped - d.before.txDropped) packets on "
                    + "transmit"
            )
        }
        if poolExhaustedDrops > 0 {
            reasons.append("\(poolExhaustedDrops) packets dropped: packet buffer pool exhausted")
        }
        if writeErrors > 0 { reasons.append("\(writeErrors) TUN writes failed") }
        if unsegmentablePackets > 0 {
            reasons.append("\(unsegmentablePackets) offloaded packets could not be segmented (dropped)")
        }
        if let loopFailure { reasons.append("packet loop failed: \(loopFailure)") }
        return reasons
    }

    /// True when a TUN dropped packets on transmit, or packets were lost outside the link model
    /// (pool, write errors, loop failure).
    public var flagged: Bool { !flagReasons.isEmpty }
}
