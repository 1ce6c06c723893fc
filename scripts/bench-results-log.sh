#!/usr/bin/env bash
# Figures for the append-only results log (issue 13): a real run's records replicated into a
# synthetic runs.jsonl of N runs, then `netbench report` on it: wall time and peak memory.
# Usage: scripts/bench-results-log.sh [NETBENCH_BINARY] [N] [OTHER_BINARY] [--notebook FILE]
#   (default .build/release/netbench if built, else .build/debug/netbench; N 10000)
#   --notebook FILE  after a successful run, append an entry to FILE (here: results/notebook/results-log.md):
#                    UTC date, git describe, machine, this command line and the printed output
# With OTHER_BINARY (e.g. the previous commit's build), both report the same log, alternating, 3 times
# each, side by side: the machine's load moves both alike.
set -euo pipefail
# shellcheck source=lib/notebook.sh
. "$(dirname "$0")/lib/notebook.sh"
notebook_wrap "$0" "$@"  # --notebook FILE: run again, keep the output, append a dated entry to FILE
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;; esac
default=.build/debug/netbench
[ -x .build/release/netbench ] && default=.build/release/netbench
bin=${1:-$default}
n=${2:-10000}
other=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One real run per transport of the mobile median page on loopback: the records to replicate.
"$bin" run Scenarios/pages/mobile-median.json --transport h1,h2,h3 --runs 1 --out "$work/seed" --quiet
python3 - "$work/seed/runs.jsonl" "$work/big/runs.jsonl" "$n" <<'PY'
import json, os, random, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(src).read().splitlines()
header, records = lines[0], [json.loads(l) for l in lines[1:]]
os.makedirs(os.path.dirname(dst), exist_ok=True)
rnd = random.Random(1)
with open(dst, "w") as f:
    f.write(header + "\n")
    for i in range(n):
        r = dict(records[i % len(records)])
        r["index"] = i // len(records)
        r["metrics"] = dict(r["metrics"], pltMs=r["metrics"]["pltMs"] * rnd.uniform(0.9, 1.1))
        f.write(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n")
PY
size=$(stat -c %s "$work/big/runs.jsonl")
echo "runs.jsonl: $n runs, $size bytes ($((size / n)) bytes per run)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (figures from a busy machine vary)"
timed() { # LABEL BINARY ARGS...
    local label=$1 b=$2; shift 2
    /usr/bin/time -f "%e s wall, %U s user, %M KB peak resident" -o "$work/time" "$b" "$@" >/dev/null
    printf '%-44s %s\n' "$label" "$(cat "$work/time")"
}
rounds=1
[ -n "$other" ] && rounds=3
for round in $(seq "$rounds"); do
    timed "report html,csv,md  $bin" "$bin" report "$work/big" --format html,csv,md --out "$work/a"
    [ -n "$other" ] && timed "report html,csv,md  $other" "$other" report "$work/big" --format html,csv,md --out "$work/b"
done
[ -n "$other" ] && for f in report.html summary.csv runs.csv summary.md; do
    cmp -s "$work/a/$f" "$work/b/$f" && echo "same bytes: $f" || echo "DIFFERENT: $f"
done
timed "report json (results.json)  $bin" "$bin" report "$work/big" --format json --out "$work/a"
[ -n "$other" ] && timed "report json (results.json)  $other" "$other" report "$work/big" --format json --out "$work/b"
[ -n "$other" ] && { cmp -s "$work/a/results.json" "$work/b/results.json" && echo "same bytes: results.json" || echo "DIFFERENT: results.json"; }
true
