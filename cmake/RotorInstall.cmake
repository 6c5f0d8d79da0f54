# Installation (cmake --install): libraries, headers, rotor-cc and the CMake package.
include(GNUInstallDirs)
foreach(module analysis distarray runtime)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${module}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
