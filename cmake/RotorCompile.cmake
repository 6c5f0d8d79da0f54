# rotor_add_executable(name source...): an executable whose C++ sources are compiled through
# rotor-cc (analysed, annotated loops rewritten into runtime calls) and linked with Rotor's
# runtime. Works in Rotor's build tree and, via find_package(Rotor), from an installed tree.
#
#   find_package(Rotor REQUIRED)
#   rotor_add_executable(sgd_mf sgd_mf.cpp)
#
# rotor-cc runs as the target's C++ compiler launcher, so the target's own include directories,
# definitions and flags reach both the analysis and the host compiler.

if(NOT ROTOR_CC_EXECUTABLE)
  if(TARGET rotor-cc)
    set(ROTOR_CC_EXECUTABLE $<TARGET_FILE:rotor-cc>)
  else()
    message(FATAL_ERROR "rotor_add_executable: ROTOR_CC_EXECUTABLE is not set and there is no "
                        "rotor-cc target (include RotorCompile after frontend/, or use "
                        "find_package(Rotor))")
  endif()
endif()

function(rotor_add_executable name)
  if(NOT ARGN)
    message(FATAL_ERROR "rotor_add_executable(${name}): no sources")
  endif()
  add_executable(${name} ${ARGN})
  set_target_properties(${name} PROPERTIES CXX_COMPILER_LAUNCHER "${ROTOR_CC_EXECUTABLE}")
  if(TARGET rotor::rotor)
    target_link_libraries(${name} PRIVATE rotor::rotor)
  else()
    target_link_libraries(${name} PRIVATE rotor::runtime)
  endif()
  # Rebuild the objects when rotor-cc changes (it decides what the objects contain).
  # OBJECT_DEPENDS takes no generator expressions before CMake 3.27: name the file itself.
  if(TARGET rotor-cc)
    add_dependencies(${name} rotor-cc)
    get_target_property(cc_dir rotor-cc BINARY_DIR)
    set(cc_file ${cc_dir}/rotor-cc)
  elseif(IS_ABSOLUTE "${ROTOR_CC_EXECUTABLE}" AND EXISTS "${ROTOR_CC_EXECUTABLE}")
    set(cc_file ${ROTOR_CC_EXECUTABLE}) # another build's or an installed rotor-cc
  endif()
  if(cc_file)
    foreach(src IN LISTS ARGN)
      get_filename_component(abs ${src} ABSOLUTE)
      if(abs MATCHES "\\.(cpp|cc|cxx|C)$")
        set_property(SOURCE ${abs} TARGET_DIRECTORY ${name} APPEND PROPERTY OBJECT_DEPENDS
                     ${cc_file})
      endif()
    endforeach()
  endif()
endfunction()
