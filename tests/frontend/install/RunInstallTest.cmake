# Installs Rotor from BUILD_DIR into WORK/prefix, builds this directory's project with
# find_package(Rotor) + rotor_add_executable, also compiles with the installed rotor-cc
# directly, and runs both (they must print the same line as EXPECTED_BIN, a build-tree binary).
# CXX_FLAGS and LINKER_FLAGS: the build's own (the sanitizer flags of the asan and tsan presets).
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed:\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK}/build -G Ninja
                        -DCMAKE_PREFIX_PATH=${WORK}/prefix -DLOOPS_SOURCE=${LOOPS_SOURCE}
                        "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring against the installed Rotor failed:\n${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building against the installed Rotor failed:\n${out}\n${err}")
endif()
execute_process(COMMAND ${WORK}/prefix/bin/rotor-cc -O1 ${LOOPS_SOURCE} -o ${WORK}/loops_cc
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the installed rotor-cc failed:\n${err}")
endif()
execute_process(COMMAND ${EXPECTED_BIN} OUTPUT_VARIABLE expected)
foreach(bin ${WORK}/build/loops ${WORK}/loops_cc)
  execute_process(COMMAND ${bin} --rotor-threads=2 RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL expected)
    message(FATAL_ERROR "${bin}: exit ${rc}, printed '${out}', expected '${expected}'")
  endif()
endforeach()
