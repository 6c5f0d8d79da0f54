# Test helpers shared by every module. Every test gets labels and a timeout, so a deadlock
# becomes a failure, not a hang.
#
#   rotor_add_unit_test(NAME name SOURCES a.cpp ... LIBS libs... [LABELS extra...] [TIMEOUT s])
#     A GoogleTest binary run once by ctest, label `unit` (plus extra labels).
#   rotor_add_mpi_test(NAME name TARGET target NP 1 2 4 [THREADS t] [ARGS ...] [LABELS ...] [TIMEOUT s])
#     Runs an existing test binary under mpirun at each NP (test name `name.npN`), label `mpi`.
#     The binary must use tests/common's MPI-aware main (rotor_test_main) so all ranks agree.

set(ROTOR_TEST_TIMEOUT 120 CACHE STRING "Default timeout (seconds) of one test")
set(ROTOR_MPIEXEC ${MPIEXEC_EXECUTABLE})
set(ROTOR_MPIEXEC_FLAGS --oversubscribe --bind-to none --allow-run-as-root
    --mca btl_vader_single_copy_mechanism none CACHE STRING "Flags for mpirun in tests")

function(rotor_add_unit_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  rotor_set_warnings(${T_NAME})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT ${ROTOR_TEST_TIMEOUT})
  endif()
  add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  set_tests_properties(${T_NAME} PROPERTIES LABELS "unit;${T_LABELS}" TIMEOUT ${T_TIMEOUT})
endfunction()

# Every rank prints (--rotor-all-output): a test that fails on a rank other than 0 says why.
function(rotor_add_mpi_test)
  cmake_parse_arguments(T "" "NAME;TARGET;THREADS;TIMEOUT" "NP;ARGS;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT ${ROTOR_TEST_TIMEOUT})
  endif()
  if(NOT T_THREADS)
    set(T_THREADS 1)
  endif()
  foreach(np IN LISTS T_NP)
    set(test_name ${T_NAME}.np${np}.t${T_THREADS})
    add_test(NAME ${test_name}
      COMMAND ${ROTOR_MPIEXEC} ${ROTOR_MPIEXEC_FLAGS} -np ${np}
              $<TARGET_FILE:${T_TARGET}> --rotor-threads=${T_THREADS} --rotor-all-output ${T_ARGS})
    set_tests_properties(${test_name} PROPERTIES LABELS "mpi;${T_LABELS}" TIMEOUT ${T_TIMEOUT}
      PROCESSORS ${np} ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
  endforeach()
endfunction()
