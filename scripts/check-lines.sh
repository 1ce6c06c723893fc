#!/usr/bin/env bash
# Fails when a Swift source or test line is longer than 120 columns (characters, not bytes), naming
# each as file:line. `swift-format format --in-place -r Sources Tests` (the configuration is
# .swift-format at the root) breaks most long lines; a long string literal is split by hand.
#   scripts/check-lines.sh [LIMIT]
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${1:-120}
case "$limit" in
  -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
  *[!0-9]*|'') echo "check-lines: LIMIT must be a number" >&2; exit 64 ;;
esac
find Sources Tests Package.swift -name '*.swift' -print0 | python3 -c '
import sys
limit = int(sys.argv[1])
long = []
for path in sorted(p for p in sys.stdin.read().split("\0") if p):
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            width = len(line.rstrip("\n"))
            if width > limit:
                long.append(f"{path}:{n}: {width} columns")
for l in long:
    print(l, file=sys.stderr)
if long:
    print(f"check-lines: {len(long)} line(s) over {limit} columns", file=sys.stderr)
    sys.exit(1)
print(f"check-lines: no Swift line over {limit} columns")
' "$limit"
