# What `cmake --install` puts where, the package find_package(xover) reads,
# and the .deb CPack builds (cmake/README.md says how to use them).
#
#   bin/xover
#   lib/libxover_*.a, lib/cmake/xover/    the libraries, xover::protocols ...
#   include/xover/protocols/... sim/...   the headers, included as "protocols/..."
#   share/xover/platforms/ scenarios/     the data xover finds beside itself
#   share/xover/tools/plot_results.py
include(CMakePackageConfigHelpers)

# One library per top-level folder, exported as xover::FOLDER.
set(xover_libraries xover_base xover_protocols xover_formats xover_runtime xover_tools xover_calib)
set(xover_header_folders base protocols formats runtime)
if(TARGET xover_sim)
  list(APPEND xover_libraries xover_sim)
  list(APPEND xover_header_folders sim)
endif()
foreach(library IN LISTS xover_libraries)
  string(REPLACE "xover_" "" name ${library})
  set_target_properties(${library} PROPERTIES EXPORT_NAME ${name})
endforeach()

# What the package config must find again for the exported libraries,
# which are static and so take their own dependencies along, read from
# what they link: pkg-config packages (PkgConfig::NAME; FindPkgConfig keeps
# the module in NAME_MODULE_NAME, and the build's version is the least
# accepted), the CUDA runtime, and interface targets of the build's own (a
# library found by its path: verbs, MPI's C libraries), which are exported
# with them. A target linked for the build only ($<BUILD_INTERFACE:...>)
# is none of these.
set(XOVER_CONFIG_PKG_MODULES "")
set(XOVER_CONFIG_WITH_CUDA OFF)
set(xover_link_helpers "")
foreach(library IN LISTS xover_libraries)
  get_target_property(links ${library} LINK_LIBRARIES)
  foreach(link IN LISTS links)
    if(link MATCHES "^PkgConfig::(.+)$")
      set(prefix ${CMAKE_MATCH_1})
      list(APPEND XOVER_CONFIG_PKG_MODULES "${prefix}:${${prefix}_MODULE_NAME}>=${${prefix}_VERSION}")
    elseif(link MATCHES "^CUDA::")
      set(XOVER_CONFIG_WITH_CUDA ON)
    elseif(TARGET ${link})
      get_target_property(imported ${link} IMPORTED)
      get_target_property(aliased ${link} ALIASED_TARGET)
      if(NOT imported AND NOT aliased AND NOT link IN_LIST xover_libraries)
        list(APPEND xover_link_helpers ${link})
      endif()
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES XOVER_CONFIG_PKG_MODULES)
list(REMOVE_DUPLICATES xover_link_helpers)
set(XOVER_CONFIG_WITH_SIMGRID OFF)
if(TARGET xover_sim)
  set(XOVER_CONFIG_WITH_SIMGRID ON)
endif()

install(TARGETS xover ${xover_libraries} ${xover_link_helpers}
  EXPORT xoverTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/xover)

foreach(folder IN LISTS xover_header_folders)
  install(DIRECTORY ${folder} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/xover FILES_MATCHING PATTERN "*.hpp")
endforeach()
# xover::tools and xover::calib: the results files, compare and the calibration fits.
install(FILES tools/results_csv.hpp tools/crossovers.hpp tools/compare.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/xover/tools)
install(DIRECTORY tools/calib DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/xover/tools FILES_MATCHING PATTERN "*.hpp")

# The same layout as the source tree, so that a scenario's relative
# platform path (../platforms/...) resolves in both.
install(DIRECTORY platforms scenarios DESTINATION ${CMAKE_INSTALL_DATADIR}/xover)
install(PROGRAMS tools/plot_results.py DESTINATION ${CMAKE_INSTALL_DATADIR}/xover/tools)

set(xover_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/xover)
install(EXPORT xoverTargets NAMESPACE xover:: DESTINATION ${xover_cmake_dir})
configure_package_config_file(cmake/xoverConfig.cmake.in ${PROJECT_BINARY_DIR}/xoverConfig.cmake
                              INSTALL_DESTINATION ${xover_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/xoverConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/xoverConfig.cmake ${PROJECT_BINARY_DIR}/xoverConfigVersion.cmake
        DESTINATION ${xover_cmake_dir})

# cpack -G DEB in the build folder: xover_VERSION_ARCH.deb, installing
# under /usr; its dependencies come from dpkg-shlibdeps.
set(CPACK_PACKAGE_NAME xover)
set(CPACK_PACKAGE_VENDOR xover)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "at which message size a protocol should hand over to the next: LogGP simulation and hardware runs")
set(CPACK_PACKAGE_CONTACT "xover developers" CACHE STRING "The .deb's Maintainer field")
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# xover plot runs python3 with matplotlib; the rest runs without.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-matplotlib")
include(CPack)
