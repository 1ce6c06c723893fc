#!/usr/bin/env bash
# The bufferbloat study (issue 26): each bottleneck queue on each link, measured three ways:
#   1. responsiveness (RPM, draft-ietf-ippm-responsiveness) with the load saturating the download,
#      the upload and both directions (`netbench responsiveness --direction down,up,bidir`);
#   2. the mobile median page's PLT over h2 and h3, on an idle link and beside one competing TCP cubic
#      bulk download (the profile's `crossTraffic`, starting 2 s before the page);
#   3. fairness between one h3 (cubic) and one TCP (cubic) bulk flow sharing the bottleneck
#      (`netbench fairness --pairs h3:cubic/tcp:cubic`).
# Queues: drop-tail at 1 and 4 bandwidth-delay products (at least 30 packets, as the emulator's
# default) and at 1 s of the direction's rate, CoDel, FQ-CoDel and PIE (Linux defaults; the endpoints
# do not ask for ECN, so the AQMs drop). Links: Cable, LTE and WiFi (their rates and RTTs, their
# queues replaced).
#
#   scripts/study-bufferbloat.sh [--profiles Cable,LTE,WiFi] [--queues bdp,4bdp,1s,codel,fq_codel,pie]
#                                [--transports h2,h3] [--runs 3] [--rpm-transport h2] [--fairness 20s]
#                                [--out DIR] [--netbench PATH] [--notebook FILE]
#   --out DIR        where every part's raw output goes (default: a new directory under /tmp); a part
#                    whose output is already there is not run again, so an interrupted study resumes
#   --notebook FILE  after a successful run, append an entry to FILE (here: results/notebook/bufferbloat.md)
#
# Needs root (network namespaces); build first (swift build -c release). Prints three tables.
set -euo pipefail
# shellcheck source=lib/notebook.sh
. "$(dirname "$0")/lib/notebook.sh"
notebook_wrap "$0" "$@"  # --notebook FILE: run again, keep the output, append a dated entry to FILE
here=$(cd "$(dirname "$0")/.." && pwd)
profiles=Cable,LTE,WiFi queues=bdp,4bdp,1s,codel,fq_codel,pie transports=h2,h3 runs=3 rpm_transport=h2
fairness=20s out="" netbench="$here/.build/release/netbench"
while [ $# -gt 0 ]; do
  case "$1" in
    --profiles) profiles=$2; shift 2 ;;
    --queues) queues=$2; shift 2 ;;
    --transports) transports=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --rpm-transport) rpm_transport=$2; shift 2 ;;
    --fairness) fairness=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --netbench) netbench=$2; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "study-bufferbloat: unknown option '$1' (try --help)" >&2; exit 64 ;;
  esac
done
[ -x "$netbench" ] || { echo "study-bufferbloat: $netbench is not built (swift build -c release)" >&2; exit 2; }
[ -n "$out" ] || out=$(mktemp -d /tmp/netbench-bufferbloat.XXXXXX)
mkdir -p "$out/profiles"
echo "netbench $("$netbench" --version 2>/dev/null | head -1), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "raw output: $out"

# The study's profiles: BASE-QUEUE (idle) and BASE-QUEUE-load (one competing TCP cubic download).
python3 - "$here/Scenarios/profiles" "$out/profiles" "$profiles" "$queues" <<'PY'
import json, re, sys
src, dst, bases, queues = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4].split(",")
def bps(v):
    m = re.fullmatch(r"([0-9.]+)\s*([kKmMgG]?)bit", v)
    return float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2).lower()]
def secs(v):
    m = re.fullmatch(r"([0-9.]+)\s*(ms|s)", v)
    return float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)
for base in bases:
    p = json.load(open(f"{src}/{base}.json"))
    down, up, rtt = bps(p["down"]), bps(p["up"]), secs(p["rtt"])
    for q in queues:
        v = {k: p[k] for k in ("schemaVersion", "down", "up", "rtt")}
        v["name"] = f"{base}-{q}"
        v.pop("queue", None)
        m = re.fullmatch(r"([0-9]*)bdp", q)
        if m or re.fullmatch(r"[0-9.]+m?s", q):
            drain = lambda rate: (int(m.group(1) or 1) * rate * rtt if m else rate * secs(q)) / 8
            v["downQueue"] = "%dB" % max(45000, round(drain(down)))
            v["upQueue"] = "%dB" % max(45000, round(drain(up)))
            what = "drop-tail %s (at least 30 packets)" % q
        else:
            v["queue"] = {"discipline": q}
            what = q + " (Linux defaults)"
        v["description"] = f"bufferbloat study: {base} ({p['down']}/{p['up']}, {p['rtt']}) with {what}"
        json.dump(v, open(f"{dst}/{base}-{q}.json", "w"), indent=1)
        v = dict(v, name=f"{base}-{q}-load", description=v["description"] + ", one TCP cubic download competing")
        v["crossTraffic"] = [{"name": "bulk", "transport": "h2", "congestionControl": "cubic"}]
        json.dump(v, open(f"{dst}/{base}-{q}-load.json", "w"), indent=1)
PY

