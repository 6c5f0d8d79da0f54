# One golden test: runs rotor-deps and compares its output with an expected file.
#   cmake -DTOOL=rotor-deps -DARGS="--json|x.loop" -DEXPECTED=x.json [-DEXPECT_FAIL=ON]
#         -P RunGolden.cmake      (run in the golden directory: paths in the output are relative)
# EXPECT_FAIL: the tool must exit non-zero, and stderr is compared instead of stdout.
# A test never rewrites a golden: tests/analysis/golden/approve.sh does that.
string(REPLACE "|" ";" ARGS "${ARGS}")
execute_process(COMMAND ${TOOL} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(EXPECT_FAIL)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${TOOL} ${ARGS}: expected a non-zero exit, got 0\n${out}")
  endif()
  set(got "${err}")
else()
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${TOOL} ${ARGS}: exit ${rc}\n${err}")
  endif()
  set(got "${out}")
endif()
file(READ ${EXPECTED} want)
if(NOT got STREQUAL want)
  message(FATAL_ERROR "${TOOL} ${ARGS}: output differs from ${EXPECTED}\n"
    "--- expected\n${want}\n--- got\n${got}\n"
    "(if the change is intended: tests/analysis/golden/approve.sh)")
endif()
