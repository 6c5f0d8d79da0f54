# Installation (cmake --install): libraries, headers, rotor-cc and the CMake package, so that
#   find_package(Rotor REQUIRED)
#   rotor_add_executable(app app.cpp)
# works against the installed tree (RotorConfig.cmake.in).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
# Only what a user program compiles against: distarray and runtime (analysis and frontend are
# rotor-cc's own; tests/headers/installed-headers.txt lists the installed headers).
foreach(module distarray runtime)
  if(EXISTS ${PROJECT_SOURCE_DIR}/${module}/include)
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/${module}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
            COMPONENT headers)
  endif()
endforeach()

# Libraries a user program links, exported as rotor::<name>.
set(rotor_exported "")
foreach(lib rotor_hdf5 rotor_distarray rotor_gpu_schedule rotor_runtime rotor_rotor)
  if(TARGET ${lib})
    string(REGEX REPLACE "^rotor_" "" export_name ${lib})
    set_target_properties(${lib} PROPERTIES EXPORT_NAME ${export_name})
    list(APPEND rotor_exported ${lib})
  endif()
endforeach()
install(TARGETS ${rotor_exported} EXPORT RotorTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT RotorTargets NAMESPACE rotor:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Rotor)

if(TARGET rotor-cc)
  install(TARGETS rotor-cc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES ${PROJECT_BINARY_DIR}/frontend/install/rotor-cc.cfg
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/rotor)
endif()

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/RotorConfig.cmake.in
  ${PROJECT_BINARY_DIR}/RotorConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Rotor
  PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/RotorConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/RotorConfig.cmake ${PROJECT_BINARY_DIR}/RotorConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/RotorCompile.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Rotor)
