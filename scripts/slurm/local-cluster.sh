#!/usr/bin/env bash
# A throw-away single-node Slurm cluster for testing netbench's Slurm recipe on one machine.
#   scripts/slurm/local-cluster.sh start DIR   installs slurm-wlm + munge if missing (Debian), writes
#                                              DIR/slurm.conf and a munge key, starts munged, slurmctld
#                                              and slurmd with their state under DIR; prints the
#                                              environment to use (SLURM_CONF=...)
#   scripts/slurm/local-cluster.sh stop DIR    stops exactly the daemons it started (PIDs under DIR)
# Nothing outside DIR is configured; daemons listen on loopback ports picked at start.
set -euo pipefail

cmd=${1:-}; dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ] || { [ "$cmd" != start ] && [ "$cmd" != stop ]; }; then
  echo "usage: $0 start|stop DIR" >&2; exit 64
fi

stop() {
  for name in slurmd slurmctld munged; do
    f="$dir/$name.pid"
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$f"
  done
}

if [ "$cmd" = stop ]; then stop; exit 0; fi

missing=()
for p in slurm-wlm munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "local-cluster: installing ${missing[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The Debian packages start their own daemons with the system configuration; this cluster uses its own.
for svc in slurmd slurmctld munge; do
  command -v systemctl >/dev/null 2>&1 && systemctl is-active -q "$svc" 2>/dev/null && systemctl stop "$svc" || true
done

mkdir -p "$dir"/{state,spool,log}
dir=$(cd "$dir" && pwd)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ctl_port=$(free_port); node_port=$(free_port)
host=$(hostname -s)
cpus=$(nproc)
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))

dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
chmod 600 "$dir/munge.key"
munged --force --key-file="$dir/munge.key" --socket="$dir/munge.socket" --pid-file="$dir/munged.pid" \
       --log-file="$dir/log/munged.log" --seed-file="$dir/munge.seed"

cat > "$dir/slurm.conf" <<EOF
ClusterName=netbench-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$node_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SchedulerType=sched/backfill
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE
EOF

export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do
  if sinfo -h -o '%T' 2>/dev/null | grep -q -E '^idle'; then break; fi
  sleep 0.2
done
if ! sinfo -h -o '%T' 2>/dev/null | grep -q -E '^idle'; then
  echo "local-cluster: the node did not become idle; logs in $dir/log" >&2
  sinfo >&2 || true
  stop
  exit 1
fi
echo "SLURM_CONF=$SLURM_CONF"
