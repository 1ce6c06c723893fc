#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh --test
swift build -c debug 2>&1 | tail -n 20
swift test 2>&1
