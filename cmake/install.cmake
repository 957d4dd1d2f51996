# cmake/install.cmake — `cmake --install` puts the library, its headers and a CMake package
# under the prefix, so that another project can write
#
#   find_package(atencion CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE atencion::atencion)
#
# Layout under the prefix:
#   lib/libatencion.a                          the library
#   include/atencion/{tensor,autograd,nn}/...  headers, included as "tensor/tensor.h" etc.
#   lib/cmake/atencion/                        atencionConfig.cmake, version file, targets
# All of it is the install component `library` (`cmake --install build --component library`
# installs just this, without the programs). tests/consumer/ is a tiny project that checks
# all of this from an installed prefix.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ATENCION_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/atencion)

install(TARGETS atencion
  EXPORT atencionTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT library)

# The headers keep their layer folders, because they include each other as "tensor/ops.h".
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tensor ${PROJECT_SOURCE_DIR}/autograd ${PROJECT_SOURCE_DIR}/nn
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/atencion
  COMPONENT library
  FILES_MATCHING PATTERN "*.h")

install(EXPORT atencionTargets
  NAMESPACE atencion::
  DESTINATION ${ATENCION_CMAKE_INSTALL_DIR}
  COMPONENT library)

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/atencionConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/atencionConfig.cmake
  INSTALL_DESTINATION ${ATENCION_CMAKE_INSTALL_DIR})
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/atencionConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/atencionConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/atencionConfigVersion.cmake
  DESTINATION ${ATENCION_CMAKE_INSTALL_DIR}
  COMPONENT library)
