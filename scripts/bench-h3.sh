#!/usr/bin/env bash
# HTTP/3 bulk throughput on loopback: netbench against ngtcp2's own example programs
# (gtlsclient <- gtlsserver from Debian's ngtcp2-client/ngtcp2-server, the same ngtcp2 library),
# measured the same way for both: whole-process wall time of one SIZE fetch minus that of a
# 1-byte fetch (process start, handshake and teardown cancel out), median of RUNS, the two
# stacks alternating run by run.
#
#   scripts/bench-h3.sh [--size BYTES] [--runs N] [--netbench PATH] [--notebook FILE]
#   --notebook FILE  after a successful run, append an entry to FILE (here: results/notebook/http3-bulk.md):
#                    UTC date, git describe, machine, this command line and the printed output
#
# netbench side: `netbench run SCENARIO --profile loopback --transport h3 --runs 1 --warmup 0`
# with a generated bulk-download scenario (client and replay server in one process, no emulator).
# ngtcp2 side: gtlsserver serving a directory (started once, not timed) and
# `gtlsclient --exit-on-all-streams-close` fetching https://127.0.0.1:PORT/FILE (timed).
# Prints one line per run and a side-by-side summary; exits 2 if a fetch fails.
set -euo pipefail
# shellcheck source=lib/notebook.sh
. "$(dirname "$0")/lib/notebook.sh"
notebook_wrap "$0" "$@"  # --notebook FILE: run again, keep the output, append a dated entry to FILE

size=100000000
runs=5
netbench=""
while [ $# -gt 0 ]; do
  case "$1" in
    --size) size="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --netbench) netbench="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-h3.sh: unknown argument '$1' (see --help)" >&2; exit 64 ;;
  esac
done
case "$size$runs" in *[!0-9]*) echo "bench-h3.sh: --size and --runs take whole numbers" >&2; exit 64 ;; esac

root="$(cd "$(dirname "$0")/.." && pwd)"
if [ -z "$netbench" ]; then
  netbench="$root/.build/release/netbench"
  [ -x "$netbench" ] || { echo "bench-h3.sh: build first: swift build -c release (or pass --netbench PATH)" >&2; exit 64; }
fi
for tool in gtlsclient gtlsserver openssl python3; do
  command -v "$tool" >/dev/null || PATH="$PATH:/usr/sbin"
  command -v "$tool" >/dev/null || { echo "bench-h3.sh: '$tool' missing (apt-get install ngtcp2-client ngtcp2-server openssl python3)" >&2; exit 2; }
done

# In memory where there is a tmpfs: gtlsclient writes what it downloads, and disk would charge it.
shm=/dev/shm; [ -d "$shm" ] && [ -w "$shm" ] || shm=/tmp
work="$(mktemp -d "$shm/bench-h3.XXXXXX")"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Files for gtlsserver, scenarios for netbench, a throw-away certificate.
mkdir -p "$work/www" "$work/dl"
head -c "$size" /dev/zero > "$work/www/big"
printf x > "$work/www/one"
for pair in "big:$size" "one:1"; do
  name="${pair%%:*}" bytes="${pair#*:}"
  cat > "$work/$name.json" <<EOF
{"schemaVersion": 1, "name": "bench-h3-$name", "origins": [{"id": "bulk", "host": "bulk.netbench.test"}],
 "resources": [], "bulk": {"direction": "download", "bytes": $bytes}}
EOF
done
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null

port=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
gtlsserver -q -d "$work/www" 127.0.0.1 "$port" "$work/key.pem" "$work/cert.pem" > "$work/server.log" 2>&1 &
server_pid=$!
sleep 0.5
kill -0 "$server_pid" 2>/dev/null || { echo "bench-h3.sh: gtlsserver did not start:" >&2; cat "$work/server.log" >&2; exit 2; }

now() { date +%s.%N; }

# Wall seconds of one whole-process fetch; fails (exit 2) unless every byte arrived.
time_ngtcp2() {  # FILE BYTES
  rm -f "$work/dl/$1"
  local t0 t1
  t0=$(now)
  gtlsclient -q --exit-on-all-streams-close --download "$work/dl" 127.0.0.1 "$port" \
    "https://127.0.0.1:$port/$1" > "$work/client.log" 2>&1 || true
  t1=$(now)
  local got; got=$(stat -c %s "$work/dl/$1" 2>/dev/null || echo 0)
  [ "$got" = "$2" ] || { echo "bench-h3.sh: gtlsclient got $got of $2 bytes of /$1" >&2; tail -5 "$work/client.log" >&2; exit 2; }
  echo "$t1 - $t0" | bc -l
}

time_netbench() {  # NAME BYTES
  rm -rf "$work/out"
  local t0 t1
  t0=$(now)
  "$netbench" run "$work/$1.json" --profile loopback --transport h3 --runs 1 --warmup 0 \
    --out "$work/out" --quiet > "$work/netbench.log" 2>&1 || { echo "bench-h3.sh: netbench run failed:" >&2; tail -5 "$work/netbench.log" >&2; exit 2; }
  t1=$(now)
  python3 - "$work/out/results.json" "$2" <<'EOF' || exit 2
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
ok = [r for r in runs if r["status"] == "ok" and r["metrics"].get("bytes") == int(sys.argv[2])]
if not ok:
    sys.exit(f"bench-h3.sh: netbench run did not fetch {sys.argv[2]} bytes: {[r.get('error') for r in runs]}")
EOF
  echo "$t1 - $t0" | bc -l
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mbps() { echo "$size / $1 / 1000000" | bc -l | xargs printf '%.0f'; }

nb=() ng=()
echo "run  netbench_s  ngtcp2_s   (SIZE fetch minus 1-byte fetch, wall time of whole processes; size $size bytes)"
for i in $(seq 1 "$runs"); do
  if [ $((i % 2)) -eq 1 ]; then
    a=$(time_netbench big "$size"); b=$(time_netbench one 1)
    c=$(time_ngtcp2 big "$size"); d=$(time_ngtcp2 one 1)
  else
    c=$(time_ngtcp2 big "$size"); d=$(time_ngtcp2 one 1)
    a=$(time_netbench big "$size"); b=$(time_netbench one 1)
  fi
  x=$(echo "$a - $b" | bc -l); y=$(echo "$c - $d" | bc -l)
  nb+=("$x"); ng+=("$y")
  printf '%-4s %-11.3f %-10.3f\n' "$i" "$x" "$y"
done
m1=$(median "${nb[@]}"); m2=$(median "${ng[@]}")
printf '\n%-28s %12s %12s\n' "" "netbench h3" "ngtcp2 gtls"
printf '%-28s %12.3f %12.3f\n' "median transfer time (s)" "$m1" "$m2"
printf '%-28s %12s %12s\n' "throughput (MB/s)" "$(mbps "$m1")" "$(mbps "$m2")"
printf '%-28s %12s\n' "netbench / ngtcp2" "$(echo "$m2 / $m1" | bc -l | xargs printf '%.2f')x"
