#!/usr/bin/env bash
# Issue 20, item 5: the Slurm batch script of docs/user/running.md ("Under Slurm"), run as Slurm
# would run it on a 2-task allocation, with a stand-in `srun` on PATH: the stand-in records its
# options and environment and starts the program line with mpirun -np $SLURM_NTASKS. Checks that
# srun gets --mpi=pmix and --cpu-bind=cores, that ROTOR_THREADS comes from --cpus-per-task, and
# that the program line itself runs (sgd_mf accepts every flag; the metrics file and the
# checkpoint appear where the script says).
#   slurm_script_test.sh DOC SGD_MF ROTOR_GEN
set -euo pipefail
doc=$1 sgd_mf=$2 gen=$3
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The first ```bash block after the "## Under Slurm" heading.
awk '/^## Under Slurm/ { s = 1 } s && /^```bash/ { b = 1; next } b && /^```/ { exit } b' "$doc" \
  > "$work/job.sh"
grep -q '^srun ' "$work/job.sh" || fail "no srun line in the Slurm script of $doc"
mkdir "$work/bin"
cat > "$work/bin/srun" <<'STANDIN'
#!/usr/bin/env bash
# Stand-in srun: record the options and the environment, then run the rest under mpirun.
opts=()
while [[ $1 == --* ]]; do opts+=("$1"); shift; done
printf '%s\n' "${opts[@]}" > srun.options
env > srun.environment
exec mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$SLURM_NTASKS" "$@"
STANDIN
chmod +x "$work/bin/srun"
cd "$work"
ln -s "$sgd_mf" sgd_mf
"$gen" ratings --users 300 --items 200 --ratings 20000 --out train.csv --test-out test.csv \
  > /dev/null
export SLURM_JOB_ID=42 SLURM_SUBMIT_DIR=$work SLURM_CPUS_PER_TASK=1 SLURM_NTASKS=2 \
  SLURM_NNODES=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
PATH=$work/bin:$PATH bash job.sh > job.out 2>&1 || {
  cat job.out
  fail "the job script exited non-zero"
}
cat srun.options
grep -qx -- '--mpi=pmix' srun.options || fail "srun without --mpi=pmix"
grep -qx -- '--cpu-bind=cores' srun.options || fail "srun without --cpu-bind=cores"
grep -qx 'ROTOR_THREADS=1' srun.environment || fail "ROTOR_THREADS is not SLURM_CPUS_PER_TASK"
grep -qx "ROTOR_CHECKPOINT=$work/ckpt.42" srun.environment || fail "ROTOR_CHECKPOINT"
grep -q '^final epochs=20 ' job.out || fail "no closing line: $(cat job.out)"
[[ -s sgd_mf.42.jsonl ]] || fail "no metrics file sgd_mf.42.jsonl"
[[ -s ckpt.42/rotor-checkpoint.h5 ]] || fail "no checkpoint in ckpt.42"
grep '^final ' job.out
echo "ok: the script's srun line: --mpi=pmix --cpu-bind=cores, ROTOR_THREADS=1; the program" \
  "line ran (2 ranks) and wrote sgd_mf.42.jsonl and ckpt.42/rotor-checkpoint.h5"
