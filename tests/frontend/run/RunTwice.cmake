# Runs PROGRAM twice under LAUNCHER (e.g. mpirun -np 2) and requires two equal, non-empty
# `checksum=` outputs: a loop with per-worker private state is not serial-equivalent, but it must
# be deterministic.
separate_arguments(launcher UNIX_COMMAND "${LAUNCHER}")
foreach(run 1 2)
  execute_process(COMMAND ${launcher} ${PROGRAM} --rotor-threads=1 RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out${run} ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "run ${run}: exit ${rc}\n${out${run}}\n${err}")
  endif()
endforeach()
if(NOT out1 MATCHES "checksum=[0-9]+")
  message(FATAL_ERROR "no checksum in the output:\n${out1}")
endif()
if(NOT out1 STREQUAL out2)
  message(FATAL_ERROR "two runs differ:\n${out1}\n---\n${out2}")
endif()
message(STATUS "deterministic: ${out1}")
