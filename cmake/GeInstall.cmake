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
  if(GE_BUILD_SHARED)  # the installed gec finds the installed libge.so, libge_acl.so
    set_target_properties(gec PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
  endif()
  install(TARGETS gec RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# --- GE's own layout, for programs written for GE (docs/acl.md "Building GE programs
# against ge"): with DDK_PATH (or INSTALL_DIR) at this prefix and NPU_HOST_LIB at
# runtime/lib64/stub, a GE sample's own CMakeLists, or
#   cc main.c -I$PREFIX/runtime/include -L$PREFIX/runtime/lib64/stub -lascendcl -lacl_op_compiler
# builds unchanged, and runs with LD_LIBRARY_PATH=$PREFIX/runtime/lib64.
#   runtime/include/acl/*.h, include/acl/*.h         the acl headers
#   runtime/lib64/libascendcl.so                      the library (see below)
#   runtime/lib64/lib{acl_op_compiler,acl_cblas}.so   links to it (GE splits them; ge has one)
#   runtime/lib64/stub/lib*.so                        links for the link step, as GE's stubs
#   compiler/lib64/stub, acllib/{include,lib64}       older samples' paths, links
#   lib/pkgconfig/ascendcl.pc                         pkg-config --cflags --libs ascendcl
# GE_BUILD_SHARED: libascendcl.so is a link to libge_acl.so (one copy of the acl state,
# whichever name a program links), with libge_acl.so and libge.so linked beside it so that
# LD_LIBRARY_PATH=runtime/lib64 finds all. Static ge: libascendcl.so is a real shared
# library holding all of ge_acl (whole archive) and the parts of ge it uses, so that a C
# program links it with a plain C compiler and no C++ flags.
if(GE_INSTALL_ASCEND_LAYOUT)
  set(ge_acl_names ascendcl acl_op_compiler)
  if(EXISTS ${PROJECT_SOURCE_DIR}/include/ge/acl/acl/ops/acl_cblas.h)
    list(APPEND ge_acl_names acl_cblas)
  endif()
  if(EXISTS ${PROJECT_SOURCE_DIR}/include/ge/acl/acl/ops/acl_dvpp.h)
    list(APPEND ge_acl_names acl_dvpp)  # DVPP programs link -lacl_dvpp (AclLite)
  endif()
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ge/acl/acl DESTINATION runtime/include)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ge/acl/acl DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  if(GE_BUILD_SHARED)
    # libge_acl.so finds libge.so beside it, also for the link step of a program that
    # names only libascendcl.so (ld looks for a library's own needs by its RUNPATH).
    set_target_properties(ge_acl PROPERTIES INSTALL_RPATH "$ORIGIN")
    set(ge_ascendcl_file libge_acl.so)
    set(ge_ascendcl_beside libge_acl.so libge.so)  # links in runtime/lib64 to the real ones
  else()
    file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/ge_ascendcl.c
      CONTENT "/* libascendcl.so: ge_acl's objects, whole (this file adds none). */\n")
    add_library(ge_ascendcl SHARED ${PROJECT_BINARY_DIR}/ge_ascendcl.c)
    target_link_libraries(ge_ascendcl PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ge_acl>")
    set_target_properties(ge_ascendcl PROPERTIES OUTPUT_NAME ascendcl LINKER_LANGUAGE CXX)
    ge_target_exports(ge_ascendcl acl.map)
    install(TARGETS ge_ascendcl LIBRARY DESTINATION runtime/lib64)
    set(ge_ascendcl_file libascendcl.so)
    set(ge_ascendcl_beside "")
  endif()
  # The links, made at install time (relative, so that the prefix can move).
  install(CODE "
    set(ge_names \"${ge_acl_names}\")
    set(ge_real \"${ge_ascendcl_file}\")
    set(ge_beside \"${ge_ascendcl_beside}\")
    set(ge_libdir \"${CMAKE_INSTALL_LIBDIR}\")
    include(\"${PROJECT_SOURCE_DIR}/cmake/GeAscendLinks.cmake\")
  ")
  # ascendcl.pc: its prefix is found from where the file is (pkg-config's pcfiledir).
  set(ge_pc_up "")
  string(REPLACE "/" ";" ge_pc_parts "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
  foreach(part IN LISTS ge_pc_parts)
    string(APPEND ge_pc_up "/..")
  endforeach()
  file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/ascendcl.pc CONTENT
"prefix=\${pcfiledir}${ge_pc_up}
includedir=\${prefix}/runtime/include
libdir=\${prefix}/runtime/lib64
Name: ascendcl
Description: GE's acl C API, by ge on the CPU (ge::acl)
Version: ${PROJECT_VERSION}
Cflags: -I\${includedir}
Libs: -L\${libdir} -lascendcl
" @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/ascendcl.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
