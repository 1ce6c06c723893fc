#!/usr/bin/env bash
# The packet loop's cost at one rate (issue 27): `netbench calibrate` at --rate and --rtt, for each of
# the given netbench binaries and emulator settings in turn, alternating, --rounds times; per run the
# TCP goodput, the loop thread's CPU (user and system), its CPU time per packet, the TUNs' NAPI threads'
# CPU (the receiving stacks, when they run there), the release lateness p99 and the probes' RTT error
# p99 against its target, the loaded phase's packets per TUN read (segments per super-packet), per
# write and per release pass (the batching of --release-window). With --perf, each run's loop thread is
# sampled by `perf record` for 4 s of the loaded phase and the share of its samples spent in the
# kernel's receive path inside its writes (netif_receive_skb: the endpoints' IP and TCP input), in its
# epoll waits and in the kernel at all (the rest is the loop's own code) is printed. Each line also
# gives the loop's sleeps a second and what they cost at the timer floor's CPU per wake-up.
#
#   scripts/bench-loop-cpu.sh [--rate 1000Mbit] [--rtt 10ms] [--rounds 2] [--perf] [--halt-poll-ns LIST]
#                             [--config "LABEL=BINARY [calibrate flags]"]... [--notebook FILE]
#   --config  a binary and its calibrate flags under a label, e.g. "before=/tmp/nb-old" or
#             "napi=.build/release/netbench --tun-napi"; default: this tree's release build as it is
#             (no release window), with --release-window 100us and with --no-tun-offload
#   --halt-poll-ns LIST  on a KVM guest with the haltpoll cpuidle driver, run every config once per
#             value of /sys/module/haltpoll/parameters/guest_halt_poll_ns in LIST (e.g. 0,200000: how
#             long an idle vCPU polls before it halts), restoring the machine's value at the end
#   --notebook FILE  append a dated entry (here: results/notebook/gigabit.md), see scripts/lib/notebook.sh
#
# Needs root; build first (swift build -c release). Measurements share the machine with whatever runs:
# the load average and steal are printed with each round.
set -euo pipefail
# shellcheck source=lib/notebook.sh
. "$(dirname "$0")/lib/notebook.sh"
notebook_wrap "$0" "$@"
here=$(cd "$(dirname "$0")/.." && pwd)
rate=1000Mbit rtt=10ms rounds=2 perf=0 configs=() haltpolls=("")
while [ $# -gt 0 ]; do
  case "$1" in
    --rate) rate=$2; shift 2 ;;
    --rtt) rtt=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --perf) perf=1; shift ;;
    --config) configs+=("$2"); shift 2 ;;
    --halt-poll-ns) IFS=, read -r -a haltpolls <<<"$2"; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 0 ;;
    *) echo "bench-loop-cpu: unknown option '$1' (try --help)" >&2; exit 64 ;;
  esac
