/// The pages netbench ships in `Scenarios/pages/`, each reproducible with
/// `netbench scenario generate --preset NAME` (seed 1 unless `--seed` says otherwise).
public enum ScenarioPreset: String, CaseIterable, Sendable {
    case mobileMedian = "mobile-median"
    case desktopMedian = "desktop-median"
    case heavyP90 = "heavy-p90"
    case spaDeepChain = "spa-deep-chain"
    case imageHeavy = "image-heavy"
    case apiSmallJSON = "api-small-json"
    case smallPage = "small-page"
    case bulk10MBDownload = "bulk-10MB-download"
    case bulk10MBUpload = "bulk-10MB-upload"
    case bulk100MBDownload = "bulk-100MB-download"
    case bulk20MBDownload = "bulk-20MB-download"

    /// What the page models and which figure it matches (one line, for the README and `--help`).
    public var summary: String {
        switch self {
        case .mobileMedian:
            return
                "median mobile home page: 66 requests (HTTP Archive 2024 mobile p50), 2,311 KB, median mobile type mix"
        case .desktopMedian:
            return
                "median desktop home page: 71 requests (HTTP Archive 2024 desktop p50), 2,652 KB, median desktop type "
                    + "mix"
        case .heavyP90:
            return
                "heavy page: 170 requests (HTTP Archive 2024 mobile p90), median mix, 35 KB per request (the median "
                    + "page's)"
        case .spaDeepChain:
            return
                "single-page app: a 7-script chain (loader → runtime → vendor → app → router → route chunks), then XHR "
                    + "data and images from the last script; depth 9"
        case .imageHeavy:
            return "image gallery / shop listing: 120 requests, 70% images, 6 MB (images ~5.2 MB)"
        case .apiSmallJSON:
            return
                "API-driven dashboard: 80 requests, 70 small JSON XHRs (about 0.5–5 KB each, 150 KB together) from the "
                    + "app's scripts"
        case .smallPage:
            return "small page for smoke tests: 12 requests, 150 KB, 2 origins (below the mobile p10 of 22 requests)"
        case .bulk10MBDownload:
            return "bulk 10 MB download on one connection (goodput, like the QUIC interop runner's transfer test)"
        case .bulk10MBUpload: return "bulk 10 MB upload on one connection (goodput)"
        case .bulk100MBDownload: return "bulk 100 MB download on one connection (goodput at high rates)"
        case .bulk20MBDownload: return "bulk 20 MB download on one connection (long enough to span a path switch)"
        }
    }

    /// The generator options behind the preset (nil for the bulk presets).
    public func options(seed: UInt64 = 1) -> ScenarioGenerator.Options? {
        let mobile = PageDistribution.mobile2024
        func opts(_ dist: PageDistribution, requests: Int, bytes: Int64, origins: Int, chain: Int = 0, site: String)
            -> ScenarioGenerator.Options
        {
            .init(
                name: rawValue, description: summary, distribution: dist, requests: requests, totalBytes: bytes,
                origins: origins, seed: seed, exactMix: true, scriptChain: chain, site: site)
        }
        switch self {
        case .mobileMedian:
            return opts(mobile, requests: 66, bytes: 2_311_000, origins: 8, site: "shop")
        case .desktopMedian:
            return opts(.desktop2024, requests: 71, bytes: 2_652_000, origins: 9, site: "shop")
        case .heavyP90:
            return opts(mobile, requests: 170, bytes: 170 * 2_311_000 / 66, origins: 16, site: "news")
        case .spaDeepChain:
            let d = mobile.with(
                name: "single-page app",
                medianCount: [.document: 1, .stylesheet: 2, .script: 14, .font: 2, .image: 12, .xhr: 8, .other: 1],
                medianBytes: [
                    .document: 4_000, .stylesheet: 60_000, .script: 1_100_000, .font: 80_000,
                    .image: 500_000, .xhr: 40_000, .other: 16_000,
                ])
            return opts(d, requests: 40, bytes: 1_800_000, origins: 4, chain: 7, site: "games")
        case .imageHeavy:
            let d = mobile.with(
                name: "image-heavy",
                medianCount: [.document: 2, .stylesheet: 6, .script: 15, .font: 3, .image: 84, .xhr: 6, .other: 4],
                medianBytes: [
                    .document: 30_000, .stylesheet: 70_000, .script: 500_000, .font: 110_000,
                    .image: 5_200_000, .xhr: 20_000, .other: 70_000,
                ])
            return opts(d, requests: 120, bytes: 6_000_000, origins: 7, site: "travel")
        case .apiSmallJSON:
            var d = mobile.with(
                name: "api-small-json",
                medianCount: [.document: 1, .stylesheet: 1, .script: 4, .font: 1, .image: 3, .xhr: 70, .other: 0],
                medianBytes: [
                    .document: 12_000, .stylesheet: 30_000, .script: 250_000, .font: 40_000,
                    .image: 40_000, .xhr: 150_000, .other: 0,
                ])
            d.sizeSpread[.xhr] = 0.5
            d.thirdPartyShare[.xhr] = 0.05
            return opts(d, requests: 80, bytes: 522_000, origins: 3, site: "bank")
        case .smallPage:
            return opts(mobile, requests: 12, bytes: 150_000, origins: 2, site: "blog")
        case .bulk10MBDownload, .bulk10MBUpload, .bulk100MBDownload, .bulk20MBDownload:
            return nil
        }
    }

    /// The preset's scenario.
    public func scenario(seed: UInt64 = 1) throws -> Scenario {
        switch self {
        case .bulk10MBDownload: return ScenarioGenerator.bulk(name: rawValue, direction: .download, bytes: 10_000_000)
        case .bulk10MBUpload: return ScenarioGenerator.bulk(name: rawValue, direction: .upload, bytes: 10_000_000)
        case .bulk100MBDownload: return ScenarioGenerator.bulk(name: rawValue, direction: .download, bytes: 100_000_000)
        case .bulk20MBDownload: return ScenarioGenerator.bulk(name: rawValue, direction: .download, bytes: 20_000_000)
        default: return try ScenarioGenerator(options(seed: seed)!).generate()
        }
    }
}
