# Checks that ge's layers include only downward (docs/architecture.md draws the map):
# a file of include/ge/<layer>/ or src/<layer>/ may include "ge/<other>/..." or
# src's "<other>/..." only when <other> is below <layer> in the table. Run as
#   cmake -DROOT=<source dir> -P check_layers.cmake
# Prints each offending include and fails.

# layer: the layers it may include (besides itself); files_<layer>: single headers of
# other layers it may include as well.
set(allowed_core "")
set(allowed_shape "core")
set(allowed_tensor "core;shape")
set(allowed_ops "core;shape;tensor")
set(allowed_graph "core;shape;tensor;ops")
set(allowed_options "core;shape")
set(allowed_device "core")
set(allowed_kernels "core")
# The window rule's integer forms (output extents, pad splits, tap ranges) are computed in
# one place; window.hpp needs nothing beyond dim.hpp and core.
set(files_kernels "ge/shape/window.hpp;ge/shape/dim.hpp")
set(allowed_compile "core;shape;tensor;ops;graph;options;device;kernels")
set(allowed_runtime "core;shape;tensor;ops;graph;options;device;compile")
set(allowed_onnx "core;shape;tensor;ops;graph")
set(allowed_acl "core;shape;tensor;ops;graph;options;device;kernels;compile;runtime")
set(layers core shape tensor ops graph options device kernels compile runtime onnx acl)

set(bad "")
foreach(root include/ge src)
  foreach(layer IN LISTS layers)
    file(GLOB_RECURSE files ${ROOT}/${root}/${layer}/*.hpp ${ROOT}/${root}/${layer}/*.cpp)
    foreach(f IN LISTS files)
      file(STRINGS ${f} includes REGEX "^#include \"")
      foreach(line IN LISTS includes)
        string(REGEX REPLACE "^#include \"(ge/)?([^/\"]+)/.*" "\\2" to "${line}")
        if(to STREQUAL line OR to STREQUAL layer)
          continue()  # a file beside this one, or the same layer
        endif()
        list(FIND layers ${to} known)
        if(known EQUAL -1)
          continue()  # not a layer (a detail folder, a third-party header)
        endif()
        list(FIND allowed_${layer} ${to} ok)
        string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" path "${line}")
        list(FIND files_${layer} "${path}" file_ok)
        if(ok EQUAL -1 AND file_ok EQUAL -1)
          file(RELATIVE_PATH rel ${ROOT} ${f})
          string(APPEND bad "  ${rel}: ${line} (${layer} may include only: ${allowed_${layer}} ${files_${layer}})\n")
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "ge: includes against the layer order:\n${bad}")
endif()
message(STATUS "ge: every include follows the layer order")
