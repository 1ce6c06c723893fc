#!/usr/bin/env bash
# Submits a netbench suite as a Slurm array of N shards plus a merge job that runs after it.
#   scripts/slurm/submit.sh SUITE.json N RESULTS_DIR [--wait]
# RESULTS_DIR must be on a file system every node sees. Prints the two job ids.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite=${1:?usage: $0 SUITE.json N RESULTS_DIR [--wait]}
n=${2:?usage: $0 SUITE.json N RESULTS_DIR [--wait]}
results=${3:?usage: $0 SUITE.json N RESULTS_DIR [--wait]}
wait_flag=()
[ "${4:-}" = "--wait" ] && wait_flag=(--wait)
mkdir -p "$results"
results=$(cd "$results" && pwd)
suite=$(cd "$(dirname "$suite")" && pwd)/$(basename "$suite")
array=$(sbatch --parsable --array=1-"$n" --chdir="$results" "$here/netbench-array.sbatch" "$suite" "$results")
merge=$(sbatch --parsable "${wait_flag[@]}" --dependency=afterany:"$array" --chdir="$results" \
        "$here/netbench-merge.sbatch" "$results")
echo "shards: job $array (array 1-$n); merge: job $merge → $results/merged"
