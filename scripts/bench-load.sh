#!/usr/bin/env bash
# netbench load beside h2load (nghttp2-client), one run, measured alike (issue 28):
#   1. Closed model, the same -c/-m, the same duration, against nghttpd (HTTP/2) and nginx (HTTP/1.1,
#      h2load --h1): requests per second and each generator's CPU per request (bash `time`: user + sys
#      of the whole process, TLS handshakes included).
#   2. The stall demonstration: nghttpd stopped (SIGSTOP) for --stall seconds, --stall-at seconds into a
#      --stall-duration run; netbench load --rate (open model, latency from each request's intended send
#      time), netbench load closed model and h2load closed model (its --log-file: per-request time from
#      send to end) each over the same stall. Percentiles of each tool's own per-request latencies.
#   3. h3 through an emulated link (100 Mbit/s both ways, 20 ms RTT, one-BDP drop-tail queue; root):
#      netbench load -t h3 -p LINK --rate 50% and 90% of the link's capacity for --profile-body-byte
#      responses (capacity = 100 Mbit/s / body bits), each for --profile-duration seconds; its latency
#      percentiles beside the link's ideal (RTT + the body's serialization at 100 Mbit/s), the downlink
#      bytes per response the emulator forwarded. No other tool loads h3 through an emulated link: no peer.
#   4. --soak SECONDS (this part alone): netbench load --rate --soak-rate/s over HTTP/2 against nghttpd
#      for SECONDS; the generator's resident memory (VmRSS of /proc/PID/status) every --soak-every
#      seconds, the first and last samples side by side (flat memory: HDR histograms, not samples).
#
# --pairs N repeats part 1 N times, netbench first in odd pairs and h2load first in even ones, and
# prints each pair and the medians (so drift on a shared machine hits both alike).
#
#   scripts/bench-load.sh [--duration 5] [--clients 10] [--streams 10] [--body 1024] [--pairs 1]
#                         [--rate 1000] [--stall 1] [--stall-at 4] [--stall-duration 10]
#                         [--profile-body 10000] [--profile-duration 10] [--profile-shares "50 90"]
#                         [--soak SECONDS] [--soak-rate 20000] [--soak-every 30]
#                         [--netbench .build/release/netbench] [--only closed|stall|profile] [--notebook FILE]
#   --notebook FILE  after a successful run, append an entry to FILE (results/notebook/load.md):
#                    UTC date, git describe, machine, this command line and the printed output
#
# Needs h2load, nghttpd, nginx and openssl (scripts/bootstrap.sh --test); part 3 needs root (without it,
# its figures print as unknown). Exit 2 when a server does not start or a tool's requests all fail.
set -euo pipefail
# shellcheck source=lib/notebook.sh
. "$(dirname "$0")/lib/notebook.sh"
# shellcheck source=lib/peers.sh
. "$(dirname "$0")/lib/peers.sh"
notebook_wrap "$0" "$@"

duration=5 clients=10 streams=10 body=1024 rate=1000 stall=1 stall_at=4 stall_duration=10 only=""
profile_body=10000 profile_duration=10 profile_shares="50 90" pairs=1 soak="" soak_rate=20000 soak_every=30
here=$(cd "$(dirname "$0")/.." && pwd)
netbench="$here/.build/release/netbench"
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --streams) streams=$2; shift 2 ;;
    --body) body=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --stall) stall=$2; shift 2 ;;
    --stall-at) stall_at=$2; shift 2 ;;
    --stall-duration) stall_duration=$2; shift 2 ;;
    --netbench) netbench=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --profile-body) profile_body=$2; shift 2 ;;
    --profile-duration) profile_duration=$2; shift 2 ;;
    --profile-shares) profile_shares=$2; shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    --soak) soak=$2; only=soak; shift 2 ;;
    --soak-rate) soak_rate=$2; shift 2 ;;
    --soak-every) soak_every=$2; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "bench-load: unknown option '$1' (try --help)" >&2; exit 64 ;;
  esac
done
for tool in h2load nghttpd nginx openssl; do
  [ "$only" = profile ] && break
  [ "$only" = soak ] && [ "$tool" != nghttpd ] && [ "$tool" != openssl ] && continue
  command -v "$tool" >/dev/null || { echo "bench-load: $tool is missing (scripts/bootstrap.sh --test)" >&2; exit 2; }
done
[ -x "$netbench" ] || { echo "bench-load: $netbench is not built (swift build -c release)" >&2; exit 2; }

