# Observability tests (--rotor-metrics, --rotor-trace, rotor::report_metric): flag parsing, and
# a real program's metrics and trace checked at np 1 and 2 and rendered by rotor-plot.
rotor_runtime_test(runtime_observability_settings_test ObservabilitySettingsTest.cpp)
add_test(NAME runtime_observability_settings_test COMMAND runtime_observability_settings_test)
set_tests_properties(runtime_observability_settings_test PROPERTIES LABELS "unit" TIMEOUT 60)

add_executable(observability_program ObservabilityProgram.cpp)
target_link_libraries(observability_program PRIVATE rotor::rotor)
rotor_set_warnings(observability_program)

foreach(config "1;1" "1;2" "2;1" "2;2")
  list(GET config 0 np)
  list(GET config 1 threads)
  set(name runtime_observability.np${np}.t${threads})
  add_test(NAME ${name}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run_observability_test.sh
            $<TARGET_FILE:observability_program> ${CMAKE_CURRENT_SOURCE_DIR}/check_observability.py
            ${PROJECT_SOURCE_DIR}/tools/rotor-plot/rotor-plot ${np} ${threads}
            ${CMAKE_CURRENT_BINARY_DIR}/${name} ${ROTOR_MPIEXEC} ${ROTOR_MPIEXEC_FLAGS})
  if(np EQUAL 1)
    set(labels unit)
  else()
    set(labels mpi)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${labels}" TIMEOUT 120 PROCESSORS ${np}
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
endforeach()

add_test(NAME runtime_progress_bar
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run_progress_test.sh $<TARGET_FILE:observability_program>
          ${CMAKE_CURRENT_BINARY_DIR}/runtime_progress_bar)
set_tests_properties(runtime_progress_bar PROPERTIES LABELS "unit" TIMEOUT 60)
