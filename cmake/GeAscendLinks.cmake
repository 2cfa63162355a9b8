# Run at install time (cmake/GeInstall.cmake): the links of GE's layout under the prefix.
# In: ge_names (ascendcl acl_op_compiler ...), ge_real (the file they name, in
# runtime/lib64), ge_beside (files of ge_libdir to link into runtime/lib64), ge_libdir.
set(root "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
set(lib64 "${root}/runtime/lib64")
file(MAKE_DIRECTORY "${lib64}/stub" "${root}/compiler/lib64" "${root}/acllib")

# Makes `link` point at `target` (relative), replacing what is there.
function(ge_link target link)
  if(IS_SYMLINK "${link}" OR EXISTS "${link}")
    file(REMOVE "${link}")
  endif()
  file(CREATE_LINK "${target}" "${link}" SYMBOLIC)
  message(STATUS "Installing: ${link} -> ${target}")
endfunction()

# From runtime/lib64 up to the prefix: "../..".
# (In stub/ too: ld resolves libge_acl.so's own needs by its RUNPATH, $ORIGIN, read as
# the folder ld found it in.)
foreach(file IN LISTS ge_beside)
  ge_link("../../${ge_libdir}/${file}" "${lib64}/${file}")
  ge_link("../${file}" "${lib64}/stub/${file}")
endforeach()
foreach(name IN LISTS ge_names)
  if(NOT "lib${name}.so" STREQUAL ge_real)
    ge_link("${ge_real}" "${lib64}/lib${name}.so")
  endif()
  ge_link("../lib${name}.so" "${lib64}/stub/lib${name}.so")
endforeach()
ge_link("../../runtime/lib64/stub" "${root}/compiler/lib64/stub")
ge_link("../runtime/include" "${root}/acllib/include")
ge_link("../runtime/lib64" "${root}/acllib/lib64")
