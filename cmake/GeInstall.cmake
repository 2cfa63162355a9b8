include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS ge ge_acl EXPORT geTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ge DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT geTargets NAMESPACE ge:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ge)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/geConfig.cmake.in
  ${PROJECT_BINARY_DIR}/geConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ge)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/geConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/geConfig.cmake ${PROJECT_BINARY_DIR}/geConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ge)
if(TARGET gec)
  install(TARGETS gec RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
