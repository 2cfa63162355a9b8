#pragma once
/// \file
/// `GE_API`: marks what ge's libraries export. They are compiled with hidden visibility,
/// so that a shared libge.so (and libge_onnx.so) offers the API of include/ge and nothing
/// else: the kernels, passes and other internals of src/ stay out of its symbol table.
/// Classes carry it whole (their members, vtable and type info: a `ge::Error` thrown in
/// the library is caught by its type outside it); free functions one by one. Templates
/// and inline functions need none: they are compiled where they are used.

#if defined(__GNUC__) || defined(__clang__)
#define GE_API __attribute__((visibility("default")))
#else
#define GE_API
#endif

/// For the private parts of a `GE_API` class that src/ defines (a `struct Impl` behind a
/// pointer): a nested class takes its enclosing class's visibility unless marked.
#if defined(__GNUC__) || defined(__clang__)
#define GE_HIDDEN __attribute__((visibility("hidden")))
#else
#define GE_HIDDEN
#endif
