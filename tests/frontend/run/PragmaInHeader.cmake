# A '#pragma rotor' in a user header is not rewritten (rotor-cc rewrites the file it compiles):
# `rotor-cc --explain` must say so with a warning at the pragma, not pass over it silently.
# cmake -DROTOR_CC=... -DSOURCE=main.cpp -P PragmaInHeader.cmake
execute_process(COMMAND ${ROTOR_CC} --explain ${SOURCE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rotor-cc --explain failed (${rc}):\n${err}")
endif()
if(NOT err MATCHES "loop\\.h:13:1: warning: '#pragma rotor' in a header is ignored: rotor-cc rewrites loops only in the source file it compiles")
  message(FATAL_ERROR "expected a warning at loop.h:13, got:\n${err}")
endif()
message(STATUS "${err}")
