#!/usr/bin/env bash
# HTTP/3 goodput through the emulator at rising link rates, beside HTTP/2 on the same links (issue 13):
# for each rate, a profile of RATE each way, the given round trip and a one-BDP queue; the bulk
# download scenario over h2 and h3 (netbench interleaves them run by run), then each transport's
# median goodput, its share of the link rate, the runs the emulator flagged as late, and the
# highest rate at which h3 (and, beside it, h2) still reaches --target of the link. The default ladder
# climbs to 1 Gbit/s; each line also gives the packet loop's median CPU share of a core (h2 and h3 runs
# together, from each run's emulator record).
#
#   scripts/bench-h3-rate.sh [--rates 100,200,400,600,800,1000] [--rtt 40ms] [--runs 3] [--target 0.9]
#                            [--scenario Scenarios/pages/bulk-100MB-download.json] [--netbench PATH]
#                            [--notebook FILE]
#   --notebook FILE  after a successful run, append an entry to FILE (here: results/notebook/http3-bulk.md):
#                    UTC date, git describe, machine, this command line and the printed output
#
# Needs root (network namespaces); build first (swift build -c release). Prints one line per rate.
set -euo pipefail
# shellcheck source=lib/notebook.sh
. "$(dirname "$0")/lib/notebook.sh"
notebook_wrap "$0" "$@"  # --notebook FILE: run again, keep the output, append a dated entry to FILE
here=$(cd "$(dirname "$0")/.." && pwd)
rates=100,200,400,600,800,1000 rtt=40ms runs=3 target=0.9
scenario="$here/Scenarios/pages/bulk-100MB-download.json"
netbench="$here/.build/release/netbench"
while [ $# -gt 0 ]; do
  case "$1" in
    --rates) rates=$2; shift 2 ;;
    --rtt) rtt=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --target) target=$2; shift 2 ;;
    --scenario) scenario=$2; shift 2 ;;
    --netbench) netbench=$2; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "bench-h3-rate: unknown option '$1' (try --help)" >&2; exit 64 ;;
  esac
done
[ -x "$netbench" ] || { echo "bench-h3-rate: $netbench is not built (swift build -c release)" >&2; exit 2; }
work=$(mktemp -d /tmp/netbench-bench-h3-rate.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "netbench $("$netbench" --version 2>/dev/null | head -1), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$(basename "$scenario"), RTT $rtt, one-BDP queue, $runs runs per transport and rate (+1 warm-up), median goodput"
printf '%-10s %-26s %-26s %s\n' "rate" "h2 Mbit/s (% of link, late)" "h3 Mbit/s (% of link, late)" "loop CPU"
best="" best2=""
for rate in ${rates//,/ }; do
  cat > "$work/rate-$rate.json" <<JSON
{ "schemaVersion": 1, "name": "rate-${rate}Mbit", "rtt": "$rtt", "down": "${rate}Mbit", "up": "${rate}Mbit", "queue": "bdp",
  "description": "bench-h3-rate: ${rate} Mbit/s each way, $rtt, one-BDP queue" }
JSON
  "$netbench" run "$scenario" --profile "$work/rate-$rate.json" --transport h2,h3 --runs "$runs" --warmup 1 \
    --out "$work/out-$rate" --quiet >/dev/null 2>"$work/err-$rate" || { echo "bench-h3-rate: run at $rate Mbit/s failed:" >&2; cat "$work/err-$rate" >&2; exit 2; }
  line=$(python3 - "$work/out-$rate/runs.jsonl" "$rate" "$target" <<'PY'
import json, statistics, sys
path, rate, target = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
by = {"h2": [], "h3": []}; late = {"h2": 0, "h3": 0}; cpu = []
for i, l in enumerate(open(path)):
    r = json.loads(l)
    if i == 0 or r.get("warmup") or r.get("transport") not in by: continue
    if r.get("status") == "ok" and r["metrics"].get("goodputMbps") is not None: by[r["transport"]].append(r["metrics"]["goodputMbps"])
    if (r.get("emulator") or {}).get("flagged"): late[r["transport"]] += 1
    if (r.get("emulator") or {}).get("loopCPUShare") is not None: cpu.append(r["emulator"]["loopCPUShare"])
cells, ok = [], {"h2": False, "h3": False}
for t in ("h2", "h3"):
    if by[t]:
        m = statistics.median(by[t]); cells.append(f"{m:7.1f} ({100*m/rate:5.1f}%, {late[t]}/{len(by[t])})")
        ok[t] = m >= target * rate
    else:
        cells.append("failed")
c = f"{100*statistics.median(cpu):.1f}%" if cpu else "unknown"
print(f"{int(rate):>4} Mbit  {cells[0]:<26} {cells[1]:<26} {c}", "OK" if ok["h2"] else "below", "OK" if ok["h3"] else "below")
PY
)
  text=${line% * *}; verdicts=${line#"$text "}
  echo "$text"
  [ "${verdicts#* }" = OK ] && best=$rate
  [ "${verdicts% *}" = OK ] && best2=$rate
done
pct=$(python3 -c "print(int($target*100))")
echo "highest rate where h3 reaches $pct% of the link: ${best:-none of those tried} ${best:+Mbit/s}" \
  "(h2: ${best2:-none of those tried}${best2:+ Mbit/s})"
