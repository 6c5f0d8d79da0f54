# Runs the programs without a rotor::Session (no_session_run.cpp, the two-file lazy_*.cpp) built
# serially and with rotor-cc, and requires:
#   threads: --rotor-threads=2 uses 2 workers (the --rotor-verbose line) and prints the serial output;
#   np 2:    each line printed once, the model (DistArray::save_hdf5) and the program's own
#            files (ofstream, fopen; every rank's serial code appends) written once, with the
#            serial build's content;
#   np 2 --rotor-all-output: every rank's lines and every rank's appends;
#   lazy:    a main without a pragma: the first loop starts the runtime from ROTOR_* variables.
# cmake -DSERIAL=... -DROTOR=... -DLAZY_SERIAL=... -DLAZY=... -DWORK=dir -DLAUNCHER="mpirun ..."
#       -DH5DIFF=h5diff -P NoSessionRun.cmake
separate_arguments(launcher UNIX_COMMAND "${LAUNCHER}")

function(run_ok out_var err_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${err_var} "${err}" PARENT_SCOPE)
endfunction()

function(expect_equal what expected actual)
  if(NOT expected STREQUAL actual)
    message(FATAL_ERROR "${what}: expected\n${expected}\ngot\n${actual}")
  endif()
endfunction()

function(expect_match what regex text)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: no match for '${regex}' in\n${text}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
foreach(d serial threads np2 all)
  file(MAKE_DIRECTORY ${WORK}/${d})
endforeach()

run_ok(serial e ${SERIAL} --out=${WORK}/serial)
file(READ ${WORK}/serial/no_session_log.txt serial_log)

# One process, two threads: the flags left argv (the program's parser is strict).
run_ok(out err ${ROTOR} --rotor-threads=2 --rotor-verbose --out=${WORK}/threads)
expect_equal("threads: stdout" "${serial}" "${out}")
expect_match("threads: verbose line" "1 ranks x 2 threads" "${err}")

# Two ranks: each line once, each file once.
run_ok(out err ${launcher} -np 2 ${ROTOR} --rotor-threads=1 --rotor-verbose --out=${WORK}/np2)
expect_equal("np 2: stdout" "${serial}" "${out}")
expect_match("np 2: verbose line" "2 ranks x 1 threads" "${err}")
file(READ ${WORK}/np2/no_session_log.txt np2_log)
expect_equal("np 2: the ofstream log (appended to by each writer)" "${serial_log}" "${np2_log}")
file(READ ${WORK}/serial/no_session_stdio.txt serial_stdio)
file(READ ${WORK}/np2/no_session_stdio.txt np2_stdio)
expect_equal("np 2: the fopen log (appended to by each writer)" "${serial_stdio}" "${np2_stdio}")
if(H5DIFF)
  run_ok(o e ${H5DIFF} ${WORK}/serial/no_session_model.h5 ${WORK}/np2/no_session_model.h5)
endif()

# --rotor-all-output: both ranks print.
run_ok(out err ${launcher} -np 2 ${ROTOR} --rotor-threads=1 --rotor-all-output --out=${WORK}/all)
string(REGEX MATCHALL "check=[-0-9]+" checks "${out}")
list(LENGTH checks n)
expect_equal("np 2 --rotor-all-output: closing lines" "2" "${n}")
file(STRINGS ${WORK}/all/no_session_log.txt all_log)
list(LENGTH all_log n)
expect_equal("np 2 --rotor-all-output: lines each rank appended to the ofstream log" "2" "${n}")

# The first loop starts the runtime (settings from the environment), also at np 2.
run_ok(lazy_serial e ${LAZY_SERIAL})
set(ENV{ROTOR_THREADS} 2)
set(ENV{ROTOR_VERBOSE} 1)
run_ok(out err ${LAZY})
expect_equal("lazy: stdout" "${lazy_serial}" "${out}")
expect_match("lazy: verbose line" "1 ranks x 2 threads" "${err}")
set(ENV{ROTOR_THREADS} 1)
run_ok(out err ${launcher} -np 2 ${LAZY})
expect_equal("lazy np 2: stdout" "${lazy_serial}" "${out}")
expect_match("lazy np 2: verbose line" "2 ranks x 1 threads" "${err}")
message(STATUS "no-session programs: threads, np 2, --rotor-all-output and lazy start as expected")
