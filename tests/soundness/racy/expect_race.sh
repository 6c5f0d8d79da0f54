#!/usr/bin/env bash
# expect_race.sh COMPARE_SH SERIAL ROTOR SOURCE ROTOR_CC: the check that the corpus's tsan run can
# fail. Runs `compare.sh threads` on the deliberately racy program (hidden_race.cpp) and passes
# only when compare.sh fails AND ThreadSanitizer reported a data race at a line of SOURCE: a
# suppression, an uninstrumented build or a runtime that serialises the workers would make it
# fail. Exit 0 when the race was reported, 1 otherwise.
set -u
compare=$1
shift
out=$("$compare" threads "$@" 2>&1)
rc=$?
src=$(basename "$3")
if [ "$rc" -ne 0 ] && grep -q "^--- .*SUMMARY: ThreadSanitizer: data race .*$src:" <<<"$out"; then
  echo "PASS: compare.sh failed (exit $rc) on ThreadSanitizer's report of the race in $src"
  grep "SUMMARY: ThreadSanitizer" <<<"$out"
  exit 0
fi
echo "FAIL: expected compare.sh to fail with a ThreadSanitizer data race in $src (exit $rc)"
echo "$out"
exit 1
