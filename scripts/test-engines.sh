#!/usr/bin/env bash
# Tests of the recipes that run netbench on engines users already have (part of scripts/test.sh):
#   - the Kubernetes Indexed Job and merge Job validate against the Kubernetes schemas, offline
#     (kubernetes-validate, strict), and a broken copy is rejected;
#   - the GitHub Actions matrix workflow passes actionlint, and a broken copy is rejected;
#   - a real single-node Slurm cluster (slurm-wlm + munge from Debian, started here and stopped
#     again) runs a 3-task `sbatch --array` of a small suite through scripts/slurm/submit.sh; the
#     merged result holds every planned run exactly once, each with the host that ran it.
# Usage: scripts/test-engines.sh [NETBENCH_BINARY]   (default .build/debug/netbench)
# Ends with the line "engines: N passed, M failed"; exits non-zero when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bin=$(cd "$(dirname "${1:-.build/debug/netbench}")" && pwd)/$(basename "${1:-.build/debug/netbench}")
venv="$root/.build-venv"
passed=0; failed=0
ok() { echo "  ok    $1"; passed=$((passed + 1)); }
bad() { echo "  FAIL  $1"; failed=$((failed + 1)); }

work=$(mktemp -d)
cluster="$work/slurm"
cleanup() {
  [ -d "$cluster" ] && scripts/slurm/local-cluster.sh stop "$cluster" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

echo "engine recipes:"
# --- Kubernetes ---------------------------------------------------------------------------------
kv="$venv/bin/kubernetes-validate"
if [ ! -x "$kv" ]; then
  bad "kubernetes-validate is not installed in $venv (scripts/bootstrap.sh --test installs it)"
else
  if "$kv" --strict --quiet scripts/k8s/netbench-indexed-job.yaml scripts/k8s/netbench-merge-job.yaml; then
    ok "Kubernetes manifests validate (strict, Kubernetes $("$kv" --version 2>/dev/null | awk '{print $NF}'))"
  else
    bad "Kubernetes manifests do not validate"
  fi
  sed 's/completionMode: Indexed/completionMode: Indexd/; s/parallelism: 4/parallelism: "four"/' \
      scripts/k8s/netbench-indexed-job.yaml > "$work/broken.yaml"
  if "$kv" --strict --quiet "$work/broken.yaml" >/dev/null 2>&1; then
    bad "a broken manifest (parallelism: \"four\") passed validation: the validator checks nothing"
  else
    ok "a broken manifest is rejected"
  fi
fi

# --- GitHub Actions -----------------------------------------------------------------------------
al="$venv/bin/actionlint"
if [ ! -x "$al" ]; then
  bad "actionlint is not installed in $venv (scripts/bootstrap.sh --test installs it)"
else
  if "$al" scripts/github/netbench-matrix.yml; then ok "GitHub Actions workflow passes actionlint"
  else bad "GitHub Actions workflow fails actionlint"; fi
  sed 's/needs: shard/needs: shards-that-do-not-exist/' scripts/github/netbench-matrix.yml > "$work/broken.yml"
  if "$al" "$work/broken.yml" >/dev/null 2>&1; then bad "a broken workflow passed actionlint"
  else ok "a broken workflow is rejected"; fi
fi

# --- Slurm --------------------------------------------------------------------------------------
if [ ! -x "$bin" ]; then
  bad "no netbench binary at $bin (swift build first)"
elif ! conf=$(scripts/slurm/local-cluster.sh start "$cluster" 2>"$work/cluster.err" | sed -n 's/^SLURM_CONF=//p') || [ -z "$conf" ]; then
  bad "could not start a local Slurm cluster: $(tail -n 3 "$work/cluster.err" | tr '\n' ' ')"
else
  export SLURM_CONF="$conf"
  mkdir -p "$work/suite"
  cat > "$work/suite/slurm-test.json" <<EOF
{"schemaVersion": 1, "name": "slurm-test", "scenarios": ["$root/Scenarios/pages/small-page.json"],
 "profiles": ["loopback"], "transports": ["h1", "h2", "h3"], "runs": 3, "seed": 7}
EOF
  export NETBENCH="$bin"
  export NETBENCH_HOME="$root/Scenarios"
  if timeout 600 scripts/slurm/submit.sh "$work/suite/slurm-test.json" 3 "$work/results" --wait > "$work/submit.log" 2>&1 \
     && [ -f "$work/results/merged/results.json" ]; then
    if python3 - "$work/results" <<'EOF'
import json, sys, collections
d = sys.argv[1]
runs = [r for r in json.load(open(d + "/merged/results.json"))["runs"] if not r.get("warmup")]
keys = collections.Counter((r["scenario"], r["profile"], r["transport"], r["index"]) for r in runs)
want = {("small-page", "loopback", t, i) for t in ("h1", "h2", "h3") for i in range(3)}
problems = []
if set(keys) != want: problems.append(f"run matrix differs: missing {sorted(want - set(keys))}, extra {sorted(set(keys) - want)}")
dup = [k for k, n in keys.items() if n > 1]
if dup: problems.append(f"runs twice: {dup}")
if any(not (r.get("host") or {}).get("hostname") for r in runs): problems.append("a run without its host")
bad = [r for r in runs if r["status"] != "ok"]
if bad: problems.append(f"{len(bad)} failed runs: {bad[0].get('error')}")
print("; ".join(problems) if problems else f"{len(runs)} runs, each once")
sys.exit(1 if problems else 0)
EOF
    then ok "Slurm: 3-task sbatch --array of a 9-run suite, merged: every run once, with its host"
    else bad "Slurm: merged result is wrong (see above)"; fi
  else
    bad "Slurm: the array or its merge failed: $(tail -n 5 "$work/submit.log" | tr '\n' ' ') $(cat "$work"/results/*.log 2>/dev/null | tail -n 5 | tr '\n' ' ')"
  fi
fi

echo "engines: $passed passed, $failed failed"
[ "$failed" = 0 ]
