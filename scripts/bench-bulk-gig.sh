#!/usr/bin/env bash
# Bulk download through a 1 Gbit/s, 10 ms profile (issue 27), netbench beside curl <- nginx on the same
# emulated link, and both beside the bound TCP's slow start leaves on a fresh connection:
#   - netbench: `netbench run BULK.json --profile gig10.json -t h1,h2,h3`, goodput as results.json records
#     it (body bytes over first body byte -> last body byte at the client);
#   - the peer: Debian's curl (--http1.1, --http2, body to /dev/null) against Debian's nginx run in the
#     server namespace of `netbench shell gig10.json` (same emulator, same profile, cubic in both), goodput
#     = bytes over (time_total - time_starttransfer): also first byte -> last byte at the client;
#   - the bound: a sender that starts the body with 16 packets in flight (Linux's initial window of 10
#     segments, or RFC 9002's 14,520 bytes for QUIC, plus up to 6 packets of the handshake acknowledged
#     in slow start) and doubles its window every round trip (the most slow start allows; cubic's HyStart
#     only grows slower) until the link is full; every TCP packet carries 1448 payload bytes in 1500 on
#     the wire (IPv4 + TCP with timestamps) and TLS adds 22 bytes per 16 KB record; h3's packets are
#     1452-byte datagrams (+28 IPv4/UDP) with at least 22 bytes of QUIC in each. A larger initial window
#     moves it little (100 MB: 90.4% at 10 packets, 91.1% at 16, 93.2% at 64). "of bound" says how close
#     each client came.
# Sizes 100 MB and 1 GB by default: at 1 GB the ramp is 1/10 of the transfer, so what is left is the
# endpoints' and the emulator's own loss.
#
#   scripts/bench-bulk-gig.sh [--runs N] [--sizes BYTES,...] [--netbench PATH] [--notebook FILE]
#   --runs N         rounds (default 3): each round one netbench run per transport, then one curl per
#                    HTTP version in one shell session; medians are reported
#   --sizes LIST     body sizes in bytes (default 100000000,1000000000)
#   --notebook FILE  after a successful run, append an entry to FILE (here: results/notebook/gigabit.md)
#
# Needs root (namespaces), curl, nginx, openssl, python3 (scripts/bootstrap.sh --test); build first
# (swift build -c release). nginx runs in the foreground under the shell's --server-shell and is stopped
# with it; the served files live in a temporary directory on /dev/shm, removed at exit.
set -euo pipefail
# shellcheck source=lib/notebook.sh
. "$(dirname "$0")/lib/notebook.sh"
notebook_wrap "$0" "$@"  # --notebook FILE: run again, keep the output, append a dated entry to FILE
# shellcheck source=lib/peers.sh
. "$(dirname "$0")/lib/peers.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
runs=3
sizes=100000000,1000000000
netbench="$here/.build/release/netbench"
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --netbench) netbench=$2; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-bulk-gig.sh: unknown argument '$1' (see --help)" >&2; exit 64 ;;
  esac
done
case "$runs" in ''|*[!0-9]*) echo "bench-bulk-gig.sh: --runs takes a whole number" >&2; exit 64 ;; esac
case "$sizes" in ''|*[!0-9,]*) echo "bench-bulk-gig.sh: --sizes takes whole numbers, comma-separated" >&2; exit 64 ;; esac
[ -x "$netbench" ] || { echo "bench-bulk-gig.sh: $netbench is not built (swift build -c release)" >&2; exit 2; }
PATH="$PATH:/usr/sbin"
for tool in curl nginx openssl python3; do
  command -v "$tool" >/dev/null || { echo "bench-bulk-gig.sh: needs $tool (scripts/bootstrap.sh --test)" >&2; exit 2; }
done
shm=/dev/shm; [ -d "$shm" ] && [ -w "$shm" ] || shm=/tmp
work=$(mktemp -d "$shm/bench-bulk-gig.XXXXXX")
chmod 755 "$work"  # nginx's workers run as an unprivileged user
trap 'rm -rf "$work"' EXIT
port=8443

cat > "$work/gig10.json" <<JSON
{ "schemaVersion": 1, "name": "gig10", "down": "1Gbit", "up": "1Gbit", "rtt": "10ms", "queue": "bdp",
  "description": "bench-bulk-gig: 1 Gbit/s each way, 10 ms round trip, one-BDP drop-tail queue" }
JSON
peers_certificate
mkdir -p "$work/www"
printf x > "$work/www/one"
peers_nginx_conf "$port ssl http2" "$work/www"

