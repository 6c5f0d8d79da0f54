#!/usr/bin/env bash
# Every path a user gives an example (--data, --test, --model, --rotor-checkpoint,
# --rotor-metrics, --rotor-trace, --rotor-record-order) that cannot be opened or created, and a bad
# --rotor-* value: a non-zero exit (not a signal) and exactly one line on stderr naming the path.
#   bad_paths.sh EXAMPLES_DIR WORK_DIR
set -uo pipefail
examples=${1:?usage: bad_paths.sh EXAMPLES_DIR WORK_DIR}
work=${2:?work dir}
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
printf '0,1,3.5\n1,0,2.0\n2,2,4.0\n' > ratings.csv
printf '3\n3\n3\n1 1 2\n2 2 1\n3 3 1\n' > docword.txt
printf '1 1:0.5 2:1\n-1 2:0.25\n' > train.libsvm
touch a_file                       # a path under a plain file can never be created
bad=$work/a_file/sub
failures=0 checks=0

# check NAME EXPECT PROGRAM ARGS...: EXPECT must appear in the one stderr line.
check() {
  local name=$1 expect=$2
  shift 2
  checks=$((checks + 1))
  "$@" > out.txt 2> err.txt
  local rc=$?
  # TBB's own "number of workers is limited" notes are not Rotor's output.
  grep -v -e '^TBB Warning' -e '^$' err.txt > err.rotor.txt
  local lines
  lines=$(wc -l < err.rotor.txt)
  if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$expect" err.rotor.txt; then
    echo "FAIL $name: exit $rc, $lines stderr lines (want 1 naming '$expect'):"
    sed 's/^/    /' err.txt | head -20
    failures=$((failures + 1))
  else
    echo "ok   $name: exit $rc: $(cat err.rotor.txt)"
  fi
}

for build in serial rotor; do
  for ex in sgd_mf lda logreg; do
    bin=$examples/$ex
    [ "$build" = serial ] && bin=${bin}_serial
    case $ex in
    sgd_mf) data=ratings.csv extra=(--epochs 1 --model none) ;;
    lda) data=docword.txt extra=(--iterations 1 --topics 2) ;;
    logreg) data=train.libsvm extra=(--epochs 1) ;;
    esac
    check "$ex.$build --data missing" "$work/missing.txt" "$bin" --data "$work/missing.txt"
    if [ "$ex" != lda ]; then
      check "$ex.$build --test missing" "$work/missing.test" "$bin" --data "$data" \
        --test "$work/missing.test" "${extra[@]}"
    fi
    if [ "$ex" = sgd_mf ]; then
      check "$ex.$build --model in no directory" "$bad/m.h5" "$bin" --data "$data" --epochs 1 \
        --model "$bad/m.h5"
    fi
    [ "$build" = rotor ] || continue
    check "$ex.$build --rotor-checkpoint" "$bad/ck" "$bin" --data "$data" "${extra[@]}" \
      --rotor-checkpoint="$bad/ck"
    check "$ex.$build --rotor-metrics" "$bad/m.json" "$bin" --data "$data" "${extra[@]}" \
      --rotor-metrics="$bad/m.json"
    check "$ex.$build --rotor-trace" "$bad/t.json" "$bin" --data "$data" "${extra[@]}" \
      --rotor-trace="$bad/t.json"
    check "$ex.$build --rotor-record-order" "$bad/o.txt" "$bin" --data "$data" "${extra[@]}" \
      --rotor-record-order="$bad/o.txt"
    check "$ex.$build --rotor-threads=abc" "--rotor-threads" "$bin" --data "$data" \
      "${extra[@]}" --rotor-threads=abc
  done
done
echo "$((checks - failures)) of $checks checks passed"
[ "$failures" -eq 0 ]
