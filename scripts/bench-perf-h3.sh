#!/usr/bin/env bash
# What HTTP/3 costs over raw QUIC: netbench's QUIC perf protocol (draft-banks-quic-performance-00, no
# HTTP/3) beside HTTP/3 on the same link, the same ngtcp2 engine and settings, in one run. Each round is
# one `netbench perf --compare-h3` (perf first, then an h3 GET of the same bytes from the in-process
# replay server); per link, the median goodput of each over the rounds and h3's share of perf's.
# Links: "loopback", or profile names / files (emulated: needs root).
#
#   scripts/bench-perf-h3.sh [--links loopback,Cable,4G] [--size 4MB] [--streams 1] [--runs 3]
#                            [--netbench PATH] [--notebook FILE]
#   --notebook FILE  after a successful run, append an entry to FILE (here: results/notebook/quic-perf.md):
#                    UTC date, git describe, machine, this command line and the printed output
#
# Build first (swift build -c release). Prints one line per link.
set -euo pipefail
# shellcheck source=lib/notebook.sh
. "$(dirname "$0")/lib/notebook.sh"
notebook_wrap "$0" "$@"  # --notebook FILE: run again, keep the output, append a dated entry to FILE
here=$(cd "$(dirname "$0")/.." && pwd)
links=loopback,Cable,4G size=4MB streams=1 runs=3
netbench="$here/.build/release/netbench"
while [ $# -gt 0 ]; do
  case "$1" in
    --links) links=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --streams) streams=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --netbench) netbench=$2; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "bench-perf-h3: unknown option '$1' (try --help)" >&2; exit 64 ;;
  esac
done
[ -x "$netbench" ] || { echo "bench-perf-h3: $netbench is not built (swift build -c release)" >&2; exit 2; }
work=$(mktemp -d /tmp/netbench-bench-perf-h3.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "netbench $("$netbench" --version 2>/dev/null | head -1), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$size download, $streams stream(s), $runs rounds per link (each: perf then h3), median goodput from handshake end"
printf '%-12s %-16s %-16s %s\n' "link" "perf Mbit/s" "h3 Mbit/s" "h3 / perf"
for link in ${links//,/ }; do
  profile=()
  [ "$link" = loopback ] || profile=(-p "$link")
  : > "$work/$link.jsonl"
  for _ in $(seq "$runs"); do
    "$netbench" perf "${profile[@]}" --download "$size" --streams "$streams" --compare-h3 --json \
      >> "$work/$link.jsonl" 2> "$work/err" || { echo "bench-perf-h3: $link failed:" >&2; cat "$work/err" >&2; exit 2; }
  done
  python3 - "$work/$link.jsonl" "$link" <<'PY'
import json, statistics, sys
path, link = sys.argv[1], sys.argv[2]
by = {"perf": [], "h3": []}
for l in open(path):
    r = json.loads(l)
    if not r.get("completed") or r.get("downloadMbps") is None:
        sys.exit(f"bench-perf-h3: {link}: an incomplete transfer: {l.strip()}")
    by[r["protocolName"]].append(r["downloadMbps"])
p, h = statistics.median(by["perf"]), statistics.median(by["h3"])
print("%-12s %-16s %-16s %s" % (link, "%.1f" % p, "%.1f" % h, "%.3f" % (h / p) if p > 0 else "unknown"))
PY
done