work=$(mktemp -d /tmp/netbench-bench-load.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true; rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/htdocs"
chmod 755 "$work" "$work/htdocs"  # nginx workers run as an unprivileged user
head -c "$body" /dev/zero | tr '\0' 'x' > "$work/htdocs/body"
chmod 644 "$work/htdocs/body"
[ "$only" = profile ] || peers_certificate


# Runs "$@", its output to $work/out, its CPU (user + sys seconds) to $cpu.
timed() {
  local TIMEFORMAT='%U %S'
  { time "$@" > "$work/out" 2>&1; } 2> "$work/time" || true
  cpu=$(awk '{print $1 + $2}' "$work/time")
}

per_request_us() { awk -v c="$1" -v n="$2" 'BEGIN { if (n > 0) printf "%.1f", c * 1e6 / n; else print "unknown" }'; }

# h2load: req/s and succeeded count from its summary.
h2load_closed() {
  timed h2load -D "$duration" -c "$clients" -m "$2" $1 "https://127.0.0.1:$port/body"
  h2_ok=$(sed -n 's/^requests: .* \([0-9]*\) succeeded.*/\1/p' "$work/out")
  h2_rate=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' "$work/out")
  h2_cpu=$cpu
  [ "${h2_ok:-0}" -gt 0 ] || { echo "bench-load: h2load: no request succeeded" >&2; cat "$work/out" >&2; exit 2; }
}
netbench_closed() {
  timed "$netbench" load "https://localhost:$port/body" --ca "$work/cert.pem" -t "$1" -c "$clients" -m "$2" \
    --duration "${duration}s"
  nb_ok=$(sed -n 's/^  achieved .*(\([0-9]*\) ok of.*/\1/p' "$work/out")
  nb_rate=$(sed -n 's/^  achieved \([0-9.]*\) req\/s.*/\1/p' "$work/out")
  nb_cpu=$cpu
  [ "${nb_ok:-0}" -gt 0 ] || { echo "bench-load: netbench load: no request succeeded" >&2; cat "$work/out" >&2; exit 2; }
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "unknown" }'; }

closed_pair() {  # $1 label, $2 netbench transport, $3 h2load options, $4 streams
  local i nb_rates=() h2_rates=() nb_us=() h2_us=()
  echo "$1: closed model, -c $clients -m $4, ${duration} s, $body-byte body, $pairs alternating pair(s)"
  printf '  %-5s %-10s %14s %12s %16s\n' pair tool "req/s" "requests" "CPU µs/request"
  for i in $(seq "$pairs"); do
    if [ $((i % 2)) = 1 ]; then netbench_closed "$2" "$4"; h2load_closed "$3" "$4"
    else h2load_closed "$3" "$4"; netbench_closed "$2" "$4"; fi
    nb_rates+=("$nb_rate"); h2_rates+=("$h2_rate")
    nb_us+=("$(per_request_us "$nb_cpu" "$nb_ok")"); h2_us+=("$(per_request_us "$h2_cpu" "$h2_ok")")
    printf '  %-5s %-10s %14s %12s %16s\n' "$i" netbench "$nb_rate" "$nb_ok" "${nb_us[-1]}"
    printf '  %-5s %-10s %14s %12s %16s\n' "$i" h2load "$h2_rate" "$h2_ok" "${h2_us[-1]}"
  done
  local mn mh
  mn=$(printf '%s\n' "${nb_rates[@]}" | median); mh=$(printf '%s\n' "${h2_rates[@]}" | median)
  if [ "$pairs" -gt 1 ]; then
    printf '  %-5s %-10s %14s %12s %16s\n' median netbench "$mn" "" "$(printf '%s\n' "${nb_us[@]}" | median)"
    printf '  %-5s %-10s %14s %12s %16s\n' median h2load "$mh" "" "$(printf '%s\n' "${h2_us[@]}" | median)"
  fi
  echo "  netbench / h2load req/s = $(ratio "$mn" "$mh")"
  echo
}

# The generator's VmRSS in kB (empty, not a failure, once it has exited: set -e).
rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2>/dev/null || true; }

# Part 4: netbench load at a fixed rate for $soak s, its RSS every $soak_every s.
soak_run() {
  start_nghttpd
  echo "Soak: netbench load -t h2 --rate $soak_rate/s for $soak s against nghttpd, -c $clients -m $streams,"
  echo "$body-byte body; the generator's VmRSS every $soak_every s"
  "$netbench" load "https://localhost:$port/body" --ca "$work/cert.pem" -t h2 --rate "$soak_rate/s" \
    --duration "${soak}s" -c "$clients" -m "$streams" > "$work/out" 2>&1 &
  local gen=$! started=$SECONDS next=$soak_every first="" last="" now kb
  pids+=("$gen")
  printf '  %8s %12s %14s\n' elapsed "VmRSS" "load average"
  while kill -0 "$gen" 2>/dev/null; do
    sleep 1
    now=$((SECONDS - started))
    [ "$now" -ge "$next" ] || continue
    next=$((next + soak_every))
    kb=$(rss_kb "$gen")
    [ -n "$kb" ] || break
    [ -n "$first" ] || first="$now $kb"
    last="$now $kb"
    printf '  %7ss %9s kB %14s\n' "$now" "$kb" "$(cut -d' ' -f1-3 /proc/loadavg)"
  done
  wait "$gen" || { echo "bench-load: netbench load (soak) failed" >&2; cat "$work/out" >&2; exit 2; }
  sed -n 's/^  \(achieved\|latency\|BEHIND\|errors\)/  \1/p' "$work/out"
  if [ -z "$first" ]; then echo "  VmRSS: unknown (the run ended before the first sample)"; return; fi
  set -- $first $last
  echo "  VmRSS first (at $1 s) $2 kB, last (at $3 s) $4 kB: $(awk -v a="$2" -v b="$4" \
    'BEGIN { printf "%+d kB (%+.1f%%)", b - a, 100 * (b - a) / a }')"
}

