/// The hosts generated pages talk to, all under the reserved `.test` TLD (RFC 2606): a first-party
/// site (`www.shop.test`, its static-asset and image hosts) and a catalog of third parties, each
/// serving the resource types such a service serves (a font service: CSS and fonts; an analytics
/// service: scripts, beacons and pixels).
struct OriginCatalog {
    typealias ResourceType = Scenario.ResourceType

    struct Entry: Hashable {
        var id: String
        var host: String
        var thirdParty: Bool
        var types: Set<ResourceType>
    }

    static let sites = ["shop", "news", "travel", "recipes", "sports", "bank", "blog", "games"]

    /// First-party hosts, in the order a growing site adds them.
    static func firstParty(site: String) -> [Entry] {
        [
            Entry(id: "www", host: "www.\(site).test", thirdParty: false, types: Set(ResourceType.allCases)),
            Entry(
                id: "static", host: "static.\(site).test", thirdParty: false,
                types: [.stylesheet, .script, .font, .image, .other]),
            Entry(id: "img", host: "img.\(site).test", thirdParty: false, types: [.image]),
        ]
    }

    /// Third parties, the most common kinds first (a page with two third parties has a tag
    /// manager and an analytics service, not a map tile server).
    static let thirdParties: [Entry] = [
        Entry(id: "tagmanager", host: "www.tagmanager.test", thirdParty: true, types: [.script]),
        Entry(id: "analytics", host: "analytics.tracker.test", thirdParty: true, types: [.script, .xhr, .image]),
        Entry(id: "fonts", host: "fonts.cdn.test", thirdParty: true, types: [.stylesheet, .font]),
        Entry(id: "ads", host: "ads.adnet.test", thirdParty: true, types: [.script, .document, .image, .xhr]),
        Entry(id: "jslib", host: "cdn.jslib.test", thirdParty: true, types: [.script, .stylesheet, .font]),
        Entry(id: "consent", host: "consent.cmp.test", thirdParty: true, types: [.script, .stylesheet, .xhr, .other]),
        Entry(id: "adcdn", host: "static.adnet-cdn.test", thirdParty: true, types: [.image, .script, .other]),
        Entry(
            id: "social", host: "widgets.social.test", thirdParty: true,
            types: [.script, .document, .image, .stylesheet]),
        Entry(id: "rum", host: "rum.metrics.test", thirdParty: true, types: [.script, .xhr]),
        Entry(
            id: "video", host: "player.video.test", thirdParty: true,
            types: [.document, .script, .image, .other, .stylesheet]),
        Entry(
            id: "chat", host: "widget.chat.test", thirdParty: true, types: [.script, .xhr, .stylesheet, .font, .image]),
        Entry(id: "reviews", host: "api.reviews.test", thirdParty: true, types: [.script, .xhr, .image]),
        Entry(id: "imgcdn", host: "images.imgcdn.test", thirdParty: true, types: [.image]),
        Entry(id: "experiments", host: "cdn.experiments.test", thirdParty: true, types: [.script, .xhr]),
        Entry(id: "maps", host: "maps.tiles.test", thirdParty: true, types: [.image, .script, .xhr]),
        Entry(id: "payments", host: "js.payments.test", thirdParty: true, types: [.script, .document, .xhr]),
        Entry(id: "retarget", host: "px.retarget.test", thirdParty: true, types: [.image, .script, .xhr]),
        Entry(id: "search", host: "cdn.search.test", thirdParty: true, types: [.script, .xhr, .stylesheet]),
    ]

    /// `count` third parties: the catalog in order, then generic vendors serving every type.
    static func thirdParties(count: Int) -> [Entry] {
        var out = Array(thirdParties.prefix(count))
        var n = 1
        while out.count < count {
            out.append(
                Entry(
                    id: "vendor\(n)", host: "cdn.vendor\(n).test", thirdParty: true, types: Set(ResourceType.allCases)))
            n += 1
        }
        return out
    }
}
