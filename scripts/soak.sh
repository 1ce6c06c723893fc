#!/usr/bin/env bash
# Soak test of the replay server (issue 15): `netbench serve` under load for a long time.
#   h2: h2load at full speed (-c clients, -m streams each) for --duration seconds
#   h3: aioquic's http3_client.py in a loop (each run fetches the page's 3 URLs --h3-batch times on
#       one connection)
#       for --duration seconds
# Every --sample seconds the server's resident memory (VmRSS from /proc/PID/status) and open
# descriptors (/proc/PID/fd) are recorded; printed: requests, failures, RSS at start (after the
# first sample), after warm-up, and at the end, the peak (VmHWM), descriptors at start and end.
#
#   scripts/soak.sh [--duration 600] [--sample 10] [--only h2|h3] [--clients 10] [--streams 10]
#                   [--h3-batch 20] [--netbench .build/release/netbench] [--venv .build-venv]
#
# Needs h2load (nghttp2-client) and aioquic in .build-venv (scripts/bootstrap.sh --test).
# Exit 1 when a request failed, memory grew by more than 20% from warm-up to the end, or
# descriptors leaked (more at the end than at the start, with the load stopped); 2 when it cannot run.
set -euo pipefail

duration=600 sample=10 only="" clients=10 streams=10 batch=20
here=$(cd "$(dirname "$0")/.." && pwd)
netbench="$here/.build/release/netbench"
venv="${NETBENCH_AIOQUIC_VENV:-$here/.build-venv}"
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration=$2; shift 2 ;;
    --sample) sample=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --streams) streams=$2; shift 2 ;;
    --h3-batch) batch=$2; shift 2 ;;
    --netbench) netbench=$2; shift 2 ;;
    --venv) venv=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "soak: unknown option '$1' (try --help)" >&2; exit 64 ;;
  esac
done
[ -x "$netbench" ] || { echo "soak: $netbench is not built (swift build -c release)" >&2; exit 2; }
[ "$only" = h3 ] || command -v h2load >/dev/null || { echo "soak: h2load is missing (scripts/bootstrap.sh --test)" >&2; exit 2; }
client="$venv/aioquic-examples/http3_client.py"
[ "$only" = h2 ] || [ -f "$client" ] || { echo "soak: aioquic is missing at $venv (scripts/bootstrap.sh --test)" >&2; exit 2; }

