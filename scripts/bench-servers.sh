#!/usr/bin/env bash
# The same page from third-party servers and from `netbench serve`, loaded by `netbench run --server`
# over the same two-namespace path (issue 14): median PLT per transport and server, side by side.
#
#   scripts/bench-servers.sh [--runs 10] [--scenario Scenarios/pages/mobile-median.json]
#                            [--netbench .build/release/netbench] [--notebook FILE]
#   --notebook FILE  after a successful run, append an entry to FILE (here: results/notebook/servers-page-load.md):
#                    UTC date, git describe, machine, this command line and the printed output
#
# The path: two network namespaces joined by a plain veth pair (no emulated link, no added delay:
# the RTT is the kernel's, a fraction of a millisecond; netbench's emulator lives inside `netbench run` and
# cannot carry third-party servers' traffic, and tc netem is missing on this VM's kernel: "Specified
# qdisc kind is unknown"). In the server namespace, at one address:
#   nginx       h1, h2   the files of `netbench scenario export` (its nginx.conf), port 8443/tcp
#   gtlsserver  h3       ngtcp2's example server (Debian ngtcp2-server), the same files under one root, 9443/udp
#   netbench    h1,h2,h3 `netbench serve`, port 10443 (tcp + udp)
# all three with the export's certificate and key (netbench through --cert/--key). Each round loads
# the page once per server and transport, the servers in turn (the first server rotates per round),
# so drift on a shared machine hits all alike. Prints the median PLT per transport and server. The
# scenario's server think times are removed for all servers (a static server cannot reproduce them).
# Needs root, ip (iproute2), nginx, gtlsserver, python3 (scripts/bootstrap.sh --test). Exit 2 on a
# failed start or a failed run.
set -euo pipefail
# shellcheck source=lib/notebook.sh
. "$(dirname "$0")/lib/notebook.sh"
notebook_wrap "$0" "$@"  # --notebook FILE: run again, keep the output, append a dated entry to FILE

runs=10
here=$(cd "$(dirname "$0")/.." && pwd)
scenario="$here/Scenarios/pages/mobile-median.json"
netbench="$here/.build/release/netbench"
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --scenario) scenario=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --netbench) netbench=$2; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "bench-servers: unknown option '$1' (try --help)" >&2; exit 64 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "bench-servers: needs root (network namespaces)" >&2; exit 2; }
for tool in ip nginx gtlsserver python3; do
  command -v "$tool" >/dev/null || { echo "bench-servers: $tool is missing (scripts/bootstrap.sh --test)" >&2; exit 2; }
done
[ -x "$netbench" ] || { echo "bench-servers: $netbench is not built (swift build -c release)" >&2; exit 2; }

name_shown=$(basename "$scenario")
tag="$$-$RANDOM"
srv="nb-$tag-bsrv" cli="nb-$tag-bcli"
vs="nbs${tag//-/}" vc="nbc${tag//-/}"
vs=${vs:0:15} vc=${vc:0:15}
octet=$((RANDOM % 200 + 20))
addr="198.19.$octet.1" caddr="198.19.$octet.2"
work=$(mktemp -d /tmp/netbench-bench-servers.XXXXXX)
chmod 755 "$work"  # nginx workers run as an unprivileged user
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  ip netns del "$srv" 2>/dev/null || true
  ip netns del "$cli" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

ip netns add "$srv"
ip netns add "$cli"
ip link add "$vs" netns "$srv" type veth peer name "$vc" netns "$cli"
ip -n "$srv" addr add "$addr/24" dev "$vs"
ip -n "$cli" addr add "$caddr/24" dev "$vc"
for ns_dev in "$srv:$vs" "$cli:$vc"; do
  ip -n "${ns_dev%%:*}" link set "${ns_dev#*:}" up
  ip -n "${ns_dev%%:*}" link set lo up
done

