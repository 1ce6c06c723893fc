#!/usr/bin/env bash
# Request rate of the replay server against Debian's reference servers, side by side (issue 13):
#   HTTP/2: h2load against `netbench serve --transport h2` and nghttpd (nghttp2-server)
#   HTTP/1.1: h2load --h1 against `netbench serve --transport h1` and nginx
# each serving the same body over TLS on loopback, in alternating pairs (netbench first in odd pairs,
# the peer first in even ones), so drift on a shared machine hits both alike. Prints every pair's
# req/s and each server's CPU per request (user + system time of the server process and its child
# processes from /proc/PID/stat around each h2load run, clock ticks of 10 ms: use --requests to make
# the ticks small against the run), the medians and netbench / peer.
#   HTTP/3 (issue 28; no nghttpd for it, and Debian's h2load has no HTTP/3): netbench's own generator,
#   `netbench load` in the closed model (-c/-m as above, --load-duration seconds, the same body), for
#   three rows measured alike: `netbench serve --transport h2`, `netbench serve --transport h3` and
#   `netbench perf --listen` (raw QUIC, `load -t quic-perf`: one stream per request asking for the
#   body's size), --pairs rounds in rotating order; req/s (ok responses / load duration), server CPU
#   per request (/proc, as above) and the generator's CPU per request (its thread clock). These rows are
#   netbench load's figures, not h2load's: compare them with each other, not with the parts above.
#
#   scripts/bench-server.sh [--pairs 5] [--requests 50000] [--clients 10] [--streams 10]
#                           [--body 1024] [--netbench .build/release/netbench] [--only h2|h1|h3]
#                           [--load-duration 5]
#                           [--serve-args "--tls-records 16k --late-binding off"] [--pin] [--notebook FILE]
#   --pin            every server (all its threads and child processes) on CPU 1, h2load on CPU 0: each a core
#                    of its own, the same for netbench and the peer. (It does not steady this VM: the same
#                    server's CPU per request still changes up to 2x between runs seconds apart, hence
#                    the median of the pairs' own ratios below, and many short pairs over few long ones.)
#   --notebook FILE  after a successful run, append an entry to FILE (here: results/notebook/server-request-rate.md):
#                    UTC date, git describe, machine, this command line and the printed output
#
# --serve-args passes options to `netbench serve` (word-split), e.g. to compare like with like:
# nghttpd and nginx size no TLS records dynamically and do no late binding, netbench does both by default.
#
# Needs h2load (nghttp2-client), nghttpd (nghttp2-server), nginx and openssl
# (scripts/bootstrap.sh --test installs them). Exit 2 when a server fails to start or a request fails.
set -euo pipefail
# shellcheck source=lib/notebook.sh
. "$(dirname "$0")/lib/notebook.sh"
# shellcheck source=lib/peers.sh
. "$(dirname "$0")/lib/peers.sh"
notebook_wrap "$0" "$@"  # --notebook FILE: run again, keep the output, append a dated entry to FILE

pairs=5 requests=50000 clients=10 streams=10 body=1024 only="" serve_args="" load_duration=5 pin=""
here=$(cd "$(dirname "$0")/.." && pwd)
netbench="$here/.build/release/netbench"
while [ $# -gt 0 ]; do
  case "$1" in
    --pairs) pairs=$2; shift 2 ;;
    --requests) requests=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --streams) streams=$2; shift 2 ;;
    --body) body=$2; shift 2 ;;
    --netbench) netbench=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --serve-args) serve_args=$2; shift 2 ;;
    --load-duration) load_duration=$2; shift 2 ;;
    --pin) pin=1; shift ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "bench-server: unknown option '$1' (try --help)" >&2; exit 64 ;;
  esac
done
for tool in h2load nghttpd nginx openssl; do
  command -v "$tool" >/dev/null || { echo "bench-server: $tool is missing (scripts/bootstrap.sh --test)" >&2; exit 2; }
done
[ -x "$netbench" ] || { echo "bench-server: $netbench is not built (swift build -c release)" >&2; exit 2; }

