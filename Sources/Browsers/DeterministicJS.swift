import Foundation
import BenchModel

/// A recorded page's JavaScript made deterministic on replay, as Web Page Replay's `deterministic.js`
/// does: a script evaluated in every document before the page's own (DevTools
/// `Page.addScriptToEvaluateOnNewDocument`) replaces
///
/// - `Date`: `Date.now()`, `new Date()` and `Date()` read the recording's start (`Scenario.recordedAt`)
///   at the moment of navigation and advance with real elapsed time from there (the offset is fixed per
///   run, so every frame of the page shares one clock); `new Date(x)`, `Date.parse` and `Date.UTC` are
///   unchanged, and `instanceof Date` still holds;
/// - `Math.random()`: mulberry32 seeded with `seed`, restarted in every document, so the same page
///   makes the same choices in every replay (WPR uses one fixed seed; here it is the run's `--seed`).
///
/// `performance.now()`, `crypto.getRandomValues` and workers are left alone.
struct DeterministicJS: Equatable {
    /// Epoch ms the page's `Date` reads at navigation; nil: `Date` is left alone.
    var dateStartMs: Double?
    var seed: UInt32

    /// The script for a navigation starting at `navigationMs` (epoch ms, this machine's clock).
    func source(navigationMs: Double) -> String {
        var js = """
            (function () {
              var s = \(seed) >>> 0;
              Math.random = function () {
                s = (s + 0x6D2B79F5) >>> 0; var t = s;
                t = Math.imul(t ^ (t >>> 15), t | 1);
                t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
                return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
              };

            """
        if let start = dateStartMs {
            js += """
                  var RealDate = Date, realNow = Date.now, offset = \(Self.number(start - navigationMs));
                  function now() { return realNow.call(RealDate) + offset; }
                  function NetbenchDate() {
                    if (!new.target) { return new RealDate(now()).toString(); }
                    var args = arguments.length ? Array.prototype.slice.call(arguments) : [now()];
                    return Reflect.construct(RealDate, args, new.target);
                  }
                  NetbenchDate.prototype = RealDate.prototype;
                  NetbenchDate.now = now;
                  NetbenchDate.parse = RealDate.parse;
                  NetbenchDate.UTC = RealDate.UTC;
                  Object.defineProperty(RealDate.prototype, "constructor", {value: NetbenchDate, writable: true,
                    configurable: true});
                  Date = NetbenchDate;

                """
        }
        return js + "})();\n"
    }

    /// What a run records of it.
    func record(
        dateStart: String?,
        mechanism: String = "DevTools Page.addScriptToEvaluateOnNewDocument before the page's scripts"
    ) -> DeterministicJSRecord {
        DeterministicJSRecord(
            dateStart: dateStartMs == nil ? nil : dateStart, randomSeed: seed,
            mechanism: mechanism + ": Math.random mulberry32(seed) per document"
                + (dateStartMs == nil ? "; Date unchanged (no recordedAt)" : "; Date from dateStart at navigation"))
    }

    /// A JavaScript number literal (integral ms, no exponent).
    static func number(_ v: Double) -> String { String(Int64(v.rounded())) }

    /// The deterministic script of a run: on a recorded page (every body recorded) with a seed.
    static func forRun(scenario: Scenario, completion: PageCompletion, seed: UInt32?) -> DeterministicJS? {
        guard let seed, completion.isRealPage else { return nil }
        return DeterministicJS(dateStartMs: scenario.recordedAtMs, seed: seed)
    }
}
