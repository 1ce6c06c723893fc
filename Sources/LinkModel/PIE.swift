import BenchCore

/// PIE (RFC 8033, as Linux's `sch_pie` runs it): arrivals are dropped (or, with ECN and a drop
/// probability ≤ 10%, marked) at random with a probability that every `tupdate` moves by
/// `alpha·(delay − target) + beta·(delay − previous delay)` (both scaled down while the
/// probability is small). The queueing delay is each dequeued packet's sojourn (Linux's default)
/// or, with `dequeueRateEstimator`, the backlog over a measured departure rate. No drops during
/// the burst allowance (`maxBurst`) after the queue was quiet. The periodic update runs on the
/// virtual clock: each call first applies the updates due by its `now`.
public final class PIE: QueueDiscipline {
    public let parameters: PIEParameters
    /// Linux's QUEUE_THRESHOLD: the bytes a departure-rate measurement spans.
    static let queueThreshold = 16384
    /// The shortest update period applied (profiles refuse less): the updates run in a loop.
    static let shortestUpdate: Nanoseconds = 1_000_000

    private var fifo = PacketFIFO()
    private var random: SeededRandom
    private var nextUpdate: Instant
    public private(set) var probability = 0.0
    private var accumulatedProbability = 0.0
    private var burstAllowance: Nanoseconds
    private var queueDelay: Nanoseconds = 0
    private var queueDelayOld: Nanoseconds = 0
    private var lastDequeue: Instant?
    private var measuredBytes = -1  // -1: no measurement under way
    private var measurementStart = Instant(nanoseconds: 0)
    private var averageRate = 0.0  // bytes per nanosecond

    /// `start`: the link's start, which the `tupdate` ticks count from.
    public init(_ parameters: PIEParameters, start: Instant, seed: UInt64) {
        self.parameters = parameters
        random = SeededRandom(seed: seed)
        nextUpdate = start + max(Self.shortestUpdate, parameters.tupdate)
        burstAllowance = parameters.maxBurst
    }

    public var backlogPackets: Int { fifo.count }
    public var backlogBytes: Int { fifo.bytes }
    /// The current queueing-delay estimate (for tests).
    var currentDelay: Nanoseconds { queueDelay }
    var remainingBurstAllowance: Nanoseconds { burstAllowance }

    public func enqueue(_ packet: Packet, now: Instant, serving: Int, sink: any DisciplineSink) -> Bool {
        update(through: now)
        guard parameters.limit.admits(size: Int(packet.size), queuedPackets: fifo.count, queuedBytes: fifo.bytes)
        else {
            accumulatedProbability = 0
            return false
        }
        var p = packet
        if dropEarly(size: Int(packet.size)) {
            // Mark instead when ECN-capable and the probability is at most 10%; else drop.
            guard parameters.ecn && probability <= 0.1 && p.markCE() else {
                accumulatedProbability = 0
                return false
            }
            sink.discipline(marked: p, at: now)
        }
        fifo.append(p)
        return true
    }

    public func dequeue(now: Instant, sink: any DisciplineSink) -> Packet? {
        update(through: now)
        guard let p = fifo.popFirst() else { return nil }
        processDequeue(p, now: now)
        return p
    }

    public func flush(_ body: (Packet) -> Void) { fifo.flush(body) }

    // MARK: RFC 8033 section 5

    /// Linux's pie_drop_early (RFC 8033 5.1 with the de-randomization of section 5.4).
    private func dropEarly(size: Int) -> Bool {
        if burstAllowance > 0 { return false }
        if queueDelay < parameters.target / 2 && probability < 0.2 { return false }
        if fifo.bytes < 2 * parameters.mtu { return false }
        var local = probability
        if parameters.bytemode && size <= parameters.mtu { local = probability * Double(size) / Double(parameters.mtu) }
        if local == 0 { accumulatedProbability = 0 } else { accumulatedProbability += local }
        if accumulatedProbability < 0.85 { return false }
        if accumulatedProbability >= 8.5 { return true }
        if random.nextUnit() < local {
            accumulatedProbability = 0
            return true
        }
        return false
    }

