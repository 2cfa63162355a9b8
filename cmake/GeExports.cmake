# What ge's libraries export. Their objects are compiled with hidden visibility: a shared
# library offers what include/ge marks GE_API (include/ge/core/api.hpp) or, for ge::acl,
# the acl C functions (ACL_FUNC_VISIBILITY), and none of src/'s kernels, passes and
# helpers. Static libraries get the same objects (a shared and a static build of the same
# flags compile the same code). A shared library on Linux is also linked with a version
# script (cmake/<map>): the instances of the C++ library's templates that ge's code makes
# (std::vector<ge::Dim>'s growth, ...) stay local to it, each user makes its own.
# tests/consumer checks the result with nm (tests/consumer/check_exports.cmake).
function(ge_target_exports target map)
  set_target_properties(${target} PROPERTIES CXX_VISIBILITY_PRESET hidden C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "SHARED_LIBRARY" AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
    target_link_options(${target} PRIVATE "LINKER:--version-script=${PROJECT_SOURCE_DIR}/cmake/${map}")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/${map})
  endif()
endfunction()