work=$(mktemp -d /tmp/netbench-bench-server.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# The same body for every server: netbench from a one-resource scenario, the others from a file.
mkdir -p "$work/htdocs"
chmod 755 "$work" "$work/htdocs"  # nginx workers run as an unprivileged user
head -c "$body" /dev/zero | tr '\0' 'x' > "$work/htdocs/body"
chmod 644 "$work/htdocs/body"
cat > "$work/scenario.json" <<EOF
{ "schemaVersion": 1, "name": "bench-server",
  "origins": [ {"id": "o", "host": "bench.netbench.test"} ],
  "resources": [ {"id": "body", "origin": "o", "path": "/body", "bytes": $body, "type": "document"} ] }
EOF
peers_certificate


# The start_* functions run in this shell (so that cleanup knows their pids) and leave the port in $port.
# Starts `netbench serve` over $1; its port is read from its banner.
start_netbench() {
  # shellcheck disable=SC2086  # --serve-args is a list of options
  "$netbench" serve "$work/scenario.json" --transport "$1" --listen 127.0.0.1:0 $serve_args > "$work/netbench-$1.out" 2>&1 &
  pids+=($!); server_pid=$!
  for _ in $(seq 100); do
    port=$(sed -n 's/.* on 127\.0\.0\.1:\([0-9]*\) (TCP).*/\1/p' "$work/netbench-$1.out")
    [ -n "$port" ] && return
    sleep 0.1
  done
  echo "bench-server: netbench serve --transport $1 did not start: $(cat "$work/netbench-$1.out")" >&2; exit 2
}




# CPU clock ticks (user + system) of process $1 and its children (nginx's worker).
cpu_ticks() {
  local p total=0
  for p in "$1" $(pgrep -P "$1" 2>/dev/null); do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}
hz=$(getconf CLK_TCK)

# One h2load run; prints "req/s µs-of-server-CPU-per-request". $1: port, $2: extra h2load options,
# $3: streams, $4: the server's PID.
measure() {
  local out t0 t1
  t0=$(cpu_ticks "$4")
  out=$(${pin:+taskset -c 0} h2load -n "$requests" -c "$clients" -m "$3" $2 "https://127.0.0.1:$1/body" 2>&1)
  t1=$(cpu_ticks "$4")
  local ok; ok=$(echo "$out" | sed -n 's/^requests: .* \([0-9]*\) succeeded.*/\1/p')
  if [ "$ok" != "$requests" ]; then echo "bench-server: h2load on port $1: $ok of $requests succeeded" >&2; echo "$out" >&2; exit 2; fi
  echo "$(echo "$out" | sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p')" \
    "$(awk -v t=$((t1 - t0)) -v hz="$hz" -v n="$requests" 'BEGIN {printf "%.2f", t * 1e6 / hz / n}')"
}

# --pin: process $1, its threads and its child processes (nginx's worker) on CPU 1.
pin_server() {
  [ -n "$pin" ] || return 0
  local p
  for p in "$1" $(pgrep -P "$1" 2>/dev/null); do taskset -a -p -c 1 "$p" > /dev/null; done
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# Alternating pairs; $1 label, $2 netbench port, $3 peer name, $4 peer port, $5 h2load options, $6 streams,
# $7 netbench's PID, $8 the peer's.
compare() {
  local ours=() theirs=() our_cpu=() their_cpu=()
  echo "$1: h2load -n $requests -c $clients -m $6 $5 https://127.0.0.1:PORT/body ($body-byte body), $pairs alternating pairs"
  printf '  %-6s %14s %14s   %s\n' pair "netbench" "$3" "server CPU µs/request (netbench, $3)"
  for i in $(seq "$pairs"); do
    local a b
    if [ $((i % 2)) = 1 ]; then a=$(measure "$2" "$5" "$6" "$7"); b=$(measure "$4" "$5" "$6" "$8")
    else b=$(measure "$4" "$5" "$6" "$8"); a=$(measure "$2" "$5" "$6" "$7"); fi
    ours+=("${a% *}"); theirs+=("${b% *}"); our_cpu+=("${a#* }"); their_cpu+=("${b#* }")
    printf '  %-6s %14s %14s   %s, %s\n' "$i" "${a% *} req/s" "${b% *} req/s" "${a#* }" "${b#* }"
  done
  local mo mt
  mo=$(printf '%s\n' "${ours[@]}" | median); mt=$(printf '%s\n' "${theirs[@]}" | median)
  printf '  %-6s %14s %14s   %s, %s   netbench / %s = %s\n' median "$mo" "$mt" \
    "$(printf '%s\n' "${our_cpu[@]}" | median)" "$(printf '%s\n' "${their_cpu[@]}" | median)" \
    "$3" "$(awk -v a="$mo" -v b="$mt" 'BEGIN {printf "%.2f", a / b}')"
  # Each pair's own ratio (its two runs seconds apart), then their median: steadier than the ratio of the
  # medians when the machine's speed drifts between pairs.
  local ratios=() i
  for i in "${!ours[@]}"; do ratios+=("$(awk -v a="${ours[$i]}" -v b="${theirs[$i]}" 'BEGIN {printf "%.3f", a / b}')"); done
  printf '  median of the pairs'"'"' ratios: netbench / %s = %s (pairs: %s)\n\n' "$3" \
    "$(printf '%s\n' "${ratios[@]}" | median)" "${ratios[*]}"
}

echo "netbench $("$netbench" --version 2>/dev/null | head -1) serve ${serve_args:-(defaults)}${pin:+, pinned (servers CPU 1, h2load CPU 0)}, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -z "$only" ] || [ "$only" = h2 ]; then
  start_netbench h2; nb=$port; nb_pid=$server_pid; pin_server "$nb_pid"; start_nghttpd; ng=$port
  pin_server "$server_pid"
  compare "HTTP/2" "$nb" nghttpd "$ng" "" "$streams" "$nb_pid" "$server_pid"
fi
if [ -z "$only" ] || [ "$only" = h1 ]; then
  start_netbench h1; nb1=$port; nb_pid=$server_pid; pin_server "$nb_pid"; start_nginx; nx=$port
  pin_server "$server_pid"
  compare "HTTP/1.1" "$nb1" nginx "$nx" "--h1" 1 "$nb_pid" "$server_pid"
fi

# HTTP/3 beside HTTP/2 and raw QUIC, netbench load as the generator of all three rows.
# start_quic_server NAME COMMAND...: starts a server whose banner names "127.0.0.1:PORT (TCP|UDP)".
start_quic_server() {
  local name=$1; shift
  "$@" > "$work/$name.out" 2>&1 &
  pids+=($!); server_pid=$!
  for _ in $(seq 100); do
    port=$(sed -n 's/.* on 127\.0\.0\.1:\([0-9]*\) (\(TCP\|UDP\)).*/\1/p' "$work/$name.out" | head -1)
    [ -n "$port" ] && return
    sleep 0.1
  done
  echo "bench-server: $name did not start: $(cat "$work/$name.out")" >&2; exit 2
}

# One closed-model load; prints "req/s server-CPU-µs/request generator-CPU-µs/request".
# $1: transport, $2: the server's PID, then netbench load's target and server options.
load_measure() {
  local transport=$1 spid=$2 t0 t1 out; shift 2
  out="$work/load-$transport"
  rm -rf "$out"
  t0=$(cpu_ticks "$spid")
  "$netbench" load "$@" -t "$transport" -c "$clients" -m "$streams" --duration "${load_duration}s" -o "$out" \
    > "$out.txt" 2>&1 || true
  t1=$(cpu_ticks "$spid")
  python3 - "$out/load.json" $((t1 - t0)) "$hz" "$transport" "$out.txt" <<'PY'
import json, sys
path, ticks, hz, transport, log = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
try:
    load = json.load(open(path))["loads"][0]
except (OSError, ValueError, KeyError, IndexError):
    sys.exit("bench-server: netbench load -t %s wrote no results:\n%s" % (transport, open(log).read()))
if load["ok"] == 0 or load["errors"]:
    sys.exit("bench-server: netbench load -t %s: %d ok, errors %s %s" % (
        transport, load["ok"], load["errors"], load.get("errorExamples")))
n = load["ok"]
gen = load.get("generatorCpuMs")
print("%.0f %.2f %s" % (load["achievedRate"], ticks * 1e6 / hz / n, "%.2f" % (gen * 1000 / n) if gen else "unknown"))
PY
  [ $? = 0 ] || exit 2
}

if [ -z "$only" ] || [ "$only" = h3 ]; then
  # shellcheck disable=SC2086  # --serve-args is a list of options
  start_quic_server serve-h2 "$netbench" serve "$work/scenario.json" --transport h2 --listen 127.0.0.1:0 \
    --ca-out "$work/ca-h2.pem" $serve_args
  q_h2=$port; q_h2_pid=$server_pid
  # shellcheck disable=SC2086
  start_quic_server serve-h3 "$netbench" serve "$work/scenario.json" --transport h3 --listen 127.0.0.1:0 \
    --ca-out "$work/ca-h3.pem" $serve_args
  q_h3=$port; q_h3_pid=$server_pid
  start_quic_server perf "$netbench" perf --listen 127.0.0.1:0 --ca-out "$work/ca-perf.pem"
  q_perf=$port; q_perf_pid=$server_pid
  echo "HTTP/3 beside HTTP/2 and raw QUIC, all measured with netbench's own generator (netbench load, closed model;"
  echo "not h2load, which has no HTTP/3 here): -c $clients -m $streams, ${load_duration} s per load, $body-byte"
  echo "bodies, $pairs rounds in rotating order; servers: netbench serve --transport h2, --transport h3, netbench perf"
  printf '  %-6s %16s %16s %16s   %s\n' round "h2" "h3" "quic-perf" "CPU µs/request server (h2, h3, quic-perf); generator (same)"
  declare -A rate=() scpu=() gcpu=() now=()
  kinds=(h2 h3 quic-perf)
  for i in $(seq "$pairs"); do
    for k in 0 1 2; do
      kind=${kinds[$(((i - 1 + k) % 3))]}
      case "$kind" in
        h2) r=$(load_measure h2 "$q_h2_pid" "$work/scenario.json" --server "127.0.0.1:$q_h2" --ca "$work/ca-h2.pem") ;;
        h3) r=$(load_measure h3 "$q_h3_pid" "$work/scenario.json" --server "127.0.0.1:$q_h3" --ca "$work/ca-h3.pem") ;;
        quic-perf) r=$(load_measure quic-perf "$q_perf_pid" --server "localhost:$q_perf" --ca "$work/ca-perf.pem" \
          --size "$body") ;;
      esac
      read -r a b c <<< "$r"
      rate[$kind]+="$a "; scpu[$kind]+="$b "; gcpu[$kind]+="$c "; now[$kind]="$a $b $c"
    done
    read -r h2r h2s h2g <<< "${now[h2]}"; read -r h3r h3s h3g <<< "${now[h3]}"; read -r qr qs qg <<< "${now[quic-perf]}"
    printf '  %-6s %16s %16s %16s   %s, %s, %s; %s, %s, %s\n' "$i" "$h2r req/s" "$h3r req/s" "$qr req/s" \
      "$h2s" "$h3s" "$qs" "$h2g" "$h3g" "$qg"
  done
  med() { printf '%s\n' $1 | median; }
  mh2=$(med "${rate[h2]}"); mh3=$(med "${rate[h3]}"); mq=$(med "${rate[quic-perf]}")
  sh2=$(med "${scpu[h2]}"); sh3=$(med "${scpu[h3]}"); sq=$(med "${scpu[quic-perf]}")
  gmed() { if printf '%s\n' $1 | grep -q unknown; then echo unknown; else med "$1"; fi; }
  printf '  %-6s %16s %16s %16s   %s, %s, %s; %s, %s, %s\n' median "$mh2 req/s" "$mh3 req/s" "$mq req/s" \
    "$sh2" "$sh3" "$sq" "$(gmed "${gcpu[h2]}")" "$(gmed "${gcpu[h3]}")" "$(gmed "${gcpu[quic-perf]}")"
  awk -v a="$mh2" -v b="$mh3" -v c="$mq" -v x="$sh2" -v y="$sh3" -v z="$sq" 'BEGIN {
    printf "  req/s: h3 / h2 = %.2f, quic-perf / h2 = %.2f, h3 / quic-perf = %.2f; server CPU per request: h3 / h2 = %.2f, quic-perf / h2 = %.2f\n",
      b / a, c / a, b / c, y / x, z / x }'
fi
