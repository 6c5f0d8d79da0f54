#!/usr/bin/env bash
# Runs observability_program with --rotor-metrics and --rotor-trace at NP ranks x THREADS and
# checks the files (check_observability.py), that rotor-plot renders them (skipped without
# matplotlib), and that without the flags the program prints only its own output.
#   run_observability_test.sh PROGRAM CHECKER ROTOR_PLOT NP THREADS WORK_DIR [MPIEXEC FLAGS...]
set -euo pipefail
program=$1 checker=$2 plot=$3 np=$4 threads=$5 work=$6
shift 6
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
launch=()
if [[ $np -gt 1 ]]; then
  launch=("$@" -np "$np")
fi
records=20000 epochs=3
expected="records=$records epochs=$epochs"

"${launch[@]}" "$program" --ratings $records --epochs $epochs --rotor-threads="$threads" \
  --rotor-metrics="$work/run.metrics.jsonl" --rotor-trace="$work/run.trace.json" \
  > "$work/out" 2> "$work/err" || { cat "$work/err" >&2; fail "the run failed"; }
[[ $(cat "$work/out") == "$expected" ]] || fail "stdout is '$(cat "$work/out")'"
! grep -q rotor "$work/err" || fail "runtime output on stderr: $(cat "$work/err")"
/usr/bin/python3 "$checker" --metrics "$work/run.metrics.jsonl" --trace "$work/run.trace.json" \
  --records $records --epochs $epochs --ranks "$np" --threads "$threads"

# without the flags: the same output, no files, nothing on stderr from the runtime
(cd "$work" && "${launch[@]}" "$program" --ratings $records --epochs $epochs \
  --rotor-threads="$threads" > plain.out 2> plain.err)
[[ $(cat "$work/plain.out") == "$expected" ]] || fail "plain stdout is '$(cat "$work/plain.out")'"
! grep -q rotor "$work/plain.err" || fail "plain run printed: $(cat "$work/plain.err")"
[[ $(ls "$work" | wc -l) -eq 6 ]] || fail "plain run wrote files: $(ls "$work")"

if [[ $np -eq 1 ]]; then # an unwritable file is a clear error
  if "$program" --rotor-metrics="$work/no/such/dir/m.jsonl" > /dev/null 2> "$work/bad.err"; then
    fail "an unwritable metrics file was accepted"
  fi
  grep -qF -- "--rotor-metrics=$work/no/such/dir/m.jsonl: cannot open for writing" "$work/bad.err" \
    || fail "unclear error: $(cat "$work/bad.err")"
fi

if /usr/bin/python3 -c "import matplotlib" 2> /dev/null; then
  "$plot" --out "$work/pics" --trace "$work/run.trace.json" "$work/run.metrics.jsonl" \
    > "$work/pics.list"
  for stem in convergence throughput schedule; do
    [[ -s $work/pics/$stem.png && -s $work/pics/$stem.svg ]] || fail "rotor-plot wrote no $stem"
  done
else
  echo "rotor-plot check skipped: /usr/bin/python3 has no matplotlib"
fi
echo "observability np $np x $threads: all checks passed"
