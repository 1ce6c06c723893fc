import Foundation

/// Chooses how many origins a generated page uses and which resource each one serves.
///
/// Origin count (not among the reference figures; assumption): one first-party host for small
/// pages, a static-asset host from 15 requests on and an image host from 80; third parties on 92%
/// of pages (HTTP Archive), their number log-normal around 0.8·√requests (σ 0.4): 6 for the
/// median mobile page, 10 for the p90 page. Which resources go to a third party follows
/// `PageDistribution.thirdPartyShare`; each picks among the third parties serving its type,
/// favouring the common kinds (weights 1/rank^0.7).
struct OriginPlanner {
    typealias ResourceType = Scenario.ResourceType
    let distribution: PageDistribution
    let requests: Int
    let fixedCount: Int?
    let site: String

    func firstPartyCount(total: Int?) -> Int {
        var f = requests >= 15 ? 2 : 1
        if requests >= 80 { f = 3 }
        if let total { f = min(f, total == 2 ? 1 : max(1, total - 1)) }
        return f
    }

    /// Plans the origins and sets `origin` and `thirdParty` on every draft (root on `www`).
    func assign(_ drafts: inout [DraftResource], _ rng: inout GeneratorRandom) -> [OriginCatalog.Entry] {
        let zOrigins = rng.normal()
        let hasThird = rng.chance(distribution.thirdPartyPageShare)
        let f: Int
        let t: Int
        if let k = fixedCount {
            f = firstPartyCount(total: k)
            t = k - f
        } else {
            f = firstPartyCount(total: nil)
            let drawn = Int((0.8 * Double(requests).squareRoot() * exp(0.4 * zOrigins)).rounded())
            t = hasThird ? min(max(1, drawn), max(1, requests - f)) : 0
        }
        let entries = Array(OriginCatalog.firstParty(site: site).prefix(f)) + OriginCatalog.thirdParties(count: t)
        let third = entries.indices.filter { entries[$0].thirdParty }
        let first = entries.indices.filter { !entries[$0].thirdParty }
        for i in drafts.indices {
            let type = drafts[i].type
            let serving = third.filter { entries[$0].types.contains(type) }
            let share = distribution.thirdPartyShare[type] ?? 0.3
            let draw = rng.unit()
            if i > 0, !serving.isEmpty, draw < share {
                let w = serving.map { 1 / pow(Double(third.firstIndex(of: $0)! + 1), 0.7) }
                drafts[i].origin = serving[rng.weighted(w)]
                drafts[i].thirdParty = true
            } else if i > 0 {
                let w = first.map { firstPartyWeight(entries[$0].id, type) }
                drafts[i].origin = first[rng.weighted(w)]
            }
        }
        fillEmptyOrigins(&drafts, entries, &rng)
        return entries
    }

    /// Static assets mostly from the static host, images from the image host, API calls and
    /// frames from `www`.
    func firstPartyWeight(_ id: String, _ type: ResourceType) -> Double {
        switch (id, type) {
        case ("www", .document), ("www", .xhr): return 1
        case ("www", .other): return 0.6
        case ("www", _): return 0.2
        case ("static", .document), ("static", .xhr): return 0
        case ("static", .image): return 0.4
        case ("static", _): return 0.8
        case ("img", .image): return 0.8
        default: return 0
        }
    }

    /// Every origin serves at least one resource: an empty one takes a resource of a type it
    /// serves (else any) from the origin with the most, never the root document.
    func fillEmptyOrigins(
        _ drafts: inout [DraftResource], _ entries: [OriginCatalog.Entry], _ rng: inout GeneratorRandom
    ) {
        for o in entries.indices {
            var load = [Int](repeating: 0, count: entries.count)
            for d in drafts { load[d.origin] += 1 }
            guard load[o] == 0 else { continue }
            let movable = drafts.indices.filter { $0 > 0 && load[drafts[$0].origin] > 1 }
            let fitting = movable.filter { entries[o].types.contains(drafts[$0].type) }
            let pool = fitting.isEmpty ? movable : fitting
            guard !pool.isEmpty else { continue }
            let busiest = pool.map { load[drafts[$0].origin] }.max()!
            let candidates = pool.filter { load[drafts[$0].origin] == busiest }
            let chosen = rng.pick(candidates)
            drafts[chosen].origin = o
            drafts[chosen].thirdParty = entries[o].thirdParty
        }
    }
}
