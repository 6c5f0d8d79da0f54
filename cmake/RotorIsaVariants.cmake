# rotor_isa_executable(NAME ADD <add_executable|rotor_add_executable> SOURCES src...): one
# program built once per x86-64 ISA level, plus a launcher that runs the fastest build the CPU
# supports (tools/isa-launcher; why: docs/design/isa-variants.md):
#
#   NAME            the launcher (what users and tests run)
#   NAME.x86-64     the program, baseline flags (runs on any x86-64)
#   NAME.<level>    the program with -march=<level> -ffp-contract=${ROTOR_ISA_FP_CONTRACT}, for
#                   each level in ROTOR_ISA_LEVELS
#
# Sets NAME_ISA_TARGETS in the caller's scope: the program targets (to link, warn, place).
# Without variants (ROTOR_ISA_LEVELS empty, not x86-64, or a compiler without the levels) NAME is
# the one plain build and NAME_ISA_TARGETS is NAME.

set(ROTOR_ISA_LEVELS "x86-64-v3;x86-64-v4" CACHE STRING
    "-march levels built besides the baseline for multi-ISA programs (empty: one plain build)")

set(ROTOR_ISA_FP_CONTRACT "off" CACHE STRING
    "-ffp-contract for the level builds: off (replays stay bitwise equal) or fast (FMA fusion)")
set_property(CACHE ROTOR_ISA_FP_CONTRACT PROPERTY STRINGS off fast)
if(NOT ROTOR_ISA_FP_CONTRACT MATCHES "^(off|fast)$")
  message(FATAL_ERROR "ROTOR_ISA_FP_CONTRACT: expected off or fast, got '${ROTOR_ISA_FP_CONTRACT}'")
endif()

include(CheckCXXCompilerFlag)
set(_rotor_isa_enabled FALSE)
if(ROTOR_ISA_LEVELS AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(_rotor_isa_enabled TRUE)
  foreach(level IN LISTS ROTOR_ISA_LEVELS)
    if(NOT level MATCHES "^x86-64-v[34]$")
      message(FATAL_ERROR "ROTOR_ISA_LEVELS: '${level}' is not x86-64-v3 or x86-64-v4 (the "
                          "levels the launcher knows)")
    endif()
    string(REPLACE "-" "_" var "ROTOR_CXX_HAS_MARCH_${level}")
    check_cxx_compiler_flag(-march=${level} ${var})
    if(NOT ${var})
      set(_rotor_isa_enabled FALSE)
    endif()
  endforeach()
endif()
set(ROTOR_ISA_VARIANTS ${_rotor_isa_enabled} CACHE INTERNAL "Whether programs get ISA variants")

function(rotor_isa_executable name)
  cmake_parse_arguments(A "" "ADD" "SOURCES" ${ARGN})
  if(NOT A_ADD OR NOT A_SOURCES)
    message(FATAL_ERROR "rotor_isa_executable(${name}): needs ADD and SOURCES")
  endif()
  if(NOT ROTOR_ISA_VARIANTS)
    cmake_language(CALL ${A_ADD} ${name} ${A_SOURCES})
    set(${name}_ISA_TARGETS ${name} PARENT_SCOPE)
    return()
  endif()
  set(targets "")
  foreach(level x86-64 ${ROTOR_ISA_LEVELS})
    set(target ${name}.${level})
    cmake_language(CALL ${A_ADD} ${target} ${A_SOURCES})
    if(NOT level STREQUAL "x86-64")
      # No FMA contraction by default: GCC fuses a * b + c depending on the code around it, and a
      # loop body in Rotor's record loop and the same body in the serial build must round alike
      # (bitwise replay checks, tests/e2e; docs/design/isa-variants.md).
      target_compile_options(${target} PRIVATE -march=${level} -ffp-contract=${ROTOR_ISA_FP_CONTRACT})
    endif()
    list(APPEND targets ${target})
  endforeach()
  add_executable(${name} $<TARGET_OBJECTS:rotor_isa_launcher>)
  add_dependencies(${name} ${targets}) # building the launcher builds every variant
  set(${name}_ISA_TARGETS ${targets} PARENT_SCOPE)
endfunction()
