import BenchCore

extension Scenario.Resource {
    /// The priority Chromium gives the resource as `PageRenderer` presents it to a browser
    /// (Blink's `ResourceFetcher::ComputeLoadPriority`, mapped to `net::RequestPriority`): the
    /// document, stylesheets that block rendering and fonts "VeryHigh" → highest; parser-blocking
    /// scripts, fetches and preloads "High" → medium; async scripts (also every script another
    /// script inserts) and images "Low" → lowest; a stylesheet that does not block rendering is
    /// rendered `media="print"` and swapped on load, "VeryLow" → idle. Chrome's boost of the first five
    /// images that are not small to "Medium" depends on the page's other images: the built-in client's
    /// `DispatchPolicy.boostedImages` applies it. Left out: the re-prioritisation of images in the
    /// viewport after layout.
    public func chromiumPriority(parent: Scenario.Resource?) -> RequestPriority {
        switch type {
        case .document, .font: return .highest
        case .stylesheet: return renderBlocking == false ? .idle : .highest
        case .script: return renderBlocking == true && parent?.type != .script ? .medium : .lowest
        case .xhr, .other: return .medium
        case .image: return .lowest
        }
    }
}

extension Scenario.Resource {
    /// Whether Chromium asks for the resource as incremental (RFC 9218 `i`: a server may interleave
    /// it with other responses of the same urgency instead of sending them one after another; sent
    /// over HTTP/3 only). Blink's `ShouldLoadIncremental`: stylesheets, scripts and fonts are used
    /// whole and are not; images and fetches are; the browser asks for documents as incremental
    /// too. Read off Chromium 156's HTTP/3 requests to the replay server for the mobile median page
    /// (2026-11-29): `u=0, i` for the document and the frame's, `u=2, i` or `i` for images, `u=1, i`
    /// for fetches, the manifest, favicons and the service worker's script (all `other` or `xhr`
    /// here), and no `i` on any stylesheet, script or font.
    public var chromiumIncremental: Bool {
        switch type {
        case .stylesheet, .script, .font: return false
        case .document, .image, .xhr, .other: return true
        }
    }
}

extension Scenario.ResourceType {
    /// The `content-type` the replay server sends with a generated body of this type.
    public var defaultContentType: String {
        switch self {
        case .document: return "text/html; charset=utf-8"
        case .stylesheet: return "text/css"
        case .script: return "text/javascript"
        case .font: return "font/woff2"
        case .image: return "image/webp"
        case .xhr: return "application/json"
        case .other: return "application/octet-stream"
        }
    }
}
