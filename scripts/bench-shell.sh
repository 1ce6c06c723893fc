#!/usr/bin/env bash
# Other people's programs through `netbench shell` (issue 25), each figure beside its reference:
#   1. iperf3 -R -C cubic from the host through 4G (9 Mbit/s, 170 ms): TCP goodput against the profile's
#      rate and against the ceiling TCP/IPv4 headers leave (1448 of every 1500 bytes with timestamps);
#   2. ping through a 10 Mbit/s profile with 25 ms each way: RTT p50/p99 against 50 ms;
#   3. iperf3 through a Mahimahi trace profile (Verizon-LTE-short): goodput second by second against the
#      trace's capacity in the same second (both counted from COMMAND's start);
#   4. curl --http2 from Debian's curl against Debian's nginx serving `netbench scenario export`: exact bytes;
#   5. the shell's own cost: the packet loop's CPU share and release lateness with `sleep` (idle), a slow
#      ping and iperf3 running, beside the timer floor measured before each session.
#
#   scripts/bench-shell.sh [--seconds 20] [--netbench PATH] [--notebook FILE]
#   --notebook FILE  after a successful run, append an entry to FILE (here: results/notebook/shell.md)
#
# Needs root, iperf3, ping, curl, nginx (scripts/bootstrap.sh --test installs them); build first
# (swift build -c release). Servers run on 127.0.0.1 of this namespace and are stopped by PID.
set -euo pipefail
# shellcheck source=lib/notebook.sh
. "$(dirname "$0")/lib/notebook.sh"
notebook_wrap "$0" "$@"  # --notebook FILE: run again, keep the output, append a dated entry to FILE
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=20
netbench="$here/.build/release/netbench"
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --netbench) netbench=$2; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "bench-shell: unknown option '$1' (try --help)" >&2; exit 64 ;;
  esac
done
[ -x "$netbench" ] || { echo "bench-shell: $netbench is not built (swift build -c release)" >&2; exit 2; }
for tool in iperf3 ping curl nginx python3; do
  command -v "$tool" >/dev/null || { echo "bench-shell: needs $tool (scripts/bootstrap.sh --test)" >&2; exit 2; }