echo "netbench $("$netbench" --version 2>/dev/null | head -1), nginx $(nginx -v 2>&1 | sed 's/.*\///'), $(curl --version | head -1 | cut -d' ' -f1-2), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "profile gig10: 1 Gbit/s each way, RTT 10 ms, one-BDP queue; $runs round(s) per size"
IFS=, read -r -a size_list <<< "$sizes"
for size in "${size_list[@]}"; do
  head -c "$size" /dev/urandom > "$work/www/big"
  python3 - "$here/Scenarios/pages/bulk-100MB-download.json" "$size" "$work/bulk.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["bulk"]["bytes"] = int(sys.argv[2]); d["name"] = "bulk-%s" % sys.argv[2]
json.dump(d, open(sys.argv[3], "w"))
PY
  for round in $(seq "$runs"); do
    out="$work/nb-$size-$round"
    "$netbench" run "$work/bulk.json" --profile "$work/gig10.json" -t h1,h2,h3 --runs 1 --warmup 0 \
      -o "$out" --quiet > "$work/netbench.log" 2>&1 || {
      echo "bench-bulk-gig.sh: netbench run failed:" >&2; tail -5 "$work/netbench.log" >&2; exit 2; }
    # The peer: wait until nginx answers (untimed 1-byte fetch), then one timed fetch per HTTP version.
    "$netbench" shell "$work/gig10.json" --server-shell "exec nginx -p $work/nginx -c $work/nginx/nginx.conf -e $work/nginx/error.log" -- \
      sh -c 'u=https://$NETBENCH_SERVER:'"$port"'
        for i in $(seq 100); do curl -sk -o /dev/null "$u/one" && break; sleep 0.1; done
        for v in --http1.1 --http2; do
          curl -sk $v -o /dev/null -w "$v %{http_version} %{size_download} %{time_starttransfer} %{time_total}\n" "$u/big"
        done' > "$work/curl-$size-$round.txt" 2> "$work/shell.err" || {
      echo "bench-bulk-gig.sh: netbench shell failed:" >&2; tail -5 "$work/shell.err" >&2; exit 2; }
  done
  python3 - "$work" "$size" "$runs" <<'PY'
import glob, json, statistics, sys
work, size, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rate, rtt = 1e9 / 8, 0.010  # bytes per second, seconds

def bound(payload_per_packet, wire_per_packet, iw_packets):
    """Goodput (fraction of the rate) of a sender that doubles its window each round trip from iw_packets,
    first body byte -> last body byte at the receiver."""
    packets = -(-size // payload_per_packet)
    ser = wire_per_packet / rate
    sent, cwnd, rounds, last = 0, iw_packets, 0, 0
    while sent < packets and cwnd * ser < rtt:
        last = min(cwnd, packets - sent); sent += last; cwnd *= 2; rounds += 1
    # Round k leaves at k round trips after the first byte; then the link stays full to the end.
    window = rounds * rtt + (packets - sent) * ser if sent < packets else (rounds - 1) * rtt + last * ser
    return size * 8 / window / 1e9

tcp = bound(1448 * 16384 // 16406, 1500, 16)
quic = bound(1452 - 22, 1480, 16)
rows = {"h1": [], "h2": [], "h3": [], "curl h1": [], "curl h2": []}
flagged = {"h1": 0, "h2": 0, "h3": 0}
for r in range(1, runs + 1):
    for run in json.load(open(f"{work}/nb-{size}-{r}/results.json"))["runs"]:
        t = run["transport"]
        if run["status"] != "ok":
            sys.exit(f"bench-bulk-gig.sh: netbench {t} run failed: {run.get('error')}")
        rows[t].append(run["metrics"]["goodputMbps"] / 1000)
        flagged[t] += 1 if (run.get("emulator") or {}).get("flagged") else 0
    for line in open(f"{work}/curl-{size}-{r}.txt"):
        flag, version, got, start, total = line.split()
        if int(got) != size:
            sys.exit(f"bench-bulk-gig.sh: curl {flag} got {got} of {size} bytes (HTTP {version})")
        rows["curl " + ("h1" if flag == "--http1.1" else "h2")].append(size * 8 / (float(total) - float(start)) / 1e9)
print(f"\n{size / 1e6:g} MB, goodput as % of 1 Gbit/s (first -> last body byte), median of {runs}"
      f" [min, max]; bound: {tcp:.1%} TCP, {quic:.1%} QUIC")
print("%-12s %-22s %-12s %s" % ("client", "goodput", "of bound", "flagged"))
for name, xs in rows.items():
    b = quic if name == "h3" else tcp
    m = statistics.median(xs)
    f = f"{flagged[name]}/{len(xs)}" if name in flagged else "-"
    print("%-12s %5.1f%% [%5.1f, %5.1f]   %5.1f%%       %s" % ("netbench " + name if name in flagged else name,
          100 * m, 100 * min(xs), 100 * max(xs), 100 * m / b, f))
PY
done
