#!/usr/bin/env bash
# Bulk download on loopback, measured alike on every side: netbench's HTTP/3 beside ngtcp2's own
# example programs (gtlsclient <- gtlsserver, Debian's ngtcp2-client/ngtcp2-server), and netbench's
# HTTP/2 beside curl --http2 <- nginx (the TCP + TLS counterpart), in one run.
#
#   scripts/bench-h3.sh [--size BYTES] [--runs N] [--netbench PATH] [--cpu LIST] [--notebook FILE]
#   --size BYTES     body size (default 100000000)
#   --runs N         timed pairs per side (default 5); the median is reported
#   --netbench PATH  the netbench binary (default .build/release/netbench)
#   --cpu LIST       run every server and client, netbench included, under `taskset -c LIST` (e.g. 0:
#                    each side's client and server share one CPU, as netbench's two threads then do);
#                    default: wherever the scheduler puts them
#   --halt-poll-ns NS  on a KVM guest with the haltpoll cpuidle driver, set how long an idle vCPU polls
#                    before it halts (/sys/module/haltpoll/parameters/guest_halt_poll_ns) for this run,
#                    restored at its end: where idle vCPUs halt at once, each wake-up of a thread on the
#                    other vCPU costs tens of µs (results/notebook/gigabit.md); the value in force is printed
#   --notebook FILE  after a successful run, append an entry to FILE (here: results/notebook/http3-bulk.md):
#                    UTC date, git describe, machine, this command line and the printed output
#
# How each side is timed: whole-process wall time of one SIZE fetch minus that of a 1-byte fetch
# (process start, handshake and teardown cancel out), median of RUNS, the four sides taking turns in
# an order that rotates run by run. No side writes the body anywhere in a timed fetch: netbench never
# does, gtlsclient runs without --download (its transfer still ends only at the stream's FIN), curl
# writes to /dev/null. The bytes are checked apart from the timing: before the timed runs each peer
# client downloads the body once into a file whose size and SHA-256 are compared with the served
# file, and every timed netbench run must report SIZE bytes in its results.json. Servers (gtlsserver,
# nginx) start once and are not timed; netbench runs client and replay server in one process
# (`netbench run ... --profile loopback`), so its figure includes its own server's CPU on the same cores.
# Prints one line per run and a side-by-side summary; exits 2 if a fetch fails.
set -euo pipefail
# shellcheck source=lib/notebook.sh
. "$(dirname "$0")/lib/notebook.sh"
notebook_wrap "$0" "$@"  # --notebook FILE: run again, keep the output, append a dated entry to FILE

size=100000000
runs=5
netbench=""
pin=()
haltpoll=""
while [ $# -gt 0 ]; do
  case "$1" in
    --size) size="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --netbench) netbench="$2"; shift 2 ;;
    --cpu) pin=(taskset -c "$2"); shift 2 ;;
    --halt-poll-ns) haltpoll="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-h3.sh: unknown argument '$1' (see --help)" >&2; exit 64 ;;
  esac
done
case "$size$runs$haltpoll" in
  *[!0-9]*|"") echo "bench-h3.sh: --size, --runs and --halt-poll-ns take whole numbers" >&2; exit 64 ;;
esac
[ "$runs" -ge 1 ] || { echo "bench-h3.sh: --runs must be at least 1" >&2; exit 64; }

root="$(cd "$(dirname "$0")/.." && pwd)"
if [ -z "$netbench" ]; then
  netbench="$root/.build/release/netbench"
  [ -x "$netbench" ] || { echo "bench-h3.sh: build first: swift build -c release (or pass --netbench PATH)" >&2; exit 64; }
fi
PATH="$PATH:/usr/sbin"
for tool in gtlsclient gtlsserver nginx curl openssl python3 sha256sum bc; do
  command -v "$tool" >/dev/null || { echo "bench-h3.sh: '$tool' missing (apt-get install ngtcp2-client ngtcp2-server nginx curl openssl python3 bc)" >&2; exit 2; }
done