done
nb="$here/.build/release/netbench"
if [ ${#configs[@]} -eq 0 ]; then
  configs=("default=$nb" "window=$nb --release-window 100us" "no-offload=$nb --no-tun-offload")
fi
if [ "$perf" = 1 ] && ! command -v perf >/dev/null; then
  echo "bench-loop-cpu: --perf needs perf (apt-get install linux-perf)" >&2; exit 2
fi
work=$(mktemp -d /tmp/netbench-bench-loop-cpu.XXXXXX)
trap 'rm -rf "$work"; notebook_halt_poll_restore' EXIT
echo "calibrate --rtt $rtt --rate $rate --page-loads 0 --samples 50, $rounds round(s), $(nproc) CPUs"
for ((round = 1; round <= rounds; round++)); do
  for haltpoll in "${haltpolls[@]}"; do
  for config in "${configs[@]}"; do
    label=${config%%=*}; cmd=${config#*=}
    if [ -n "$haltpoll" ]; then notebook_halt_poll_set "$haltpoll" || exit 2; label="$label hp=$haltpoll"; fi
    bin=${cmd%% *}; flags=""; [ "$bin" != "$cmd" ] && flags=${cmd#* }
    [ -x "$bin" ] || { echo "bench-loop-cpu: $bin is not executable" >&2; exit 2; }
    steal0=$(notebook_cpu_jiffies); load=$(cut -d' ' -f1 /proc/loadavg)
    # shellcheck disable=SC2086
    "$bin" calibrate --rtt "$rtt" --rate "$rate" --page-loads 0 --samples 50 $flags >"$work/out" 2>/dev/null &
    pid=$!
    profile=""
    if [ "$perf" = 1 ]; then
      sleep 6.5  # timer floor 2 s, probes ~1 s, then the loaded phase's warm-up
      tid=$(for t in /proc/$pid/task/*; do echo "$(cut -d' ' -f1 "$t/schedstat") ${t##*/}"; done | sort -n |
        tail -1 | cut -d' ' -f2)
      { perf record -g -t "$tid" -o "$work/perf.data" -- sleep 4 || true; } >/dev/null 2>&1
      profile=$(perf report -i "$work/perf.data" --children --sort sym --stdio -g none 2>/dev/null | awk '
        /\[k\] netif_receive_skb$/ { rx = $1 } /\[k\] do_epoll_wait$/ { ep = $1 } /\[k\] tun_get_user$/ { tg = $1 }
        /\[k\] do_syscall_64$/ { sc = $1 }
        END { printf "perf: kernel receive path %s, tun_get_user %s, epoll waits %s, all syscalls %s of samples",
              rx ? rx : "0%", tg ? tg : "0%", ep ? ep : "0%", sc ? sc : "0%" }')
      # The loop's own code (netbench, the Swift runtime, libc, vdso) against the kernel's.
      profile+=$(perf report -i "$work/perf.data" --no-children --sort dso --stdio -g none 2>/dev/null | awk '
        $2 == "[kernel.kallsyms]" { k = $1 } END { printf ", kernel %s (user space the rest)", k ? k : "0%" }')
    fi
    wait "$pid" || true
    steal=$(notebook_steal_percent "$steal0" "$(notebook_cpu_jiffies)")
    python3 - "$work/out" "$label" "$round" "$load" "$steal" "$profile" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
label, rnd, load, steal, profile = sys.argv[2:7]
def grab(pattern, default="unknown"):
    m = re.search(pattern, text)
    return m.group(1) if m else default
goodput = grab(r"goodput .*?measured ([0-9.]+ [MG]bit/s = [0-9.]+%)")
rtt = grab(r"\|error\| median [0-9.]+ ms, (p99 [0-9.]+ ms [✓✗])")
loaded = next((l for l in text.splitlines() if l.strip().startswith("loaded")), "")
def field(pattern):
    m = re.search(pattern, loaded)
    return m.group(1) if m else "unknown"
cpu = field(r"loop CPU ([0-9.]+%) of a core")
split = field(r"of a core \((user [0-9.]+%, system [0-9.]+%); ")
per = field(r"([0-9.]+ µs) per packet")
late = field(r"p99 ([0-9.]+ ms) [✓✗]")
napi = grab(r"receiving stacks \([^)]*\) ([0-9.]+%|unknown) of a core", "not used")
m = re.search(r"TUN offload: ([0-9]+) reads, ([0-9]+) writes for ([0-9]+) packets"
              r"(?: in ([0-9]+) release passes \(window ([0-9.]+) µs)?", text)
batching = "packets per write unknown"
if m and int(m.group(2)) > 0:
    packets = int(m.group(3))
    batching = f"{packets / int(m.group(1)):.2f} packets per read, {packets / int(m.group(2)):.2f} per write"
    if m.group(4) and int(m.group(4)) > 0:
        batching += f", {packets / int(m.group(4)):.2f} per pass (window {m.group(5)} µs)"
print(f"round {rnd} {label:<14} goodput {goodput:<24} loop CPU {cpu} ({split}), {per}/packet, "
      f"NAPI threads {napi}, lateness p99 {late}, RTT error {rtt}; {batching}; load {load}, steal {steal}")
sleeps = field(r"; ([0-9.]+ sleeps a second(?:, ≈ [0-9.]+% of a core)?)")
wake = grab(r"a sleep of [0-9.]+ µs cost ([0-9.]+ µs)")
if profile: print(f"               {profile}")
print(f"               {sleeps} (timer floor: {wake} of CPU per 100 µs sleep)")
PY
  done
  done
done