for base in ${profiles//,/ }; do
  # 1. RPM, all queues of this link in one run of `responsiveness`.
  if [ ! -s "$out/rpm-$base.json" ]; then
    echo "== $base: responsiveness, queues $queues, down/up/bidir over $rpm_transport" >&2
    "$netbench" responsiveness --profile "$here/Scenarios/profiles/$base.json" --queue "$queues" \
      --direction down,up,bidir -t "$rpm_transport" -o "$out/rpm-$base.part.json" >"$out/rpm-$base.txt"
    mv "$out/rpm-$base.part.json" "$out/rpm-$base.json"
  fi
  # 2. PLT, idle and loaded, every queue, interleaved by netbench.
  if [ ! -s "$out/plt-$base/results.json" ]; then
    list=""
    for q in ${queues//,/ }; do list+="$out/profiles/$base-$q.json,$out/profiles/$base-$q-load.json,"; done
    echo "== $base: PLT of mobile-median over $transports, $runs runs + 1 warm-up, idle and loaded" >&2
    "$netbench" run "$here/Scenarios/pages/mobile-median.json" --profile "${list%,}" -t "$transports" \
      --runs "$runs" --warmup 1 --out "$out/plt-$base" --quiet >/dev/null 2>"$out/plt-$base.err" || {
      echo "study-bufferbloat: PLT on $base failed:" >&2; tail -5 "$out/plt-$base.err" >&2; exit 2; }
  fi
  # 3. Fairness of h3 against TCP, every queue.
  if [ ! -s "$out/fairness-$base.json" ]; then
    list=""
    for q in ${queues//,/ }; do list+="$out/profiles/$base-$q.json,"; done
    echo "== $base: fairness h3:cubic/tcp:cubic, $fairness per queue" >&2
    "$netbench" fairness --profile "${list%,}" --pairs h3:cubic/tcp:cubic --duration "$fairness" --runs 1 \
      -o "$out/fairness-$base.part.json" >"$out/fairness-$base.txt"
    mv "$out/fairness-$base.part.json" "$out/fairness-$base.json"
  fi
done

python3 - "$out" "$profiles" "$queues" <<'PY'
import json, statistics, sys
out, bases, queues = sys.argv[1], sys.argv[2].split(","), sys.argv[3].split(",")
r0 = lambda v: "%.0f" % v if v is not None else "?"
print("\nRPM under load (foreign/self), per queue and what the load saturates (bidir: parallel)")
for base in bases:
    cells = json.load(open(f"{out}/rpm-{base}.json"))
    # responsiveness names the queues its own way (1s: "1000 ms"), in the order they were given.
    labels = list(dict.fromkeys(c["queue"] for c in cells))
    name = dict(zip(labels, queues))
    print("%-9s %-22s %-22s %-22s %s" % (base, "download", "upload", "both", "idle RPM"))
    for q in queues:
        row, idle = {}, None
        for c in cells:
            if name.get(c["queue"]) != q or c.get("error"): continue
            if c["direction"] == "bidir" and c.get("mode", "parallel") != "parallel": continue
            for ph in c["loaded"]:
                row[c["direction"]] = "%s (%s/%s)" % (r0(ph.get("rpm")), r0(ph.get("foreignRPM")), r0(ph.get("selfRPM")))
            if c.get("idle"): idle = c["idle"].get("rpm")
        print("  %-8s %-22s %-22s %-22s %s" % (q, row.get("down", "?"), row.get("up", "?"), row.get("bidir", "?"), r0(idle)))
print("\nMobile median page, median PLT in ms: idle / beside one TCP cubic download")
for base in bases:
    med = {}
    for line in open(f"{out}/plt-{base}/runs.jsonl"):
        r = json.loads(line)
        if r.get("warmup") or r.get("status") != "ok": continue
        med.setdefault((r["profile"], r["transport"]), []).append(r["metrics"]["pltMs"])
    ts = sorted({t for _, t in med})
    print("%-9s " % base + "  ".join("%-17s" % t for t in ts) + "  h3/h2 idle, load")
    for q in queues:
        cells, m = [], {}
        for t in ts:
            for kind, name in (("idle", f"{base}-{q}"), ("load", f"{base}-{q}-load")):
                xs = med.get((name, t)); m[(t, kind)] = statistics.median(xs) if xs else None
            cells.append("%-17s" % (r0(m[(t, "idle")]) + " / " + r0(m[(t, "load")])))
        ratio = lambda k: "%.3f" % (m[("h3", k)] / m[("h2", k)]) if m.get(("h3", k)) and m.get(("h2", k)) else "?"
        print("  %-8s " % q + "  ".join(cells) + "  %s, %s" % (ratio("idle"), ratio("load")))
print("\nOne h3 (cubic) and one TCP (cubic) bulk flow: h3's share of their bytes, Jain's index, Mbit/s together")
for base in bases:
    entries = json.load(open(f"{out}/fairness-{base}.json"))
    print(base)
    for q in queues:
        es = [e for e in entries if e["profile"] == f"{base}-{q}" and e.get("crossTraffic")]
        if not es: print("  %-8s (no run)" % q); continue
        ct = es[0]["crossTraffic"]
        h3 = next((f for f in ct["flows"] if f["transport"] == "h3"), None)
        total = sum(f.get("goodputMbps") or 0 for f in ct["flows"])
        print("  %-8s h3 share %s, Jain %s, %.2f Mbit/s" % (q, "%.1f%%" % (100 * h3["share"]) if h3 and h3.get("share") is not None else "?",
              "%.3f" % ct["jainIndex"] if ct.get("jainIndex") is not None else "?", total))
PY