# Static servers cannot reproduce the scenario's server think times (EXPORT.txt says so): every server
# gets the page without them, so the comparison is of the servers alone.
python3 - "$scenario" "$work/page.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
removed = sum(r.pop("thinkTimeMs", 0) or 0 for r in s["resources"])
json.dump(s, open(sys.argv[2], "w"), indent=1)
print(f"bench-servers: server think times removed for every server ({removed:.1f} ms in all)")
PY
scenario="$work/page.json"
"$netbench" scenario export "$scenario" -o "$work/export" --port 8443 > /dev/null
mkdir -p "$work/export/logs"
chmod -R a+rX "$work/export"
# gtlsserver has one document root: the export's merged/ (every origin's files; none shares a path).
[ -d "$work/export/merged" ] || { echo "bench-servers: two origins share a path; gtlsserver cannot serve both" >&2; exit 2; }
tls="$work/export/tls"

ip netns exec "$srv" nginx -c "$work/export/nginx.conf" -p "$work/export" -g "daemon off;" > "$work/nginx.out" 2>&1 &
pids+=($!)
ip netns exec "$srv" gtlsserver -q -d "$work/export/merged" "$addr" 9443 "$tls/key.pem" "$tls/cert.pem" > "$work/gtls.out" 2>&1 &
pids+=($!)
ip netns exec "$srv" "$netbench" serve "$scenario" -t h1,h2,h3 -l "$addr:10443" --cert "$tls/cert.pem" --key "$tls/key.pem" > "$work/serve.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q "Ctrl-C" "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
grep -q "Ctrl-C" "$work/serve.out" || { echo "bench-servers: netbench serve did not start:" >&2; cat "$work/serve.out" >&2; exit 2; }
sleep 0.5

# name:port:transports
servers=("nginx:8443:h1,h2" "gtlsserver:9443:h3" "netbench:10443:h1,h2,h3")
echo "bench-servers: $name_shown over a plain veth between two namespaces, $runs round(s); $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$runs"); do
  for k in 0 1 2; do
    entry=${servers[$(( (round + k) % 3 ))]}
    name=${entry%%:*} rest=${entry#*:}
    port=${rest%%:*} transports=${rest#*:}
    out="$work/out/$name-$round"
    if ! ip netns exec "$cli" "$netbench" run "$scenario" --server "$addr:$port" --ca "$tls/ca.pem" -t "$transports" -n 1 -o "$out" -q 2> "$work/err"; then
      echo "bench-servers: round $round, $name failed:" >&2; cat "$work/err" >&2; exit 2
    fi
  done
done

python3 - "$work/out" "$runs" <<'EOF'
import json, os, statistics, sys
root, rounds = sys.argv[1], int(sys.argv[2])
plt = {}
failed = []
for d in sorted(os.listdir(root)):
    server = d.rsplit("-", 1)[0]
    for r in json.load(open(os.path.join(root, d, "results.json")))["runs"]:
        if r["status"] != "ok":
            failed.append(f"{d} {r['transport']}: {r.get('error')}")
            continue
        plt.setdefault((r["transport"], server), []).append(r["metrics"]["pltMs"])
peer = {"h1": "nginx", "h2": "nginx", "h3": "gtlsserver"}
print(f"{'transport':<10}{'peer':<12}{'peer PLT med':>14}{'netbench serve PLT med':>24}{'netbench/peer':>15}   n (peer, netbench)")
for t in ["h1", "h2", "h3"]:
    a, b = plt.get((t, peer[t]), []), plt.get((t, "netbench"), [])
    ma = statistics.median(a) if a else float("nan")
    mb = statistics.median(b) if b else float("nan")
    print(f"{t:<10}{peer[t]:<12}{ma:>11.1f} ms{mb:>21.1f} ms{mb / ma:>15.2f}   {len(a)}, {len(b)}")
for f in failed:
    print("failed:", f)
sys.exit(2 if failed else 0)
EOF
