# `rotor-cc -std=c++11` stops with one line naming the requirement (Rotor's headers need C++17).
# cmake -DROTOR_CC=... -DSOURCE=file.cpp -DOUT=file.o -P OldStandard.cmake
execute_process(COMMAND ${ROTOR_CC} -std=c++11 -c ${SOURCE} -o ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "rotor-cc -std=c++11 succeeded")
endif()
if(NOT err MATCHES "^rotor-cc: error: Rotor needs C\\+\\+17 or newer[^\n]*-std=c\\+\\+11[^\n]*\n$")
  message(FATAL_ERROR "expected one line 'rotor-cc: error: Rotor needs C++17 or newer ...', got:\n${err}")
endif()
message(STATUS "${err}")
