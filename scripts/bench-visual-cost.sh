#!/usr/bin/env bash
# What `run --visual-metrics` costs the browser: the same cell loaded without and with frame capture,
# alternating blocks (without, with, without, with, …) so the machine's load moves both alike, and
# per client the median PLT of each arm beside the spread (p25–p75) within the arm: a difference
# smaller than the spread is within the cell's noise.
# Usage: scripts/bench-visual-cost.sh [--binary B] [--clients chromium,firefox] [--scenario FILE]
#        [--profile P] [--transport T] [--runs N] [--rounds R] [--notebook FILE]
#   defaults: .build/release/netbench if built, else .build/debug/netbench; chromium,firefox;
#   Scenarios/pages/small-page.json; loopback; h2; 3 runs per block; 3 rounds
#   --notebook FILE  append a dated entry (here: results/notebook/browser-fidelity.md)
set -euo pipefail
# shellcheck source=lib/notebook.sh
. "$(dirname "$0")/lib/notebook.sh"
notebook_wrap "$0" "$@"
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;; esac
bin=.build/debug/netbench
[ -x .build/release/netbench ] && bin=.build/release/netbench
clients=chromium,firefox scenario=Scenarios/pages/small-page.json profile=loopback transport=h2 runs=3 rounds=3
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) bin=$2; shift 2 ;;
        --clients) clients=$2; shift 2 ;;
        --scenario) scenario=$2; shift 2 ;;
        --profile) profile=$2; shift 2 ;;
        --transport) transport=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        *) echo "unknown argument: $1 (see --help)" >&2; exit 64 ;;
    esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "binary $bin; $scenario · $profile · $transport; clients $clients; $rounds rounds × $runs runs per arm"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (shared machine: figures vary)"
for round in $(seq "$rounds"); do
    for arm in off on; do
        extra=()
        [ "$arm" = on ] && extra=(--visual-metrics)
        "$bin" run "$scenario" --client "$clients" --profile "$profile" --transport "$transport" --runs "$runs" \
            --out "$work/$arm-$round" --quiet "${extra[@]}" || true
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work" "$rounds" <<'PY'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def q(xs, p):
    xs = sorted(xs); k = (len(xs) - 1) * p; f = int(k); c = min(f + 1, len(xs) - 1)
    return xs[f] + (xs[c] - xs[f]) * (k - f)
arms = {}
for arm in ("off", "on"):
    for r in range(1, rounds + 1):
        try:
            runs = json.load(open(f"{work}/{arm}-{r}/results.json"))["runs"]
        except OSError:
            continue
        for run in runs:
            if run.get("warmup"):
                continue
            key = (run.get("client", "builtin"), arm)
            a = arms.setdefault(key, {"plt": [], "failed": 0, "si": [], "frames": [], "gap": [], "err": []})
            m = run["metrics"]
            if run["status"] != "ok" or "pltMs" not in m:
                a["failed"] += 1
                a["err"].append("run failed: " + (run.get("error") or "no PLT")[:120])
                continue
            a["plt"].append(m["pltMs"])
            for k, name in (("si", "speedIndexMs"), ("frames", "visualFrames"), ("gap", "visualFrameGapMaxMs")):
                if name in m:
                    a[k].append(m[name])
            if "visualMetricsError" in m:
                a["err"].append("visual metrics missing: " + m["visualMetricsError"])
print(f"{'client':9} {'capture':8} {'n':>3} {'failed':>6} {'PLT median':>11} {'p25–p75':>16} "
      f"{'SI median':>10} {'frames':>7} {'max gap':>8}")
for client in sorted({k[0] for k in arms}):
    med = {}
    for arm in ("off", "on"):
        a = arms.get((client, arm))
        if not a or not a["plt"]:
            print(f"{client:9} {arm:8} no successful runs"); continue
        med[arm] = statistics.median(a["plt"])
        si = f"{statistics.median(a['si']):.0f}" if a["si"] else "–"
        fr = f"{statistics.median(a['frames']):.0f}" if a["frames"] else "–"
        gap = f"{max(a['gap']):.0f}" if a["gap"] else "–"
        print(f"{client:9} {arm:8} {len(a['plt']):3} {a['failed']:6} {med[arm]:9.0f}ms "
              f"{q(a['plt'], .25):7.0f}–{q(a['plt'], .75):.0f}ms {si:>10} {fr:>7} {gap:>8}")
        for e in sorted(set(a["err"])):
            print(f"    {e}")
    if "off" in med and "on" in med:
        print(f"{client:9} capture changes the median PLT by {med['on'] - med['off']:+.0f} ms "
              f"({(med['on'] / med['off'] - 1) * 100:+.1f}%)")
PY
