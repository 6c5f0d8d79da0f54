#!/usr/bin/env bash
# Issue 20, item 5: the Slurm batch script of docs/user/running.md ("Under Slurm") submitted with
# sbatch to a real one-node Slurm cluster that this test starts and stops: its own munged
# (socket and key in a scratch directory), slurmctld and slurmd (Debian's 22.05 packages; its
# own ports, state and spool; proctrack/linuxproc and task/affinity, no cgroups). The script runs
# unchanged; sbatch's command-line options, which override #SBATCH lines, size its allocation to
# this node (1 node, 2 tasks, 1 CPU per task). Checks: the job ends 0, srun started 2 MPI ranks
# of 1 thread through PMIx (the metrics file's run line), the model is bitwise that of the same
# program line under mpirun -np 2, and the metrics file and checkpoint are where the script says.
#   slurm_cluster_test.sh DOC SGD_MF ROTOR_GEN
# Exit 77 (SKIP) with one line where the Slurm daemons are missing or cannot run here.
set -euo pipefail
doc=$1 sgd_mf=$2 gen=$3
skip() {
  echo "SKIP: a one-node Slurm cluster cannot run here: $*"
  exit 77
}
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
for c in munged munge slurmctld slurmd sbatch sinfo scontrol; do
  command -v "$c" > /dev/null ||
    skip "no $c (Debian packages munge slurmctld slurmd slurm-client; scripts/install-deps.sh)"
done
[[ $(id -u) -eq 0 ]] || skip "slurmd must run as root to start jobs as their user"

work=$(mktemp -d /tmp/rotor-slurm.XXXXXX) # short: the munge socket path must fit sun_path
daemons=()
cleanup() {
  local p
  [[ -n ${job:-} ]] && scancel "$job" 2> /dev/null
  for p in "${daemons[@]}"; do kill "$p" 2> /dev/null || true; done
  for p in "${daemons[@]}"; do
    timeout 10 tail --pid="$p" -f /dev/null 2> /dev/null || kill -9 "$p" 2> /dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -m 711 "$work/munge"
mkdir "$work/state" "$work/spool" "$work/log" "$work/job"

# munge: a fresh key, the daemon in the foreground on the test's socket.
head -c 128 /dev/urandom > "$work/munge/key"
chmod 400 "$work/munge/key"
munged -F -f --socket="$work/munge/sock" --key-file="$work/munge/key" \
  --pid-file="$work/munge/pid" --seed-file="$work/munge/seed" \
  --log-file="$work/log/munged.log" > "$work/log/munged.out" 2>&1 &
daemons+=($!)
for ((i = 0; i < 50; i++)); do
  munge -S "$work/munge/sock" -n > /dev/null 2>&1 && break
  sleep 0.1
done
munge -S "$work/munge/sock" -n > /dev/null 2>&1 ||
  skip "munged does not answer: $(tail -1 "$work/log/munged.out")"

node=$(hostname -s)
port=$((20000 + ($$ % 10000) * 2)) # slurmctld's; slurmd's is the next
export SLURM_CONF=$work/slurm.conf
cat > "$SLURM_CONF" << EOF
ClusterName=rotortest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/sock
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=rotortest Nodes=$node Default=YES MaxTime=5 State=UP
EOF
slurmctld -D -i > "$work/log/slurmctld.out" 2>&1 &
daemons+=($!)
slurmd -D > "$work/log/slurmd.out" 2>&1 &
daemons+=($!)
state=""
for ((i = 0; i < 200; i++)); do
  state=$(sinfo -h -n "$node" -o %t 2> /dev/null || true)
  [[ $state == idle ]] && break
  for p in "${daemons[@]}"; do
    kill -0 "$p" 2> /dev/null ||
      skip "a Slurm daemon exited: $(grep -h -i error "$work"/log/*.out | tail -1)"
  done
  sleep 0.1
done
[[ $state == idle ]] ||
  skip "node $node not idle after 20 s (state '$state'): $(tail -1 "$work/log/slurmd.out")"
echo "ok: one-node Slurm cluster up: node $node, slurmctld on port $port"

# The job: the documented script, run as written from its submit directory.
cd "$work/job"
awk '/^## Under Slurm/ { s = 1 } s && /^```bash/ { b = 1; next } b && /^```/ { exit } b' "$doc" \
  > job.sh
grep -q '^srun ' job.sh || fail "no srun line in the Slurm script of $doc"
ln -s "$sgd_mf" sgd_mf
"$gen" ratings --users 300 --items 200 --ratings 20000 --out train.csv --test-out test.csv \
  > /dev/null
job=$(sbatch --parsable --nodes=1 --ntasks-per-node=2 --cpus-per-task=1 --time=2 job.sh)
for ((i = 0; i < 900; i++)); do # 90 s
  st=$(scontrol show job "$job" 2> /dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
  [[ $st == COMPLETED || $st == FAILED || $st == CANCELLED || $st == TIMEOUT ]] && break
  sleep 0.1
done
out=sgd_mf.$job.out
echo "job $job: $st"
grep -v '^epoch=' "$out" 2> /dev/null || true
[[ $st == COMPLETED ]] || fail "job $job ended $st: $(scontrol show job "$job" | grep -o 'ExitCode=[^ ]*')"
job_done=$job
job=""
closing=$(grep '^final epochs=20 ' "$out") || fail "no closing line in $out"
grep -q '"kind": "run", .*"ranks": 2, "threads": 1' "sgd_mf.$job_done.jsonl" ||
  fail "sgd_mf.$job_done.jsonl: not 2 ranks x 1 thread: $(head -1 "sgd_mf.$job_done.jsonl")"
[[ -s ckpt.$job_done/rotor-checkpoint.h5 ]] || fail "no checkpoint in ckpt.$job_done"
echo "ok: srun started 2 ranks x 1 thread (sgd_mf.$job_done.jsonl); checkpoint in ckpt.$job_done"

# The same program line under mpirun: the same model, bitwise.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 ./sgd_mf --data train.csv \
  --test test.csv --epochs 20 --rotor-threads=1 > mpirun.out 2>&1 || {
  cat mpirun.out
  fail "mpirun -np 2 exited non-zero"
}
hash() { tr ' ' '\n' <<< "$1" | sed -n 's/^model_hash=//p'; }
reference=$(grep '^final ' mpirun.out)
echo "slurm:  $closing"
echo "mpirun: $reference"
[[ $(hash "$closing") == $(hash "$reference") ]] ||
  fail "the Slurm job's model differs from mpirun -np 2's"
echo "ok: the documented Slurm script ran under slurmctld/slurmd with srun --mpi=pmix:" \
  "bitwise the model of mpirun -np 2"
