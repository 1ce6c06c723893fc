#!/usr/bin/env bash
# Fuzzes netbench's input parsers with libFuzzer (Swift's -sanitize=fuzzer, with AddressSanitizer):
#   scripts/fuzz.sh [--seconds N] [--work DIR] [TARGET...]     (default: every target, 60 s each)
# Targets: `.build/debug/netbench-fuzz --list` (scenario, profile, suite, results, report, runs-log, har, trace,
# http1-request, http1-response, quic-server, h3-streams). Seed corpora come from the shipped files (Scenarios/,
# results/baseline, Tests fixtures), from real protocol bytes the entry makes itself (h3-streams: requests of
# netbench's HTTP/3 client) and from saved regression inputs, generated into the work directory
# (default .build/fuzz-work, kept between runs so a corpus grows). Prints one line per target:
# seconds, executions, corpus size and findings. Each finding (crash-*, timeout-*, oom-*, leak-*) is
# left in WORK/findings/TARGET/; replay it with `.build/debug/netbench-fuzz TARGET FILE` and keep it as
# a regression input under Tests/FuzzRegressionTests/Fixtures/TARGET/. Exit 0: nothing found; 1: findings.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
work=.build/fuzz-work
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --work) work="$2"; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 64 ;;
        *) targets+=("$1"); shift ;;
    esac
