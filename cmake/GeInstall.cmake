include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS ge ge_acl EXPORT geTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ge DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT geTargets NAMESPACE ge:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ge)
# ge::onnx in a file of its own, read only for find_package(ge COMPONENTS onnx): its
# link interface names protobuf's and ONNX's targets, which plain ge::ge users lack.
if(TARGET ge_onnx)
  install(TARGETS ge_onnx EXPORT geOnnxTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(EXPORT geOnnxTargets NAMESPACE ge:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ge)
endif()
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
