import Foundation

/// HAR 1.2 (`http://www.softwareishard.com/blog/har-12-spec/`) as Chrome, Firefox and WebPageTest
/// write it, decoded by hand so the differences between the tools are absorbed here:
///
/// - sizes and timings may be missing, `-1` ("not available"), fractional or (rarely) strings;
/// - Chrome adds `_initiator` (an object: `type`, `url`, `lineNumber`, `stack.callFrames[].url`,
///   `stack.parent`), `_resourceType` and `response._transferSize`;
/// - WebPageTest adds `_initiator` as a plain URL string (with `_initiator_type`);
/// - Firefox adds neither.
///
/// Required, as the spec says and every tool writes: `log.entries[]`, each with `startedDateTime`,
/// `request.url` and `response.status`. Anything else missing is tolerated.
struct HARArchive: Decodable {
    var log: Log

    struct Log: Decodable {
        var creator: Creator?
        var pages: [Page]?
        var entries: [Entry]
    }

    struct Creator: Decodable {
        var name: String?
        var version: String?
    }

    struct Page: Decodable {
        var id: String?
        var title: String?
        var startedDateTime: String?
        var pageTimings: PageTimings?

        enum CodingKeys: String, CodingKey { case id, title, startedDateTime, pageTimings }

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try? c.decodeIfPresent(String.self, forKey: .id)
            title = try? c.decodeIfPresent(String.self, forKey: .title)
            startedDateTime = try? c.decodeIfPresent(String.self, forKey: .startedDateTime)
            pageTimings = try? c.decodeIfPresent(PageTimings.self, forKey: .pageTimings)
        }
    }

    /// `onLoad`: ms from the page's start to the load event; -1 or absent: unknown.
    struct PageTimings: Decodable {
        var onLoad: Double?
        enum CodingKeys: String, CodingKey { case onLoad }
        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            onLoad = c.lenientDouble(.onLoad).flatMap { $0 >= 0 ? $0 : nil }
        }
    }

    struct Entry: Decodable {
        var pageref: String?
        var startedDateTime: String
        var time: Double?
        var request: Request
        var response: Response
        var timings: Timings?
        var initiator: Initiator?
        var resourceType: String?
        /// Chrome's fetch priority (`VeryHigh`, `High`, `Medium`, `Low`, `VeryLow`).
        var priority: String?
        /// Chrome's `_fromCache` (`"memory"`, `"disk"`; some tools write `true`): no network transfer.
        var fromCache: String?

        enum CodingKeys: String, CodingKey {
            case pageref, startedDateTime, time, request, response, timings
            case initiator = "_initiator", initiatorType = "_initiator_type", resourceType = "_resourceType"
            case priority = "_priority", fromCache = "_fromCache"
        }

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            pageref = try? c.decodeIfPresent(String.self, forKey: .pageref)
            startedDateTime = try c.decode(String.self, forKey: .startedDateTime)
            time = c.lenientDouble(.time)
            request = try c.decode(Request.self, forKey: .request)
            response = try c.decode(Response.self, forKey: .response)
            timings = try? c.decodeIfPresent(Timings.self, forKey: .timings)
            resourceType = try? c.decodeIfPresent(String.self, forKey: .resourceType)
            priority = try? c.decodeIfPresent(String.self, forKey: .priority)
            if let s = try? c.decodeIfPresent(String.self, forKey: .fromCache), !s.isEmpty {
                fromCache = s
            } else if (try? c.decodeIfPresent(Bool.self, forKey: .fromCache)) == true {
                fromCache = "true"
            }
            if let object = try? c.decodeIfPresent(Initiator.self, forKey: .initiator) {
                initiator = object
            } else if let url = try? c.decodeIfPresent(String.self, forKey: .initiator), !url.isEmpty {
                // WebPageTest: the initiator is a URL string, its kind in `_initiator_type`.
                initiator = Initiator(
                    type: (try? c.decodeIfPresent(String.self, forKey: .initiatorType)) ?? "parser", url: url,
                    stack: nil)
            }
        }
    }

    struct Request: Decodable {
        var method: String
        var url: String
        var bodySize: Double?
        var headers: [Header]?
        var postData: PostData?

        /// HAR 1.2 `postData`: the posted text and its MIME type (`params` are the same text, parsed).
        struct PostData: Decodable {
            var mimeType: String?
            var text: String?
        }

        enum CodingKeys: String, CodingKey { case method, url, bodySize, headers, postData }

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            method = (try? c.decodeIfPresent(String.self, forKey: .method)) ?? "GET"
            url = try c.decode(String.self, forKey: .url)
            bodySize = c.lenientDouble(.bodySize)
            headers = try? c.decodeIfPresent([Header].self, forKey: .headers)
            postData = try? c.decodeIfPresent(PostData.self, forKey: .postData)
        }
    }

    struct Response: Decodable {
        var status: Int
        var redirectURL: String?
        var bodySize: Double?
        var transferSize: Double?
        var content: Content?
        var headers: [Header]?
        /// Chrome: answered by a service worker (`_fetchedViaServiceWorker`, or a
        /// `_serviceWorkerResponseSource` such as `"cache-storage"` or `"network"`).
        var serviceWorker: String?

        enum CodingKeys: String, CodingKey {
            case status, redirectURL, bodySize, content, headers, transferSize = "_transferSize"
            case fetchedViaServiceWorker = "_fetchedViaServiceWorker", serviceWorkerSource =
                "_serviceWorkerResponseSource"
        }

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            guard let s = c.lenientDouble(.status) else {
                if c.contains(.status) {
                    throw DecodingError.typeMismatch(
                        Int.self,
                        .init(codingPath: c.codingPath + [CodingKeys.status], debugDescription: "expected a number"))
                }
                throw DecodingError.keyNotFound(
                    CodingKeys.status, .init(codingPath: c.codingPath, debugDescription: "missing"))
            }
            guard s >= 0, s < 1000 else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: c.codingPath + [CodingKeys.status],
                        debugDescription: "\(s) is not an HTTP status code"))
            }
            status = Int(s)
            redirectURL = try? c.decodeIfPresent(String.self, forKey: .redirectURL)
            bodySize = c.lenientDouble(.bodySize)
            transferSize = c.lenientDouble(.transferSize)
            content = try? c.decodeIfPresent(Content.self, forKey: .content)
            headers = try? c.decodeIfPresent([Header].self, forKey: .headers)
            if let s = try? c.decodeIfPresent(String.self, forKey: .serviceWorkerSource), !s.isEmpty {
                serviceWorker = s
            } else if (try? c.decodeIfPresent(Bool.self, forKey: .fetchedViaServiceWorker)) == true {
                serviceWorker = "fetched via service worker"
            }
        }

        /// `redirectURL`, or the `Location` header when a tool left `redirectURL` empty.
        var redirectTarget: String? {
            if let r = redirectURL, !r.isEmpty { return r }
            return headers?.first { $0.name.lowercased() == "location" }?.value
        }
    }

    struct Header: Decodable {
        var name: String
        var value: String
    }

    struct Content: Decodable {
        var size: Double?
        var mimeType: String?
        /// The body as recorded ("with content" exports): text, or base64 when `encoding` says so.
        var text: String?
        var encoding: String?

        enum CodingKeys: String, CodingKey { case size, mimeType, text, encoding }

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            size = c.lenientDouble(.size)
            mimeType = try? c.decodeIfPresent(String.self, forKey: .mimeType)
            text = try? c.decodeIfPresent(String.self, forKey: .text)
            encoding = try? c.decodeIfPresent(String.self, forKey: .encoding)
        }
    }

    /// Phase durations in ms; `-1` (not applicable) becomes nil and its name is kept.
    struct Timings: Decodable {
        var blocked, dns, connect, ssl, send, wait, receive: Double?
        /// The phases recorded as -1 (or any negative value): "not applicable" in HAR 1.2.
        var notApplicable: [String] = []

        enum CodingKeys: String, CodingKey { case blocked, dns, connect, ssl, send, wait, receive }

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            var negative: [String] = []
            func v(_ k: CodingKeys) -> Double? {
                guard let d = c.lenientDouble(k) else { return nil }
                if d < 0 { negative.append(k.stringValue); return nil }
                return d
            }
            blocked = v(.blocked); dns = v(.dns); connect = v(.connect); ssl = v(.ssl)
            send = v(.send); wait = v(.wait); receive = v(.receive)
            notApplicable = negative
        }

        /// Time from the request's start to the first response byte.
        var untilFirstByte: Double {
            // HAR 1.2: `ssl` is included in `connect`.
            [blocked, dns, connect, send, wait].reduce(0) { $0 + ($1 ?? 0) }
        }
        var total: Double { untilFirstByte + (receive ?? 0) }
    }

    /// Chrome's `_initiator`: who caused the request.
    struct Initiator: Decodable {
        var type: String?
        var url: String?
        var stack: Stack?

        init(type: String?, url: String?, stack: Stack?) { self.type = type; self.url = url; self.stack = stack }

        struct Stack: Decodable {
            var callFrames: [CallFrame]?
            var parent: Box?
        }
        struct CallFrame: Decodable { var url: String? }
        /// `Stack.parent` is itself a stack (async stacks); a class breaks the recursion.
        final class Box: Decodable {
            let stack: Stack
            init(from decoder: Decoder) throws { stack = try Stack(from: decoder) }
        }

        /// Script URLs on the stack, innermost first, async parents after.
        var stackURLs: [String] {
            var out: [String] = []
            var cur = stack
            var guardCount = 0
            while let s = cur, guardCount < 64 {
                out += (s.callFrames ?? []).compactMap { $0.url }.filter { !$0.isEmpty }
                cur = s.parent?.stack
                guardCount += 1
            }
            return out
        }
    }
}

extension KeyedDecodingContainer {
    /// A number, a numeric string, or nil (absent, null or anything else): the tools disagree.
    func lenientDouble(_ key: Key) -> Double? {
        if let d = try? decodeIfPresent(Double.self, forKey: key) { return d }
        if let s = try? decodeIfPresent(String.self, forKey: key) {
            return Double(s.trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