done
all=(scenario profile suite results report runs-log har trace http1-request http1-response quic-server h3-streams)
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
    [[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz.sh: unknown target '$t' (one of ${all[*]})" >&2; exit 64; }
done

echo "fuzz.sh: building netbench-fuzz with -sanitize=fuzzer,address (scratch .build/fuzz)" >&2
swift build --scratch-path .build/fuzz --product netbench-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -D -Xswiftc FUZZING 2>&1 | grep -E "error|warning: |Compiling|Build" | grep -v "Cannot export local symbol" | tail -n 5 >&2
fuzzer=.build/fuzz/debug/netbench-fuzz
[ -x "$fuzzer" ] || { echo "fuzz.sh: $fuzzer was not built" >&2; exit 2; }

# Seeds: shipped files per target, plus every saved regression input.
seed() {  # seed TARGET FILE...
    local dir="$work/seeds/$1"; shift
    mkdir -p "$dir"
    for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/$(basename "$f")"; done
    return 0
}
rm -rf "$work/seeds"
seed scenario Scenarios/pages/*.json Tests/Support/Fixtures/*.json
seed profile Scenarios/profiles/*.json
seed suite Scenarios/suites/*.json
seed har Tests/BenchModelTests/Fixtures/har/*.har Tests/BenchModelTests/Fixtures/har-shapes/*.har
mkdir -p "$work/seeds/trace"
for f in Scenarios/traces/*.down Scenarios/traces/*.up; do head -n 300 "$f" > "$work/seeds/trace/$(basename "$f")"; done
printf '1\n' > "$work/seeds/trace/12mbit"; printf '0\r\n3 \r\n\r\n5\n' > "$work/seeds/trace/crlf"
python3 - "$work/seeds" <<'PY'
import json, os, sys
out = sys.argv[1]
os.makedirs(out + "/results", exist_ok=True); os.makedirs(out + "/runs-log", exist_ok=True)
for name, path in [("baseline", "results/baseline/results.json"), ("golden", "Tests/ReportersTests/Fixtures/golden/results.json")]:
    r = json.load(open(path))
    for n in (1, 3):
        small = dict(r, runs=r["runs"][:n])
        json.dump(small, open(f"{out}/results/{name}-{n}.json", "w"), indent=1, sort_keys=True)
        header = {"format": "netbench-runs", "schemaVersion": r["schemaVersion"], "planDigest": "0" * 64,
                  "host": r["host"], "netbenchVersion": r["netbenchVersion"], "startedAt": r["startedAt"], "suite": r["suite"]}
        lines = [json.dumps(header, sort_keys=True)] + [json.dumps(x, sort_keys=True) for x in r["runs"][:n]]
        open(f"{out}/runs-log/{name}-{n}.jsonl", "w").write("\n".join(lines) + "\n")
        open(f"{out}/runs-log/{name}-{n}-cut.jsonl", "w").write("\n".join(lines)[:-40])
PY
mkdir -p "$work/seeds/http1-request" "$work/seeds/http1-response" "$work/seeds/quic-server"
# The first byte of an HTTP/1.1 input sets the size of the pieces it is fed in.
printf '\x07GET /a?b=1 HTTP/1.1\r\nHost: x\r\nRange: bytes=5-\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' > "$work/seeds/http1-request/pipelined"
printf '\x3cPOST /u HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhelloPUT /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n0\r\nT: v\r\n\r\n' > "$work/seeds/http1-request/bodies"
printf '\x01GET / HTTP/1.0\r\n\r\n' > "$work/seeds/http1-request/http10"
printf '\x05HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nbodyHTTP/1.1 206 Partial\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n' > "$work/seeds/http1-response/mixed"
printf '\x02HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nHTTP/1.0 200 OK\r\n\r\nuntil close' > "$work/seeds/http1-response/head-then-close"
# quic-server records: [control][length:2][payload]. Control 0: a real client Initial (payload XORed
# over it from byte 1, zero bytes change nothing); 4: raw bytes; 8: a live connection, then a short
# header with its ID; high nibble: clock steps of 150 ms.
printf '\x00\x00\x01\x00' > "$work/seeds/quic-server/initial"
printf '\x00\x00\x01\x00\x31\x00\x01\x00\xf2\x00\x04\x00\x00\x00\x01' > "$work/seeds/quic-server/initial-then-retransmit"
printf '\x08\x00\x10\x41\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' > "$work/seeds/quic-server/live-short-header"
printf '\x04\x00\x05\xc0\xff\x00\x00\x1d' > "$work/seeds/quic-server/raw-long-header"
mkdir -p "$work/seeds/report" && cp "$work/seeds/results"/* "$work/seeds/report/"
# h3-streams records: [control][length:2][payload]; the entry writes its seeds itself (the stream bytes a
# server in memory received from netbench's HTTP/3 client: control stream, QPACK encoder stream, requests).
NETBENCH_FUZZ_TARGET=h3-streams NETBENCH_FUZZ_WRITE_SEEDS="$work/seeds/h3-streams" "$fuzzer" >/dev/null 2>&1 \
    || { echo "fuzz.sh: netbench-fuzz could not write the h3-streams seeds" >&2; exit 2; }
for t in "${all[@]}"; do seed "$t" Tests/FuzzRegressionTests/Fixtures/"$t"/*; done

# Dictionaries: the JSON keys of the seeds (libFuzzer splices them in), HTTP tokens.
mkdir -p "$work/dict"
for t in scenario profile suite results report runs-log har; do
    grep -ohE '"[A-Za-z_][A-Za-z0-9_]*"' "$work/seeds/$t"/* 2>/dev/null | sort -u | sed 's/"/\\"/g; s/^/"/; s/$/"/' > "$work/dict/$t"
    printf '"-1"\n"1e308"\n"9223372036854775807"\n"-9223372036854775808"\n"null"\n"true"\n"\\\\u0000"\n"%%"\n' >> "$work/dict/$t"
done
printf '"\\x01"\n"\\x04"\n"\\x00\\x00"\n"\\xD1\\xD7\\xC1"\n"\\x3F\\xE1\\x1F"\n' > "$work/dict/h3-streams"
printf '"HTTP/1.1"\n"HTTP/1.0"\n"\\x0D\\x0A"\n"Content-Length: "\n"Transfer-Encoding: chunked"\n"Connection: close"\n"Host: "\n"Range: bytes="\n"9223372036854775807"\n' > "$work/dict/http1-request"
cp "$work/dict/http1-request" "$work/dict/http1-response"

found=0
printf '%-15s %8s %12s %8s %s\n' target seconds executions corpus findings
for t in "${targets[@]}"; do
    corpus="$work/corpus/$t"; findings="$work/findings/$t"
    mkdir -p "$corpus" "$findings"
    dict=(); [ -s "$work/dict/$t" ] && dict=(-dict="$work/dict/$t")
    log="$work/$t.log"
    start=$(date +%s)
    set +e
    NETBENCH_FUZZ_TARGET="$t" "$fuzzer" -max_total_time="$seconds" -timeout=30 \
        -rss_limit_mb=3072 -max_len=65536 -print_final_stats=1 -artifact_prefix="$findings/" "${dict[@]}" \
        "$corpus" "$work/seeds/$t" > "$log" 2>&1
    rc=$?
    set -e
    elapsed=$(( $(date +%s) - start ))
    execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -n 1 || true)
    [ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#' || true)
    units=$(ls "$corpus" | wc -l)
    artifacts=$(ls "$findings" | wc -l)
    note="none"
    if [ "$artifacts" -gt 0 ] || [ "$rc" -ne 0 ]; then
        found=1
        note="$(ls "$findings" | sed "s|^|$findings/|" | tr '\n' ' ')(exit $rc; log $log)"
        grep -m 3 -E 'Fatal error|ERROR: |netbench-fuzz' "$log" | sed 's/^/    /' >&2 || true
    fi
    printf '%-15s %8s %12s %8s %s\n' "$t" "$elapsed" "${execs:-?}" "$units" "$note"
done
exit "$found"
