# `rotor-cc FLAG` with FLAG -std=c++11 or -ansi (C++98) stops with one line naming the requirement
# (Rotor's headers need C++17) and the flag.
# cmake -DROTOR_CC=... -DSOURCE=file.cpp -DOUT=file.o -DFLAG=-ansi -P OldStandard.cmake
if(NOT DEFINED FLAG)
  set(FLAG -std=c++11)
endif()
execute_process(COMMAND ${ROTOR_CC} ${FLAG} -c ${SOURCE} -o ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "rotor-cc ${FLAG} succeeded")
endif()
string(REPLACE "+" "\\+" flag_re "${FLAG}")
if(NOT err MATCHES "^rotor-cc: error: Rotor needs C\\+\\+17 or newer[^\n]*${flag_re}[^\n]*\n$")
  message(FATAL_ERROR "expected one line 'rotor-cc: error: Rotor needs C++17 or newer ... ${FLAG} ...', got:\n${err}")
endif()
message(STATUS "${err}")
