#!/usr/bin/env bash
# Figures for the append-only results log (issue 13): a real run's records replicated into a
# synthetic runs.jsonl of N runs, then `netbench report` on it: wall time and peak memory.
# Usage: scripts/bench-results-log.sh [NETBENCH_BINARY] [N]   (default .build/debug/netbench 10000)
set -euo pipefail
bin=${1:-.build/debug/netbench}
n=${2:-10000}
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
/usr/bin/time -f "netbench report (html,csv,md): %e s wall, %M KB peak resident" "$bin" report "$work/big" --format html,csv,md >/dev/null
/usr/bin/time -f "netbench report --format json (results.json only): %e s wall, %M KB peak resident" "$bin" report "$work/big" --format json >/dev/null
