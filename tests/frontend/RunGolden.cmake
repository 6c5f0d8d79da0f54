# Runs one rotor-cc golden test (never rewrites a golden; approve.sh does):
#   cmake -DROTOR_CC=... -DMODE=explain|explain_text|rewrite|diagnostic -DCASE=name.cpp -DDIR=cases-dir
#         -DEXPECTED=file -DOUT_DIR=dir [-DCXX=c++ -DCONFIG=rotor-cc.cfg] -P RunGolden.cmake
# explain:    `rotor-cc --explain=json CASE` must print EXPECTED exactly.
# explain_text: `rotor-cc --explain CASE` must print EXPECTED exactly.
# rewrite:    `rotor-cc --emit-source=OUT CASE` must write EXPECTED exactly; EXPECTED must then
#             compile cleanly (-Wall -Wextra -Werror) with CXX.
# diagnostic: `rotor-cc -c CASE` must fail with exit code 1 and print every line of EXPECTED.
get_filename_component(name ${CASE} NAME_WE)
if(MODE STREQUAL "explain")
  execute_process(COMMAND ${ROTOR_CC} --explain=json ${CASE} WORKING_DIRECTORY ${DIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rotor-cc --explain=json ${CASE} failed (${rc}):\n${err}")
  endif()
  file(WRITE ${OUT_DIR}/${name}.json "${out}")
  file(READ ${EXPECTED} expected)
  if(NOT out STREQUAL expected)
    execute_process(COMMAND diff -u ${EXPECTED} ${OUT_DIR}/${name}.json)
    message(FATAL_ERROR "${CASE}: --explain=json differs from ${EXPECTED}")
  endif()
elseif(MODE STREQUAL "explain_text")
  execute_process(COMMAND ${ROTOR_CC} --explain ${CASE} WORKING_DIRECTORY ${DIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rotor-cc --explain ${CASE} failed (${rc}):\n${err}")
  endif()
  file(WRITE ${OUT_DIR}/${name}.explain.txt "${out}")
  file(READ ${EXPECTED} expected)
  if(NOT out STREQUAL expected)
    execute_process(COMMAND diff -u ${EXPECTED} ${OUT_DIR}/${name}.explain.txt)
    message(FATAL_ERROR "${CASE}: --explain differs from ${EXPECTED}")
  endif()
elseif(MODE STREQUAL "rewrite")
  set(out_file ${OUT_DIR}/${name}.out.cpp)
  execute_process(COMMAND ${ROTOR_CC} --emit-source=${out_file} ${CASE} WORKING_DIRECTORY ${DIR}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "rotor-cc --emit-source ${CASE} failed (${rc}):\n${err}")
  endif()
  file(READ ${out_file} out)
  file(READ ${EXPECTED} expected)
  if(NOT out STREQUAL expected)
    execute_process(COMMAND diff -u ${EXPECTED} ${out_file})
    message(FATAL_ERROR "${CASE}: rewritten source differs from ${EXPECTED}")
  endif()
  set(CXX_FLAGS "")
  file(STRINGS ${CONFIG} cfg_lines REGEX "^compile ")
  foreach(l IN LISTS cfg_lines)
    string(SUBSTRING "${l}" 8 -1 flag)
    list(APPEND CXX_FLAGS "${flag}")
  endforeach()
  execute_process(COMMAND ${CXX} -std=c++17 -fsyntax-only -Wall -Wextra -Werror
                          -Wno-unused-function ${CXX_FLAGS} -I${DIR} ${EXPECTED}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${EXPECTED} does not compile cleanly:\n${err}")
  endif()
elseif(MODE STREQUAL "diagnostic")
  execute_process(COMMAND ${ROTOR_CC} -c ${CASE} -o ${OUT_DIR}/${name}.o WORKING_DIRECTORY ${DIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 1)
    message(FATAL_ERROR "${CASE}: expected exit code 1, got ${rc}\n${err}")
  endif()
  file(STRINGS ${EXPECTED} lines)
  foreach(line IN LISTS lines)
    string(FIND "${err}" "${line}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${CASE}: expected on stderr: ${line}\ngot:\n${err}")
    endif()
  endforeach()
else()
  message(FATAL_ERROR "unknown MODE '${MODE}'")
endif()