# A tmpfs for the served files and the one untimed verification download of each peer.
shm=/dev/shm; [ -d "$shm" ] && [ -w "$shm" ] || shm=/tmp
work="$(mktemp -d "$shm/bench-h3.XXXXXX")"
chmod 755 "$work"
server_pids=()
cleanup() {
  local pid
  for pid in "${server_pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
  notebook_halt_poll_restore
}
trap cleanup EXIT
if [ -n "$haltpoll" ]; then notebook_halt_poll_set "$haltpoll" || exit 2; fi

# Files for the peer servers, scenarios for netbench, a throw-away certificate.
mkdir -p "$work/www" "$work/dl" "$work/nginx"
head -c "$size" /dev/urandom > "$work/www/big"
printf x > "$work/www/one"
chmod -R a+rX "$work/www"
for pair in "big:$size" "one:1"; do
  name="${pair%%:*}" bytes="${pair#*:}"
  cat > "$work/$name.json" <<EOF
{"schemaVersion": 1, "name": "bench-h3-$name", "origins": [{"id": "bulk", "host": "bulk.netbench.test"}],
 "resources": [], "bulk": {"direction": "download", "bytes": $bytes}}
EOF
done
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null

free_port() {  # udp|tcp
  python3 -c "import socket,sys; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM if sys.argv[1]=='udp' else socket.SOCK_STREAM); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])" "$1"
}
qport=$(free_port udp)
tport=$(free_port tcp)

"${pin[@]}" gtlsserver -q -d "$work/www" 127.0.0.1 "$qport" "$work/key.pem" "$work/cert.pem" > "$work/gtlsserver.log" 2>&1 &
server_pids+=($!)
cat > "$work/nginx/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  sendfile off;
  server {
    listen 127.0.0.1:$tport ssl http2;
    ssl_certificate $work/cert.pem;
    ssl_certificate_key $work/key.pem;
    root $work/www;
  }
}
EOF
"${pin[@]}" nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" > "$work/nginx/stdout.log" 2>&1 &
server_pids+=($!)
sleep 0.5
for pid in "${server_pids[@]}"; do
  kill -0 "$pid" 2>/dev/null || { echo "bench-h3.sh: a server did not start:" >&2; cat "$work/gtlsserver.log" "$work/nginx/stdout.log" "$work/nginx/error.log" >&2 2>/dev/null; exit 2; }
done

now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc -l; }

# The untimed check: each peer client downloads the body into a file once; size and SHA-256 must match.
verify_peers() {
  local want; want=$(sha256sum < "$work/www/big" | cut -d' ' -f1)
  gtlsclient -q --exit-on-all-streams-close --download "$work/dl" 127.0.0.1 "$qport" \
    "https://127.0.0.1:$qport/big" > "$work/verify-gtls.log" 2>&1 || true
  curl -sk --http2 -o "$work/dl/big.curl" "https://127.0.0.1:$tport/big" 2> "$work/verify-curl.log" || true
  local file got
  for file in "$work/dl/big" "$work/dl/big.curl"; do
    got=$(sha256sum < "$file" 2>/dev/null | cut -d' ' -f1 || true)
    [ "$got" = "$want" ] || { echo "bench-h3.sh: verification download $(basename "$file") is not the served body ($(stat -c %s "$file" 2>/dev/null || echo 0) of $size bytes)" >&2; exit 2; }
  done
  rm -f "$work/dl/big" "$work/dl/big.curl"
}

time_gtls() {  # PATH (no --download: the body is not written, as netbench writes none)
  local t0 t1 status=0
  t0=$(now)
  "${pin[@]}" gtlsclient -q --exit-on-all-streams-close 127.0.0.1 "$qport" "https://127.0.0.1:$qport/$1" \
    > "$work/gtls.log" 2>&1 || status=$?
  t1=$(now)
  [ "$status" = 0 ] || { echo "bench-h3.sh: gtlsclient /$1 exited $status" >&2; tail -5 "$work/gtls.log" >&2; exit 2; }
  elapsed "$t0" "$t1"
}

