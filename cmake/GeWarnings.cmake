# Strict warnings for ge's own targets only; never leaked to consumers.
function(ge_target_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
      # g++ 12 at -O3 reports -Wrestrict inside std::string concatenation (GCC bug 105651).
      target_compile_options(${target} PRIVATE -Wno-restrict)
    endif()
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      # The kernels pass vector types by value across ISA targets: GCC notes the ABI
      # change of GCC 4.x on each (-Wpsabi), which says nothing about ge's code.
      target_compile_options(${target} PRIVATE -Wno-psabi)
    endif()
    if(GE_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
endfunction()