    /// Linux's pie_process_dequeue: the delay sample (or the departure rate), and the burst
    /// allowance running down with the time between departures.
    private func processDequeue(_ p: Packet, now: Instant) {
        var elapsed: Nanoseconds = 0
        if !parameters.dequeueRateEstimator {
            queueDelay = fifo.isEmpty ? 0 : now.since(p.arrival)
            if let last = lastDequeue { elapsed = now.since(last) }
            lastDequeue = now
            guard elapsed > 0 else { return }
        } else {
            if fifo.bytes >= Self.queueThreshold && measuredBytes < 0 {
                measurementStart = now
                measuredBytes = 0
            }
            guard measuredBytes >= 0 else { return }
            measuredBytes += Int(p.size)
            guard measuredBytes >= Self.queueThreshold else { return }
            elapsed = now.since(measurementStart)
            guard elapsed > 0 else { return }
            let rate = Double(measuredBytes) / Double(elapsed)
            averageRate = averageRate == 0 ? rate : averageRate * 7 / 8 + rate / 8
            if fifo.bytes < Self.queueThreshold {
                measuredBytes = -1
            } else {
                measuredBytes = 0
                measurementStart = now
            }
        }
        burstAllowance = max(0, burstAllowance - elapsed)
    }

    /// Applies every periodic update due by `now`; a quiet link's updates change nothing once
    /// the probability and the delays are zero, so those are skipped in one step.
    private func update(through now: Instant) {
        let period = max(Self.shortestUpdate, parameters.tupdate)
        while nextUpdate <= now {
            calculateProbability()
            nextUpdate = nextUpdate + period
            if probability == 0 && queueDelay == 0 && queueDelayOld == 0 && fifo.isEmpty && nextUpdate <= now {
                nextUpdate = nextUpdate + (now.since(nextUpdate) / period + 1) * period
            }
        }
    }

    /// Linux's pie_calculate_probability (RFC 8033 5.2 and 5.3).
    private func calculateProbability() {
        let backlog = fifo.bytes
        let delay: Nanoseconds
        let delayOld: Nanoseconds
        if parameters.dequeueRateEstimator {
            delayOld = queueDelay
            queueDelayOld = queueDelay
            delay = averageRate > 0 ? Nanoseconds(Double(backlog) / averageRate) : 0
        } else {
            delay = queueDelay
            delayOld = queueDelayOld
        }
        var updateProbability = !(delay == 0 && backlog != 0)
        var alpha = parameters.alpha, beta = parameters.beta
        if probability < 0.1 {
            alpha /= 2
            beta /= 2
            var power = 100.0
            while probability < 1 / power && power <= 1_000_000 {
                alpha /= 4
                beta /= 4
                power *= 10
            }
        }
        var delta = alpha * Double(delay - parameters.target) / 1e9 + beta * Double(delay - delayOld) / 1e9
        // Increase by at most 2% per update once the probability is 10% or more.
        if delta > 0.02 && probability >= 0.1 { delta = 0.02 }
        // Delays of 250 ms and more: a steeper rise.
        if delay > 250_000_000 { delta += 0.02 }
        probability += delta
        if probability >= 1 {
            probability = 1
            if delta > 0 { updateProbability = false }
        }
        if probability < 0 { probability = 0 }
        // No delay for two updates: decay quickly.
        if delay == 0 && delayOld == 0 && updateProbability { probability -= probability / 64 }
        queueDelay = delay
        // Quiet for two updates and no drop probability: a new burst allowance.
        if queueDelay < parameters.target / 2 && queueDelayOld < parameters.target / 2 && probability == 0
            && (!parameters.dequeueRateEstimator || averageRate > 0)
        {
            burstAllowance = parameters.maxBurst
            accumulatedProbability = 0
            lastDequeue = nil
            measuredBytes = -1
            averageRate = 0
        }
        if !parameters.dequeueRateEstimator { queueDelayOld = delay }
    }
}
