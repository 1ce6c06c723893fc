#!/usr/bin/env bash
# Where does HTTP/3 lose to HTTP/2 on a bandwidth-bound link? Loads one page over h2 and over h3
# in QUIC variants (each a set of `run` options), interleaved round by round with the variants'
# order rotating, capturing the emulator's packets (--pcap), and prints per transport and variant,
# side by side: median PLT and ideal PLT, and per direction the IP bytes and packets that left the
# bottleneck (medians over runs), the downlink's IP bytes per body byte, and for h3 the length of
# the destination connection ID in the server's short-header packets (read from the packets).
# Needs root (network namespaces), python3 and a release build.
#
#   scripts/bench-h3-gap.sh [--page FILE] [--profile NAME] [--runs N] [--variant NAME=OPTIONS]...
#                           [--netbench PATH] [--notebook FILE]
#   --page FILE       scenario (default Scenarios/pages/mobile-median.json)
#   --profile NAME    emulated profile (default Cable)
#   --runs N          rounds (default 6); each round runs h2 once and h3 once per variant
#   --variant N=OPTS  an h3 variant: its name and the `run` options it adds, e.g.
#                     'full=--quic-udp-payload 1472'; repeatable. Default: default='',
#                     full='--quic-udp-payload 1472' and caoff='--quic-pacing 2,off' (no pacing after
#                     slow start, as Linux TCP cubic sends here); cid17='--quic-client-cid 17' gives
#                     ngtcp2's example client's connection IDs (netbench's client before 2026-11-27)
#   --rows FILE       also keep the raw rows (one line per run) in FILE
#   --notebook FILE   after a successful run, append an entry to FILE (here: results/notebook/h3-vs-h2.md)
set -euo pipefail
# shellcheck source=lib/notebook.sh
. "$(dirname "$0")/lib/notebook.sh"
notebook_wrap "$0" "$@"  # --notebook FILE: run again, keep the output, append a dated entry to FILE

root="$(cd "$(dirname "$0")/.." && pwd)"
page="$root/Scenarios/pages/mobile-median.json"
profile="Cable"
runs=6
netbench=""
variants=()
keep_rows=""
while [ $# -gt 0 ]; do
  case "$1" in
    --page) page="$2"; shift 2 ;;
    --profile) profile="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --variant) variants+=("$2"); shift 2 ;;
    --netbench) netbench="$2"; shift 2 ;;
    --rows) keep_rows="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-h3-gap.sh: unknown argument '$1' (see --help)" >&2; exit 64 ;;
  esac
done
case "$runs" in ''|*[!0-9]*) echo "bench-h3-gap.sh: --runs takes a whole number" >&2; exit 64 ;; esac
[ ${#variants[@]} -gt 0 ] || variants=("default=" "full=--quic-udp-payload 1472" "caoff=--quic-pacing 2,off")
for v in "${variants[@]}"; do
  case "$v" in *=*) ;; *) echo "bench-h3-gap.sh: --variant '$v': expected NAME=OPTIONS" >&2; exit 64 ;; esac
done
[ -f "$page" ] || { echo "bench-h3-gap.sh: --page $page: no such file" >&2; exit 64; }
[ -n "$netbench" ] || netbench="$root/.build/release/netbench"
[ -x "$netbench" ] || { echo "bench-h3-gap.sh: build first: swift build -c release (or pass --netbench PATH)" >&2; exit 64; }

work="$(mktemp -d /tmp/bench-h3-gap.XXXXXX)"
trap 'rm -rf "$work"' EXIT
: > "$work/rows"

