import Foundation
import BenchCore
import BenchModel
import Runner
import LinkModel

/// Turns a profile (the user's JSON) into the link emulator's path configuration.
///
/// RTT convention: `rtt` is the round trip; each direction gets half of it as one-way delay.
package enum ProfileLink {
    package static func path(named name: String, from p: Profile) throws -> PathConfiguration {
        let rtt = p.rtt?.nanoseconds ?? 0
        let downRate = try rate(p.down, trace: p.downTrace, key: "downTrace", profile: p)
        let upRate = try rate(p.up, trace: p.upTrace, key: "upTrace", profile: p)
        let outages = (p.outages ?? []).map { Outage(start: $0.start.nanoseconds, end: $0.end.nanoseconds) }
        func loss(_ specific: Fraction?) -> LossModel {
            if let m = p.lossModel {
                return .gilbertElliott(
                    GilbertElliott(
                        goodToBad: m.p, badToGood: m.r, lossInGood: m.lossInGood ?? 0, lossInBad: m.lossInBad ?? 1))
            }
            let f = specific?.value ?? p.loss?.value ?? 0
            return f > 0 ? .bernoulli(f) : .none
        }
        let up = try queue(p.queue(up: true), profile: p, key: p.upQueue == nil ? "queue" : "upQueue")
        let down = try queue(p.queue(up: false), profile: p, key: p.downQueue == nil ? "queue" : "downQueue")
        let half = rtt / 2
        let traces = try DelayTraceFile.traces(of: p)
        let upVariation = delayVariation(p, down: false, trace: traces.up)
        let downVariation = delayVariation(p, down: true, trace: traces.down)
        return PathConfiguration(
            name: name,
            uplink: LinkConfiguration(
                delay: traces.up?.meanDelay ?? half, rate: upRate, loss: loss(p.upLoss), queueLimit: up.limit,
                discipline: up.discipline, outages: outages, delayVariation: upVariation),
            downlink: LinkConfiguration(
                delay: traces.down?.meanDelay ?? rtt - half, rate: downRate, loss: loss(p.downLoss),
                queueLimit: down.limit, discipline: down.discipline, outages: outages, delayVariation: downVariation))
    }

    /// One direction's delay trace, jitter and explicit reordering (keys checked by `Profile.validate`).
    package static func delayVariation(_ p: Profile, down: Bool, trace: DelayTrace?) -> DelayVariation {
        let jitter = p.jitter(down: down).map { j in
            let distribution: JitterDistribution
            switch j.distribution ?? .uniform {
            case .uniform: distribution = .uniform
            case .normal: distribution = .normal
            case .pareto: distribution = .pareto
            case .paretonormal: distribution = .paretoNormal
            }
            return Jitter(
                distribution: distribution, deviation: j.deviation.nanoseconds, mayReorder: j.reorder ?? false)
        }
        var reordering: Reordering?
        if let r = p.reorder(down: down) {
            if let swap = r.swap {
                let hold = r.maxHold ?? Profile.ReorderSpec.defaultMaxHold
                reordering = .swap(probability: swap.value, maxHold: hold.nanoseconds)
            } else if let n = r.jump {
                let trigger: Reordering.JumpTrigger =
                    r.every.map { .every($0) } ?? .probability(r.probability?.value ?? 0)
                reordering = .jump(distance: n, trigger: trigger)
            }
        }
        return DelayVariation(trace: trace, jitter: jitter, reordering: reordering)
    }

    /// A profile's queue spec as the link model's drop-tail limit (nil: one BDP) and discipline.
    package static func queue(_ spec: Profile.QueueSpec?, profile: Profile, key: String) throws
        -> (limit: QueueLimit?, discipline: DisciplineConfiguration)
    {
        func limit(_ q: Profile.QueueSpec?) -> QueueLimit? {
            switch q {
            case .bytes(let b)?: return .bytes(Int(b))
            case .packets(let n)?: return .packets(n)
            case .bandwidthDelayProduct?, .discipline?, nil: return nil
            }
        }
        guard case .discipline(let given)? = spec else { return (limit(spec), .dropTail) }
        let d = given.withDefaults()
        func ns(_ v: DurationValue?) -> Nanoseconds? { v?.nanoseconds }
        switch d.name {
        case .droptail?: return (limit(d.limit), .dropTail)
        case .drophead?: return (limit(d.limit), .dropHead)
        case .codel?:
            var c = CoDelParameters()
            c.limit = limit(d.limit) ?? c.limit
            c.target = ns(d.target) ?? c.target
            c.interval = ns(d.interval) ?? c.interval
            c.ecn = d.ecn ?? c.ecn
            c.ceThreshold = ns(d.ceThreshold)
            return (nil, .codel(c))
        case .fq_codel?:
            var f = FQCoDelParameters()
            if case .packets(let n)? = d.limit { f.limit = n }
            f.flows = d.flows ?? f.flows
            f.quantum = d.quantum ?? f.quantum
            f.target = ns(d.target) ?? f.target
            f.interval = ns(d.interval) ?? f.interval
            f.memoryLimit = d.memoryLimit.map { Int($0) } ?? f.memoryLimit
            f.ecn = d.ecn ?? f.ecn
            f.ceThreshold = ns(d.ceThreshold)
            f.dropBatch = d.dropBatch ?? f.dropBatch
            return (nil, .fqCodel(f))
        case .pie?:
            var q = PIEParameters()
            q.limit = limit(d.limit) ?? q.limit
            q.target = ns(d.target) ?? q.target
            q.tupdate = ns(d.tupdate) ?? q.tupdate
            q.alpha = d.alpha ?? q.alpha
            q.beta = d.beta ?? q.beta
            q.maxBurst = ns(d.maxBurst) ?? q.maxBurst
            q.ecn = d.ecn ?? q.ecn
            q.bytemode = d.bytemode ?? q.bytemode
            q.dequeueRateEstimator = d.dqRateEstimator ?? q.dequeueRateEstimator
            return (nil, .pie(q))
        case nil:
            throw BenchError.data(
                "profile '\(profile.name)': \(key).discipline: '\(d.discipline)' is not a queue discipline")
        }
    }

    private static func rate(_ r: BitrateValue?, trace: String?, key: String, profile: Profile) throws -> LinkRate {
        if let trace {
            guard let text = try? String(contentsOfFile: trace, encoding: .utf8) else {
                throw BenchError.data("profile '\(profile.name)': \(key): cannot read trace file \(trace)")
            }
            do { return .trace(try MahimahiTrace.parse(text: text)) } catch {
                throw BenchError.data("\(trace): \(error)")
            }
        }
        if let r { return .constant(bitsPerSecond: r.bitsPerSecond) }
        return .unlimited
    }

    /// Every client path of a profile: its `paths` (each from the profile it names), or the
    /// profile itself as one path named "wifi".
    package static func paths(of profile: Profile, library: Library) throws -> [PathConfiguration] {
        guard let specs = profile.paths else { return [try path(named: "wifi", from: profile)] }
        return try specs.enumerated().map { i, spec in
            let p: Profile
            do { p = try library.profile(spec.profile) } catch let e as BenchError {
                throw BenchError.data("profile '\(profile.name)': paths[\(i)].profile: \(e.message)")
            }
            guard p.paths == nil else {
                throw BenchError.data(
                    "profile '\(profile.name)': paths[\(i)].profile: '\(spec.profile)' has paths itself")
            }
            return try path(named: spec.name, from: p)
        }
    }

    /// The bottleneck downlink rate the ideal is computed with (a trace's mean rate).
    package static func downlinkBitsPerSecond(_ path: PathConfiguration) -> Double? {
        path.downlink.rate.meanBitsPerSecond
    }
}
