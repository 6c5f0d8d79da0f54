# headers.installed (tests/headers/CMakeLists.txt). Installs the `headers` component of BUILD_DIR
# into WORK/prefix and fails when
#  - the installed include tree differs from ALLOWED (one path per line under include/; '#'
#    comments): an internal header was installed, or a listed one is missing;
#  - an installed detail/ header does not say "not for user code";
#  - the rewritten sgd_mf example (ROTOR_CC --emit-source) does not compile against the installed
#    headers, or includes a detail/ header itself (only rotor's own headers may include those);
#  - DETAIL_FIXTURE, a translation unit that includes a detail/ header, is not caught.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --component headers
                        --prefix ${WORK}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install --component headers failed:\n${err}")
endif()
set(include_dir ${WORK}/prefix/include)

# -- the installed tree against the allow-list ---------------------------------------------------
file(GLOB_RECURSE installed RELATIVE ${include_dir} ${include_dir}/*)
file(STRINGS ${ALLOWED} allowed REGEX "^[^#]")
list(SORT installed)
list(SORT allowed)
set(problems "")
foreach(h ${installed})
  if(NOT h IN_LIST allowed)
    string(APPEND problems "  installed but not in ${ALLOWED}: ${h}\n")
  endif()
endforeach()
foreach(h ${allowed})
  if(NOT h IN_LIST installed)
    string(APPEND problems "  in ${ALLOWED} but not installed: ${h}\n")
  endif()
endforeach()
foreach(h ${installed})
  if(h MATCHES "/detail/")
    file(READ ${include_dir}/${h} text)
    string(TOLOWER "${text}" text)
    if(NOT text MATCHES "not for user code")
      string(APPEND problems "  ${h}: a detail/ header must say \"Not for user code\"\n")
    endif()
  endif()
endforeach()

# -- user translation units ----------------------------------------------------------------------
# The compile flags of the build's rotor-cc.cfg that do not point into the source tree (Eigen,
# MPI, HDF5), with the installed include directory in place of the source tree's.
file(STRINGS ${BUILD_DIR}/frontend/rotor-cc.cfg cfg)
set(cxx "")
set(flags -std=c++17 -fsyntax-only -H -isystem${include_dir})
foreach(line ${cfg})
  if(line MATCHES "^cxx (.*)$")
    set(cxx ${CMAKE_MATCH_1})
  elseif(line MATCHES "^compile (.*)$")
    set(flag "${CMAKE_MATCH_1}")
    if(NOT flag MATCHES "^-isystem${SOURCE_DIR}/")
      list(APPEND flags "${flag}")
    endif()
  endif()
endforeach()

# user_includes_detail(SOURCE OUT): compiles SOURCE (-H) and sets OUT to the detail/ headers that
# a file outside the installed include tree includes itself ("" when none); fails on an error.
function(user_includes_detail source out)
  execute_process(COMMAND ${cxx} ${flags} ${ARGN} ${source}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE tree)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${source} does not compile against the installed headers:\n${tree}")
  endif()
  string(REPLACE "\n" ";" lines "${tree}")
  set(parents "${source}") # parents[d]: the file that includes depth d + 1
  set(found "")
  foreach(line ${lines})
    if(NOT line MATCHES "^(\\.+) (.*)$")
      continue()
    endif()
    string(LENGTH "${CMAKE_MATCH_1}" depth)
    set(path "${CMAKE_MATCH_2}")
    math(EXPR parent_at "${depth} - 1")
    list(GET parents ${parent_at} parent)
    if(path MATCHES "^${include_dir}/(.*/detail/.*)$" AND NOT parent MATCHES "^${include_dir}/")
      list(APPEND found "${CMAKE_MATCH_1} (from ${parent})")
    endif()
    list(SUBLIST parents 0 ${depth} parents)
    list(APPEND parents "${path}")
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

execute_process(COMMAND ${ROTOR_CC} -std=c++17 --emit-source=${WORK}/sgd_mf.rotor.cpp
                        ${SOURCE_DIR}/examples/sgd_mf/sgd_mf.cpp
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rotor-cc --emit-source failed:\n${err}")
endif()
user_includes_detail(${WORK}/sgd_mf.rotor.cpp detail -iquote${SOURCE_DIR}/examples/sgd_mf)
if(detail)
  string(APPEND problems "  the rewritten sgd_mf includes internal headers itself: ${detail}\n")
endif()
user_includes_detail(${DETAIL_FIXTURE} detail)
if(NOT detail)
  string(APPEND problems "  ${DETAIL_FIXTURE} includes a detail/ header and was not caught\n")
endif()

if(problems)
  message(FATAL_ERROR "public headers:\n${problems}")
endif()
message(STATUS "${CMAKE_CURRENT_LIST_FILE}: the installed headers are the allowed ones")
