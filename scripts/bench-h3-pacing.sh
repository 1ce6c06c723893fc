#!/usr/bin/env bash
# Does batching (UDP GSO) change what the link emulator sees? HTTP/3 bulk transfers through the
# interop link (10 Mbit/s, 30 ms, 25-packet drop-tail queue), alternating NETBENCH_UDP_GSO=1 and
# =0 run by run, printing per direction the emulator's queue drops and the goodput side by side
# (medians). Needs root (network namespaces) and a release build.
#
#   scripts/bench-h3-pacing.sh [--runs N] [--bytes N] [--netbench PATH] [--notebook FILE]
#   --notebook FILE  after a successful run, append an entry to FILE (here: results/notebook/http3-bulk.md):
#                    UTC date, git describe, machine, this command line and the printed output
set -euo pipefail
# shellcheck source=lib/notebook.sh
. "$(dirname "$0")/lib/notebook.sh"
notebook_wrap "$0" "$@"  # --notebook FILE: run again, keep the output, append a dated entry to FILE

runs=5
bytes=10000000
netbench=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --bytes) bytes="$2"; shift 2 ;;
    --netbench) netbench="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-h3-pacing.sh: unknown argument '$1' (see --help)" >&2; exit 64 ;;
  esac
done
case "$runs$bytes" in *[!0-9]*) echo "bench-h3-pacing.sh: --runs and --bytes take whole numbers" >&2; exit 64 ;; esac
root="$(cd "$(dirname "$0")/.." && pwd)"
[ -n "$netbench" ] || netbench="$root/.build/release/netbench"
[ -x "$netbench" ] || { echo "bench-h3-pacing.sh: build first: swift build -c release (or pass --netbench PATH)" >&2; exit 64; }

work="$(mktemp -d /tmp/bench-h3-pacing.XXXXXX)"
trap 'rm -rf "$work"' EXIT
for dir in download upload; do
  cat > "$work/$dir.json" <<EOF
{"schemaVersion": 1, "name": "bulk-$dir", "origins": [{"id": "bulk", "host": "bulk.netbench.test"}],
 "resources": [], "bulk": {"direction": "$dir", "bytes": $bytes}}
EOF
done

: > "$work/rows"
for i in $(seq 1 "$runs"); do
  for dir in download upload; do
    order="1 0"; [ $((i % 2)) -eq 0 ] && order="0 1"
    for gso in $order; do
      rm -rf "$work/out"
      NETBENCH_UDP_GSO=$gso "$netbench" run "$work/$dir.json" --profile interop --transport h3 --runs 1 --warmup 0 \
        --seed "$i" --out "$work/out" --quiet > "$work/log" 2>&1 || { echo "bench-h3-pacing.sh: run failed:" >&2; tail -5 "$work/log" >&2; exit 2; }
      python3 - "$work/out/results.json" "$dir" "$gso" >> "$work/rows" <<'EOF' || exit 2
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
if run["status"] != "ok":
    sys.exit(f"bench-h3-pacing.sh: {sys.argv[2]} run failed: {run.get('error')}")
e = run.get("emulator") or {}
print(sys.argv[2], sys.argv[3], e.get("packetsDroppedQueue"), e.get("packetsForwarded"), run["metrics"].get("goodputMbps"))
EOF
    done
  done
done
python3 - "$work/rows" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
def med(dir, gso, col):
    vals = [float(r[col]) for r in rows if r[0] == dir and r[1] == gso and r[col] != "None"]
    return statistics.median(vals) if vals else float("nan")
print(f"{'h3 through interop (median)':32} {'GSO on':>10} {'GSO off':>10}")
for dir in ("download", "upload"):
    print(f"{dir + ': queue drops':32} {med(dir, '1', 2):>10.0f} {med(dir, '0', 2):>10.0f}")
    print(f"{dir + ': packets forwarded':32} {med(dir, '1', 3):>10.0f} {med(dir, '0', 3):>10.0f}")
    print(f"{dir + ': goodput (Mbit/s)':32} {med(dir, '1', 4):>10.2f} {med(dir, '0', 4):>10.2f}")
EOF