time_curl() {  # PATH BYTES (written to /dev/null; curl counts what it received)
  local t0 t1 got
  t0=$(now)
  got=$("${pin[@]}" curl -sk --http2 -o /dev/null -w '%{size_download} %{http_version}' "https://127.0.0.1:$tport/$1") || true
  t1=$(now)
  [ "$got" = "$2 2" ] || { echo "bench-h3.sh: curl /$1 got '$got' (bytes, HTTP version), wanted '$2 2'" >&2; exit 2; }
  elapsed "$t0" "$t1"
}

time_netbench() {  # TRANSPORT NAME BYTES
  rm -rf "$work/out"
  local t0 t1
  t0=$(now)
  "${pin[@]}" "$netbench" run "$work/$2.json" --profile loopback --transport "$1" --runs 1 --warmup 0 \
    --out "$work/out" --quiet > "$work/netbench.log" 2>&1 || { echo "bench-h3.sh: netbench run ($1) failed:" >&2; tail -5 "$work/netbench.log" >&2; exit 2; }
  t1=$(now)
  python3 - "$work/out/results.json" "$3" <<'EOF' || exit 2
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
ok = [r for r in runs if r["status"] == "ok" and r["metrics"].get("bytes") == int(sys.argv[2])]
if not ok:
    sys.exit(f"bench-h3.sh: netbench run did not fetch {sys.argv[2]} bytes: {[r.get('error') for r in runs]}")
EOF
  elapsed "$t0" "$t1"
}

# One side's transfer time: SIZE fetch minus 1-byte fetch.
measure() {  # SIDE
  local a b
  case "$1" in
    nb3) a=$(time_netbench h3 big "$size"); b=$(time_netbench h3 one 1) ;;
    gtls) a=$(time_gtls big); b=$(time_gtls one) ;;
    nb2) a=$(time_netbench h2 big "$size"); b=$(time_netbench h2 one 1) ;;
    curl) a=$(time_curl big "$size"); b=$(time_curl one 1) ;;
  esac
  echo "$a - $b" | bc -l
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mbps() { echo "$size / $1 / 1000000" | bc -l | xargs printf '%.0f'; }
ratio() { echo "$2 / $1" | bc -l | xargs printf '%.2fx'; }

verify_peers
echo "idle CPUs: $(notebook_idle)"
sides=(nb3 gtls nb2 curl)
declare -A got=()
echo "run  netbench_h3_s  gtls_h3_s  netbench_h2_s  curl_h2_nginx_s   (SIZE fetch minus 1-byte fetch; size $size bytes)"
for i in $(seq 1 "$runs"); do
  declare -A t=()
  for k in 0 1 2 3; do
    side=${sides[$(( (i - 1 + k) % 4 ))]}
    t[$side]=$(measure "$side")
    got[$side]="${got[$side]:-} ${t[$side]}"
  done
  printf '%-4s %-14.3f %-10.3f %-14.3f %-10.3f\n' "$i" "${t[nb3]}" "${t[gtls]}" "${t[nb2]}" "${t[curl]}"
done
# shellcheck disable=SC2086
{ m_nb3=$(median ${got[nb3]}); m_gtls=$(median ${got[gtls]}); m_nb2=$(median ${got[nb2]}); m_curl=$(median ${got[curl]}); }
printf '\n%-26s %12s %14s %12s %16s\n' "" "netbench h3" "gtlsclient h3" "netbench h2" "curl<-nginx h2"
printf '%-26s %12.3f %14.3f %12.3f %16.3f\n' "median transfer time (s)" "$m_nb3" "$m_gtls" "$m_nb2" "$m_curl"
printf '%-26s %12s %14s %12s %16s\n' "throughput (MB/s)" "$(mbps "$m_nb3")" "$(mbps "$m_gtls")" "$(mbps "$m_nb2")" "$(mbps "$m_curl")"
echo
echo "netbench h3 / gtlsclient<-gtlsserver h3: $(ratio "$m_nb3" "$m_gtls")  (target >= 1.0x)"
echo "netbench h2 / curl<-nginx h2:            $(ratio "$m_nb2" "$m_curl")"
echo "netbench h3 / netbench h2:               $(ratio "$m_nb3" "$m_nb2")  (target >= 0.25x)"