work=$(mktemp -d /tmp/netbench-soak.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# A small page: a 1 KiB document, a 16 KiB script and a 100 KiB image.
cat > "$work/scenario.json" <<EOF
{ "schemaVersion": 1, "name": "soak",
  "origins": [ {"id": "o", "host": "soak.netbench.test"} ],
  "resources": [ {"id": "doc", "origin": "o", "path": "/", "bytes": 1024, "type": "document"},
                 {"id": "js", "origin": "o", "path": "/app.js", "bytes": 16384, "type": "script", "parent": "doc"},
                 {"id": "img", "origin": "o", "path": "/hero.jpg", "bytes": 102400, "type": "image", "parent": "doc"} ] }
EOF

# Starts `netbench serve -t $1`; leaves its pid in $server and its port in $port.
start_server() {
  "$netbench" serve "$work/scenario.json" -t "$1" -l 127.0.0.1:0 --ca-out "$work/ca.pem" > "$work/serve-$1.out" 2>&1 &
  server=$!; pids+=("$server")
  for _ in $(seq 100); do
    port=$(sed -n 's/.* on 127\.0\.0\.1:\([0-9]*\) (.*/\1/p' "$work/serve-$1.out")
    [ -n "$port" ] && return
    sleep 0.1
  done
  echo "soak: netbench serve -t $1 did not start: $(cat "$work/serve-$1.out")" >&2; exit 2
}

rss() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status"; }
hwm() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status"; }
fds() { ls "/proc/$1/fd" | wc -l; }

# Samples the server every $sample s into $work/samples-$2 ("seconds rss_kB fds") while $1 runs.
sampler() {
  local t=0
  while kill -0 "$1" 2>/dev/null; do
    echo "$t $(rss "$server") $(fds "$server")" >> "$work/samples-$2"
    sleep "$sample"; t=$((t + sample))
  done
}

failed=0
# Prints the figures of one phase; $1: label, $2: requests, $3: failures.
report() {
  local s="$work/samples-$1" n; n=$(wc -l < "$s")
  local first warm last
  first=$(sed -n 1p "$s" | cut -d' ' -f2)
  warm=$(sed -n "$(( n > 3 ? 3 : n ))p" "$s" | cut -d' ' -f2)   # after the first two samples
  last=$(tail -1 "$s" | cut -d' ' -f2)
  echo "$1: $2 requests, $3 failed in ${duration} s ($(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg))"
  echo "  RSS: first sample $((first / 1024)) MiB, after warm-up $((warm / 1024)) MiB, end of load $((last / 1024)) MiB, peak (VmHWM) $(( $(hwm "$server") / 1024 )) MiB"
  echo "  descriptors: before the load $fd_start, end of load $(tail -1 "$s" | cut -d' ' -f3), after the load $fd_end"
  echo "  samples (s RSS_kB fds): $(tr '\n' ';' < "$s")"
  [ "$3" = 0 ] || failed=1
  [ "$last" -le $(( warm * 12 / 10 )) ] || { echo "  memory grew more than 20% after warm-up"; failed=1; }
  [ "$fd_end" -le "$fd_start" ] || { echo "  descriptors leaked"; failed=1; }
}

echo "netbench soak: $("$netbench" --version 2>/dev/null | head -1), ${duration} s per transport"
if [ "$only" != h3 ]; then
  start_server h2; sleep 0.5
  fd_start=$(fds "$server")
  h2load -D "$duration" -c "$clients" -m "$streams" "https://127.0.0.1:$port/" "https://127.0.0.1:$port/app.js" \
    "https://127.0.0.1:$port/hero.jpg" > "$work/h2load.out" 2>&1 &
  load=$!; pids+=("$load")
  sampler "$load" h2 &
  pids+=($!)
  wait "$load" || true
  sleep 2; fd_end=$(fds "$server")
  line=$(grep '^requests:' "$work/h2load.out" || echo "requests: 0 total, 0 started, 0 done, 0 succeeded, 1 failed")
  ok=$(echo "$line" | sed -n 's/.* \([0-9]*\) succeeded.*/\1/p')
  bad=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed, \([0-9]*\) errored, \([0-9]*\) timeout.*/\1 \2 \3/p' | awk '{print $1+$2+$3}')
  report h2 "$ok" "${bad:-0}"
  grep -E '^(finished|status codes)' "$work/h2load.out" | sed 's/^/  h2load: /'
  kill -INT "$server"; wait "$server" 2>/dev/null || true
fi
if [ "$only" != h2 ]; then
  start_server h3; sleep 0.5
  fd_start=$(fds "$server")
  (
    end=$((SECONDS + duration)); ok=0; bad=0
    urls=(); for i in $(seq "$batch"); do for p in / /app.js /hero.jpg; do urls+=("https://127.0.0.1:$port$p"); done; done
    while [ $SECONDS -lt $end ]; do
      (cd "$venv/aioquic-examples" && timeout 60 "$venv/bin/python" "$client" --ca-certs "$work/ca.pem" \
        "${urls[@]}" > /dev/null 2> "$work/h3client.err") || true
      # The client logs "Response received for GET PATH : N bytes" per response.
      good=$(grep -cE 'Response received for GET (/ : 1024|/app\.js : 16384|/hero\.jpg : 102400) bytes' "$work/h3client.err" || true)
      ok=$((ok + good)); bad=$((bad + ${#urls[@]} - good))
    done
    echo "$ok $bad" > "$work/h3.count"
  ) &
  load=$!; pids+=("$load")
  sampler "$load" h3 &
  pids+=($!)
  wait "$load" || true
  sleep 2; fd_end=$(fds "$server")
  read -r ok bad < "$work/h3.count"
  report h3 "$ok" "$bad"
  kill -INT "$server"; wait "$server" 2>/dev/null || true
fi
exit "$failed"