done
work=$(mktemp -d /tmp/netbench-bench-shell.XXXXXX)
chmod 755 "$work"  # nginx workers run as an unprivileged user
cleanup() {  # servers started here, by PID (iperf3 -1 servers end by themselves after their test)
  [ -f "$work/pids" ] && while read -r p; do kill "$p" 2>/dev/null || true; done <"$work/pids"
  [ -f "$work/export/nginx.pid" ] && kill "$(cat "$work/export/nginx.pid")" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# iperf_server: a one-test iperf3 server on 127.0.0.1 of this namespace; prints its port once it listens.
iperf_server() {
  local port
  port=$(free_port)
  iperf3 -s -1 -B 127.0.0.1 -p "$port" >>"$work/iperf3-server.log" 2>&1 &
  echo $! >>"$work/pids"
  # Wait until it listens, without connecting (a connection would use up its one test).
  for _ in $(seq 100); do
    ss -Hltn "sport = :$port" | grep -q . && { echo "$port"; return; }
    sleep 0.05
  done
  echo "bench-shell: iperf3 server did not start" >&2; exit 2
}

# shell LABEL PROFILE COMMAND: one session, its log in $work/LABEL/, stderr kept.
shell() {
  local label=$1 profile=$2 command=$3 extra=${4:-}
  mkdir -p "$work/$label"
  # shellcheck disable=SC2086
  "$netbench" shell "$profile" $extra --log "$work/$label" -- sh -c "$command" 2>"$work/$label.err" || {
    echo "bench-shell: $label: netbench shell failed:" >&2; cat "$work/$label.err" >&2; exit 2; }
}
cat > "$work/ping50.json" <<JSON
{ "schemaVersion": 1, "name": "ping50", "rtt": "50ms", "down": "10Mbit", "up": "10Mbit", "queue": "bdp",
  "description": "bench-shell: 10 Mbit/s each way, 25 ms one-way delay each way" }
JSON
iperf() { echo "iperf3 -c \"\$NETBENCH_HOST\" -p $(iperf_server) -R -C cubic"; }

echo "netbench $("$netbench" --version 2>/dev/null | head -1), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
shell idle 4G "sleep 10"
shell iperf-4G 4G "$(iperf) -O 5 -t $seconds -J > $work/iperf-4G.json"
shell ping "$work/ping50.json" "ping -n -c 400 -i 0.05 \"\$NETBENCH_HOST\" > $work/ping.txt"
shell ping-precise "$work/ping50.json" "ping -n -c 400 -i 0.05 \"\$NETBENCH_HOST\" > $work/ping-precise.txt" \
  --emulator-precise
shell ping-slow 4G "ping -n -c 50 -i 0.2 \"\$NETBENCH_HOST\" > /dev/null"
shell iperf-trace "$here/Scenarios/profiles/Verizon-LTE-short.json" "$(iperf) -t $seconds -J > $work/iperf-trace.json"

"$netbench" scenario export "$here/Scenarios/pages/mobile-median.json" -o "$work/export" --port "$(free_port)" \
  >/dev/null
nginx -c "$work/export/nginx.conf" -p "$work/export" 2>"$work/nginx.err"
read -r host path size < <(python3 - "$work/export/www" <<'PY'
import os, sys
best = max(((os.path.getsize(os.path.join(d, f)), os.path.join(d, f)) for d, _, fs in os.walk(sys.argv[1]) for f in fs))
rel = os.path.relpath(best[1], sys.argv[1]); host, path = rel.split("/", 1)
print(host, "/" + path, best[0])
PY
)
port=$(sed -n 's/^ *listen \([0-9]*\) ssl.*/\1/p' "$work/export/nginx.conf" | head -1)
shell curl 4G "curl -sS --http2 --cacert $work/export/tls/ca.pem --resolve $host:$port:\$NETBENCH_HOST \
  -o $work/curl.body -w '%{http_version} %{http_code} %{size_download}' https://$host:$port$path > $work/curl.txt"
cmp -s "$work/curl.body" "$work/export/www/$host$path" && same=yes || same=no

python3 - "$work" "$seconds" "$here/Scenarios/traces/Verizon-LTE-short.down" "$size" "$same" <<'PY'
import glob, json, statistics, sys
work, seconds, trace, size, same = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
def log(label): return json.load(open(glob.glob(f"{work}/{label}/*.json")[0]))
def pct(xs, q): xs = sorted(xs); return xs[min(len(xs) - 1, max(0, int(round(q * len(xs) + 0.5)) - 1))]
rows = []
i = json.load(open(f"{work}/iperf-4G.json"))
g = i["end"]["sum_received"]["bits_per_second"] / 1e6
rows.append(("4G iperf3 -R -C cubic, %d s (-O 5)" % seconds, "%.2f Mbit/s = %.1f%% of 9" % (g, g / 9 * 100),
             "ceiling 8.69 (96.5%%); target >= 94%%: %s" % ("pass" if g / 9 >= 0.94 else "FAIL")))
for label, mode in (("ping", ""), ("ping-precise", ", --emulator-precise")):
    rtts = [float(l.split("time=")[1].split()[0]) for l in open(f"{work}/{label}.txt") if "time=" in l]
    p50, p99 = pct(rtts, 0.5), pct(rtts, 0.99)
    rows.append(("ping, 10 Mbit/s, 25 ms each way%s (%d echoes)" % (mode, len(rtts)),
                 "p50 %.2f ms, p99 %.2f ms" % (p50, p99),
                 "50 ms; p99 within 0.5 ms: %s" % ("pass" if abs(p99 - 50) <= 0.5 else "FAIL")))
    e = log(label)["emulator"]
    if e.get("arrivalStamps") == "kernel":
        rows.append(("  the loop read those packets after they entered", "p50 %.0f us, p99 %.0f us" %
                     (e.get("readLatencyP50Us", 0), e.get("readLatencyP99Us", 0)),
                     "not charged to the link (arrivals stamped by the kernel; %d unstamped)" %
                     e.get("arrivalsUnstamped", 0)))
    else:
        rows.append(("  arrivals", "stamped when read", e.get("arrivalStampsFallback") or ""))
# Trace capacity per second from COMMAND's start (opportunities of 1500 bytes), wrapping like the emulator.
offs = [int(l) for l in open(trace) if l.strip()]
period = offs[-1]
cap = [0.0] * seconds
k = 0
while True:
    t = offs[k % len(offs)] + (k // len(offs)) * period
    if t > seconds * 1000: break
    cap[min(seconds - 1, (t - 1) // 1000 if t > 0 else 0)] += 1500 * 8 / 1e6
    k += 1
it = json.load(open(f"{work}/iperf-trace.json"))
got = [iv["sum"]["bits_per_second"] / 1e6 for iv in it["intervals"]][:seconds]
n = min(len(got), len(cap))
mg, mc = statistics.mean(got[:n]), statistics.mean(cap[:n])
corr = statistics.correlation(got[:n], cap[:n]) if n > 2 else float("nan")
rows.append(("Verizon-LTE-short iperf3 -R, %d s" % seconds, "mean %.2f Mbit/s" % mg,
             "trace capacity mean %.2f Mbit/s (%.0f%%), per-second correlation %.2f" % (mc, mg / mc * 100, corr)))
c = open(f"{work}/curl.txt").read().split()
rows.append(("curl --http2 from nginx (largest exported file)", "HTTP/%s %s, %s bytes" % (c[0], c[1], c[2]),
             "%d bytes on disk; identical: %s" % (size, same)))
for label, what in (("idle", "sleep 10 (idle)"), ("ping-slow", "ping every 200 ms"), ("iperf-4G", "iperf3 at 9 Mbit/s")):
    e = log(label)["emulator"]
    rows.append(("shell cost: " + what, "loop CPU %.2f%% of a core; lateness p99 %d us" %
                 (100 * (e.get("loopCPUShare") or 0), e.get("releaseLatenessP99Us", 0)),
                 "timer floor p99 %d us%s" % (e.get("timerFloorP99Us", 0), ", flagged" if e.get("flagged") else "")))
w = max(len(r[0]) for r in rows)
print("%-*s  %-38s  %s" % (w, "what", "netbench shell", "reference"))
for r in rows: print("%-*s  %-38s  %s" % (w, r[0], r[1], r[2]))
PY