# One netbench run of one variant: appends a row per transport (variant, transport, PLT, ideal,
# body bytes, then per direction IP bytes and packets, then the short-header DCID length).
one() {
  local name="$1" opts="$2" transports="$3" seed="$4"
  rm -rf "$work/out" "$work/pcap"; mkdir -p "$work/pcap"
  # shellcheck disable=SC2086  # the variant's options are words
  "$netbench" run "$page" --profile "$profile" --transport "$transports" --runs 1 --warmup 0 --seed "$seed" \
    --pcap "$work/pcap" --out "$work/out" --quiet $opts > "$work/log" 2>&1 \
    || { echo "bench-h3-gap.sh: run failed ($name):" >&2; tail -5 "$work/log" >&2; exit 2; }
  python3 - "$work/out/results.json" "$work/pcap" "$name" >> "$work/rows" <<'EOF' || exit 2
import glob, json, os, re, struct, sys

def packets(path):
    data = open(path, "rb").read()
    e = "<" if struct.unpack("<I", data[:4])[0] in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack(e + "I", data[off + 8:off + 12])[0]
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl

def dcid_length(path):
    """Bytes every short-header packet of a flow shares after its first byte: the DCID."""
    flows = {}
    for p in packets(path):
        if p[0] >> 4 != 4 or p[9] != 17: continue
        ihl = (p[0] & 15) * 4
        q = p[ihl + 8:]
        if q and q[0] & 0x80 == 0: flows.setdefault(p[ihl + 2:ihl + 4], []).append(q[1:22])
    best = []
    for qs in flows.values():
        if len(qs) < 20: continue
        n = 0
        while n < 21 and all(len(x) > n and x[n] == qs[0][n] for x in qs): n += 1
        best.append(n)
    return min(best) if best else -1

for run in json.load(open(sys.argv[1]))["runs"]:
    if run["status"] != "ok":
        sys.exit(f"bench-h3-gap.sh: {run['transport']} run failed: {run.get('error')}")
    m, t = run["metrics"], run["transport"]
    cols = [sys.argv[3] if t == "h3" else "-", t, m["pltMs"], m.get("idealPltMs") or 0, m["bytes"]]
    for d in ("down", "up"):
        files = glob.glob(os.path.join(sys.argv[2], f"*-{t}-*-{d}-out.pcap"))
        if len(files) != 1: sys.exit(f"bench-h3-gap.sh: expected one {t} {d}-out capture, found {files}")
        ps = list(packets(files[0]))
        cols += [sum(len(p) for p in ps), len(ps)]
    cols.append(dcid_length(glob.glob(os.path.join(sys.argv[2], f"*-{t}-*-down-out.pcap"))[0]) if t == "h3" else "-")
    e = run.get("emulator") or {}
    rate = re.search(r"down ([0-9.]+) (kbit|Mbit|Gbit)/s", e.get("configured", ""))
    bps = float(rate.group(1)) * {"kbit": 1e3, "Mbit": 1e6, "Gbit": 1e9}[rate.group(2)] if rate else 0
    cols += [e.get("packetsDroppedQueueDown", 0), bps]
    print(*cols)
EOF
}

for i in $(seq 1 "$runs"); do
  n=${#variants[@]}
  for k in $(seq 0 $((n - 1))); do
    v="${variants[$(((k + i) % n))]}"
    transports=h3; [ "$k" -eq 0 ] && transports=h2,h3
    [ $((i % 2)) -eq 0 ] && [ "$k" -eq 0 ] && transports=h3,h2
    one "${v%%=*}" "${v#*=}" "$transports" "$i"
  done
done

[ -z "$keep_rows" ] || cp "$work/rows" "$keep_rows"
echo "page $(basename "$page"), profile $profile, $runs rounds; medians over runs; IP bytes and packets that left"
echo "the emulated bottleneck (--pcap *-out); variants: $(printf '[%s] ' "${variants[@]}")"
python3 - "$work/rows" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    rows.setdefault((f[0], f[1]), []).append(f)
med = lambda rs, i: statistics.median(float(r[i]) for r in rs)
h2 = rows.get(("-", "h2"), [])
base_plt, base_down = (med(h2, 2), med(h2, 5)) if h2 else (None, None)
print(f"{'transport':<16}{'n':>3}{'PLT ms':>9}{'vs h2':>8}{'ideal':>8}{'down IP B':>11}{'vs h2':>8}{'pkts':>6}"
      f"{'B/body B':>9}{'busy ms':>8}{'idle ms':>8}{'drops':>6}{'up IP B':>9}{'pkts':>6}{'DCID':>6}")
for (name, t), rs in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    plt, down = med(rs, 2), med(rs, 5)
    rel = lambda a, b: f"{(a / b - 1) * 100:+.1f}%" if b else "-"
    label = t if name == "-" else f"{t} {name}"
    # The downlink's busy time is what its IP bytes take at the bottleneck rate; the rest of the
    # PLT the link idled (handshakes, request round trips, think times, slow start, loss recovery).
    busy = [float(r[5]) * 8 / float(r[11]) * 1000 if float(r[11]) > 0 else float("nan") for r in rs]
    idle = statistics.median(float(r[2]) - b for r, b in zip(rs, busy))
    print(f"{label:<16}{len(rs):>3}{plt:>9.0f}{rel(plt, base_plt):>8}{med(rs, 3):>8.0f}{down:>11.0f}"
          f"{rel(down, base_down):>8}{med(rs, 6):>6.0f}{down / med(rs, 4):>9.4f}{statistics.median(busy):>8.0f}"
          f"{idle:>8.0f}{med(rs, 10):>6.0f}{med(rs, 7):>9.0f}{med(rs, 8):>6.0f}{rs[0][9]:>6}")
print("busy ms: downlink IP bytes at the bottleneck rate; idle ms: PLT minus busy (median of per-run values);")
print("drops: downlink queue drops; DCID: bytes of destination connection ID in the server's short-header packets")
EOF
