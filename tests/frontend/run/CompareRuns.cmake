# Runs SERIAL and ROTOR (with ROTOR_ARGS, optionally under LAUNCHER) and requires equal stdout.
separate_arguments(launcher UNIX_COMMAND "${LAUNCHER}")
separate_arguments(rotor_args UNIX_COMMAND "${ROTOR_ARGS}")
execute_process(COMMAND ${SERIAL} RESULT_VARIABLE rc1 OUTPUT_VARIABLE serial ERROR_VARIABLE e1)
execute_process(COMMAND ${launcher} ${ROTOR} ${rotor_args} RESULT_VARIABLE rc2
                OUTPUT_VARIABLE rotor ERROR_VARIABLE e2)
if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0)
  message(FATAL_ERROR "serial exit ${rc1}, rotor exit ${rc2}\n${e1}\n${e2}")
endif()
if(NOT serial STREQUAL rotor)
  message(FATAL_ERROR "outputs differ:\nserial: ${serial}\nrotor:  ${rotor}\n${e2}")
endif()
message(STATUS "equal: ${rotor}")
