#!/usr/bin/env bash
# The README's test command (and CI's, through .ci/run): installs what is missing, builds, runs the
# CI gate on a short smoke suite, then every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh --test
swift build 2>&1 | tail -n 20

# The regression gate, exercised on every change: the smoke suite through `netbench check`
# against the committed baseline and the suite's thresholds (physical lower bounds hold anywhere).
smoke=$(mktemp -d)
trap 'rm -rf "$smoke"' EXIT
.build/debug/netbench run Scenarios/suites/ci-smoke.json --out "$smoke/run" 2>&1 | tail -n 12
.build/debug/netbench check "$smoke/run" --baseline results/baseline --max-regression 400% \
    --thresholds Scenarios/suites/ci-smoke.json --junit "$smoke/junit.xml" | tail -n 3

# Fuzzing: every parser's libFuzzer harness (AddressSanitizer) a few seconds on the shipped seeds; a
# trap or a broken error contract fails here (scripts/fuzz.sh --seconds N fuzzes longer).
scripts/fuzz.sh --seconds 4 --work "$smoke/fuzz"

swift test 2>&1

# The engine recipes (Kubernetes manifests, GitHub workflow, a real single-node Slurm array that
# shards a small suite and merges it); the script starts and stops its own Slurm daemons.
scripts/test-engines.sh .build/debug/netbench
