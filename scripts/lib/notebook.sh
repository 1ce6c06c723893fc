# Lab-notebook entries for the benchmark scripts (sourced, not run).
#
# A benchmark script calls `notebook_wrap "$0" "$@"` before it parses its arguments. Without
# `--notebook FILE` that returns at once and the script runs as always. With it, the script is run
# again without `--notebook FILE`, its standard output shown and kept, and when it exits 0 an entry is
# appended to FILE (a Markdown file under results/notebook/): the UTC date, `git describe --always
# --dirty`, the machine (CPUs, kernel, CPU model, hypervisor, load average, steal time during the run),
# the exact command line and the script's printed output. The figures are never copied by hand.
#
# notebook_append FILE COMMAND OUTPUT_FILE [STEAL] writes one entry; the wrapper and tests call it.

# The /proc/stat "cpu" line as "steal total" in jiffies (steal is the 8th value; 0 when absent).
notebook_cpu_jiffies() {
  awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print ($9 == "" ? 0 : $9), t; exit }' \
    /proc/stat 2>/dev/null || echo "0 0"
}

# Steal time between two `notebook_cpu_jiffies` readings, as a percentage of all CPU time.
notebook_steal_percent() {
  local before=$1 after=$2
  awk -v b="$before" -v a="$after" 'BEGIN {
    split(b, x, " "); split(a, y, " "); total = y[2] - x[2]
    if (total <= 0) { print "unknown"; exit }
    printf "%.1f%%\n", 100 * (y[1] - x[1]) / total }'
}

# What idle CPUs do: the cpuidle driver and, for a KVM guest's haltpoll driver, how long an idle vCPU
# polls before it halts. On a guest that halts at once, every sleep and every wake-up of a thread on
# the other vCPU costs tens of microseconds (results/notebook/gigabit.md, 2026-11-29 22:38).
NOTEBOOK_HALT_POLL=/sys/module/haltpoll/parameters/guest_halt_poll_ns
notebook_idle() {
  local driver poll
  driver=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null) || driver=""
  poll=$(cat "$NOTEBOOK_HALT_POLL" 2>/dev/null) || poll=""
  if [ -z "$driver" ]; then echo "cpuidle unknown"
  elif [ "$driver" = haltpoll ] && [ -n "$poll" ]; then echo "cpuidle haltpoll, guest_halt_poll_ns $poll"
  else echo "cpuidle $driver"; fi
}

# For the benchmarks' --halt-poll-ns: `notebook_halt_poll_set NS` sets how long an idle vCPU polls before
# it halts, keeping the machine's value the first time (fails with a message if the file is not
# writable); `notebook_halt_poll_restore` puts that value back (call it from the script's EXIT trap).
notebook_halt_poll_saved=""
notebook_halt_poll_set() {
  [ -w "$NOTEBOOK_HALT_POLL" ] || { echo "--halt-poll-ns needs a writable $NOTEBOOK_HALT_POLL" >&2; return 2; }
  [ -n "$notebook_halt_poll_saved" ] || notebook_halt_poll_saved=$(cat "$NOTEBOOK_HALT_POLL")
  echo "$1" > "$NOTEBOOK_HALT_POLL"
}
notebook_halt_poll_restore() {
  [ -z "$notebook_halt_poll_saved" ] || echo "$notebook_halt_poll_saved" > "$NOTEBOOK_HALT_POLL"
}

# One line describing the machine, from /proc, uname and lscpu (whatever of them is readable).
notebook_machine() {
  local cpus kernel model hypervisor
  cpus=$(nproc 2>/dev/null || echo "?")
  kernel=$(uname -sr 2>/dev/null || echo "unknown kernel")
  model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
  hypervisor=$(lscpu 2>/dev/null | sed -n 's/^Hypervisor vendor:[[:space:]]*//p')
  if [ -z "$hypervisor" ]; then
    grep -qw hypervisor /proc/cpuinfo 2>/dev/null && hypervisor="yes (vendor unknown)" || hypervisor="none seen"
  fi
  printf '%s CPUs (nproc), %s, %s, hypervisor: %s, %s, load average %s' \
    "$cpus" "$kernel" "${model:-CPU model unknown}" "$hypervisor" "$(notebook_idle)" \
    "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
}

