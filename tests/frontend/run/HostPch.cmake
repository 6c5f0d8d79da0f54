# rotor-cc's precompiled rotor.h for the host compile (frontend/driver/HostPch.h): the first
# compile builds it into the cache directory and uses it (GCC's -H marks a used PCH with '!'), a
# changed input makes the next compile build it again, a -MD dependency file names the headers
# inside it, ROTOR_CC_PCH=0 turns it off.
# cmake -DROTOR_CC=... -DSOURCE=file.cpp -DWORK=dir -P HostPch.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ENV{ROTOR_CC_CACHE_DIR} ${WORK}/cache)

function(compile out_var)
  execute_process(COMMAND ${ROTOR_CC} -v -H -std=c++17 -O1 -c ${SOURCE} -o ${WORK}/x.o
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rotor-cc failed (${rc}):\n${err}")
  endif()
  set(${out_var} "${err}" PARENT_SCOPE)
endfunction()

compile(first)
# The PCH directory of these flags (the -MD compile below has other flags, so another one).
file(GLOB pch_inputs ${WORK}/cache/gcc-*/inputs)
list(LENGTH pch_inputs count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "the first compile made ${count} PCH directories: ${pch_inputs}")
endif()
if(NOT first MATCHES "-x c\\+\\+-header")
  message(FATAL_ERROR "the first compile did not build the PCH:\n${first}")
endif()
if(NOT first MATCHES "\n! [^\n]*/cache/gcc-[0-9a-f]+/rotor/rotor\\.h\\.gch\n")
  message(FATAL_ERROR "the first compile did not use the PCH:\n${first}")
endif()

compile(second)
if(second MATCHES "-x c\\+\\+-header")
  message(FATAL_ERROR "the second compile built the PCH again:\n${second}")
endif()
if(NOT second MATCHES "\n! [^\n]*rotor\\.h\\.gch\n")
  message(FATAL_ERROR "the second compile did not use the PCH:\n${second}")
endif()

# The dependency file names Rotor's headers (GCC names neither the PCH nor what is inside it):
# without them a build tool would not recompile the object when a Rotor header changes.
execute_process(COMMAND ${ROTOR_CC} -std=c++17 -O1 -MD -MT ${WORK}/x.o -MF ${WORK}/x.d -c ${SOURCE}
                        -o ${WORK}/x.o RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rotor-cc -MD failed (${rc}):\n${err}")
endif()
file(READ ${WORK}/x.d depfile)
foreach(header rotor/runtime/Session.h rotor/distarray/Dataset.h)
  if(NOT depfile MATCHES "${header}")
    message(FATAL_ERROR "the dependency file does not name ${header}:\n${depfile}")
  endif()
endforeach()

# An input that changed since (here: its recorded stamp no longer matches) makes it again.
file(READ ${pch_inputs} text)
string(REGEX REPLACE "\n[0-9]+ [0-9.]+\n" "\n0 0.0\n" stale "${text}")
if(stale STREQUAL text)
  message(FATAL_ERROR "no stamp to change in ${pch_inputs}:\n${text}")
endif()
file(WRITE ${pch_inputs} "${stale}")
compile(third)
if(NOT third MATCHES "-x c\\+\\+-header")
  message(FATAL_ERROR "a changed input did not rebuild the PCH:\n${third}")
endif()

set(ENV{ROTOR_CC_PCH} 0)
compile(off)
if(off MATCHES "rotor\\.h\\.gch")
  message(FATAL_ERROR "ROTOR_CC_PCH=0 still used the PCH:\n${off}")
endif()
message(STATUS "host PCH built, used, in the dependency file, rebuilt when stale, off with ROTOR_CC_PCH=0")