# Stops the server for $stall s, $stall_at s from now (in the background).
stall_later() {
  ( sleep "$stall_at"; kill -STOP "$server_pid"; sleep "$stall"; kill -CONT "$server_pid" ) &
  staller=$!
}
# p50 p99 p99.9 max (ms) of a file of latencies in µs, one per line.
percentiles() {
  sort -g "$1" | awk '{a[NR]=$1} END {
    if (NR == 0) { print "none"; exit }
    split("50 99 99.9", p, " ")
    for (i = 1; i <= 3; i++) { k = int(NR * p[i] / 100 + 0.999999); if (k < 1) k = 1; printf "p%s %.2f ms, ", p[i], a[k] / 1000 }
    printf "max %.2f ms (%d requests)\n", a[NR] / 1000, NR }'
}

echo "$("$netbench" --version 2>/dev/null | head -1), h2load $(h2load --version | head -1 | awk '{print $2}'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
if [ "$only" = "" ] || [ "$only" = closed ]; then
  start_nghttpd; closed_pair "HTTP/2 against nghttpd" h2 "" "$streams"
  start_nginx; closed_pair "HTTP/1.1 against nginx" h1 "--h1" 1
fi
if [ "$only" = "" ] || [ "$only" = stall ]; then
  start_nghttpd
  echo "Stall: nghttpd stopped for ${stall} s at ${stall_at} s of ${stall_duration} s, -c $clients -m $streams, HTTP/2"
  stall_later
  timed "$netbench" load "https://localhost:$port/body" --ca "$work/cert.pem" --rate "$rate/s" \
    --duration "${stall_duration}s" -c "$clients" -m "$streams"
  wait "$staller"
  echo "  netbench load --rate $rate/s (open): $(sed -n 's/^  latency //p' "$work/out")"
  sed -n 's/^  \(achieved\|BEHIND\)/    \1/p' "$work/out"
  stall_later
  timed "$netbench" load "https://localhost:$port/body" --ca "$work/cert.pem" \
    --duration "${stall_duration}s" -c "$clients" -m "$streams"
  wait "$staller"
  echo "  netbench load (closed):           $(sed -n 's/^  latency //p' "$work/out")"
  stall_later
  timed h2load -D "$stall_duration" -c "$clients" -m "$streams" --log-file="$work/h2load.log" \
    "https://127.0.0.1:$port/body"
  wait "$staller"
  awk -F'\t' '$2 == 200 {print $3}' "$work/h2load.log" > "$work/h2load.us"
  echo "  h2load (closed, --log-file):      $(percentiles "$work/h2load.us")"
fi
if [ "$only" = "" ] || [ "$only" = profile ]; then
  echo
  echo "h3 through an emulated link: 100 Mbit/s both ways, RTT 20 ms, one-BDP drop-tail queue, $profile_body-byte"
  echo "responses, -c $clients -m $streams, $profile_duration s per rate"
  if [ "$(id -u)" != 0 ]; then
    echo "  unknown: needs root (network namespaces and TUN devices)"
  else
    cat > "$work/link.json" <<'JSON'
{"schemaVersion": 1, "name": "load-100M-20ms", "down": "100Mbit", "up": "100Mbit", "rtt": "20ms", "queue": "bdp"}
JSON
    for share in $profile_shares; do
      "$netbench" load -t h3 -p "$work/link.json" --size "$profile_body" --rate "$share%" \
        --duration "${profile_duration}s" -c "$clients" -m "$streams" > "$work/out" 2>&1 \
        || { echo "bench-load: netbench load -p failed" >&2; cat "$work/out" >&2; exit 2; }
      echo "  $share% of capacity ($(sed -n 's/^h3: open, \([0-9.]* req\/s\).*/\1/p' "$work/out")), load average $(cut -d' ' -f1-3 /proc/loadavg):"
      sed -n 's/^  \(achieved\|latency\|link\|ideal\|downlink\|BEHIND\|EMULATOR\|errors\)/    \1/p' "$work/out"
    done
  fi
fi
if [ "$only" = soak ]; then soak_run; fi