# The build the entry belongs to: `git describe --always --dirty` of the checkout.
notebook_build() {
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  git -C "$root" describe --always --dirty 2>/dev/null || echo "unknown (not a git checkout)"
}

# notebook_append FILE COMMAND OUTPUT_FILE [STEAL]: appends one dated entry to FILE.
notebook_append() {
  local file=$1 command=$2 output=$3 steal=${4:-not measured}
  if [ ! -s "$file" ]; then
    printf '# %s\n\nEntries appended by the benchmark scripts (`--notebook`), oldest first.\n' \
      "$(basename "$file" .md)" > "$file"
  fi
  {
    printf '\n## %s — %s\n\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(basename "${command%% *}")"
    printf -- '- **Command:** `%s`\n' "$command"
    printf -- '- **Build:** `%s` (git describe --always --dirty)\n' "$(notebook_build)"
    printf -- '- **Machine:** %s; steal during the run: %s\n\n' "$(notebook_machine)" "$steal"
    printf '```text\n'
    cat "$output"
    [ -z "$(tail -c 1 "$output")" ] || printf '\n'
    printf '```\n'
  } >> "$file"
}

# The command line as typed, each word quoted only when it needs it.
notebook_command_line() {
  local word line=""
  for word in "$@"; do
    if [[ "$word" =~ ^[A-Za-z0-9_./:=,%+@-]+$ ]]; then line+=" $word"; else line+=" $(printf '%q' "$word")"; fi
  done
  printf '%s' "${line# }"
}

# notebook_wrap SCRIPT ARGS...: see the top of this file. Exits with the script's status when
# --notebook is given; returns otherwise.
notebook_wrap() {
  local script=$1; shift
  local file="" args=() arg help=0
  local typed; typed=$(notebook_command_line "$script" "$@")
  while [ $# -gt 0 ]; do
    case "$1" in
      --notebook) [ $# -ge 2 ] || { echo "$(basename "$script"): --notebook needs a FILE" >&2; exit 64; }
                  file=$2; shift 2 ;;
      --notebook=*) file=${1#--notebook=}; shift ;;
      -h|--help) help=1; args+=("$1"); shift ;;
      *) args+=("$1"); shift ;;
    esac
  done
  [ -n "$file" ] || return 0
  [ "$help" = 0 ] || exec "${BASH:-bash}" "$script" "${args[@]}"
  case "$file" in *.md) ;; *) echo "$(basename "$script"): --notebook takes a Markdown file (*.md)" >&2; exit 64 ;; esac
  [ -d "$(dirname "$file")" ] && [ -w "$(dirname "$file")" ] ||
    { echo "$(basename "$script"): --notebook $file: its directory is missing or not writable" >&2; exit 64; }
  local kept status before after started=$SECONDS errexit=0
  [[ $- == *e* ]] && errexit=1
  kept=$(mktemp)
  before=$(notebook_cpu_jiffies)
  set +e
  "${BASH:-bash}" "$script" "${args[@]}" | tee "$kept"
  status=${PIPESTATUS[0]}
  [ "$errexit" = 0 ] || set -e
  after=$(notebook_cpu_jiffies)
  if [ "$status" = 0 ]; then
    notebook_append "$file" "$typed" "$kept" \
      "$(notebook_steal_percent "$before" "$after") of $((SECONDS - started)) s"
    echo "notebook: entry appended to $file" >&2
  else
    echo "notebook: $(basename "$script") exited $status; nothing appended to $file" >&2
  fi
  rm -f "$kept"
  exit "$status"
}
