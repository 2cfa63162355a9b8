#pragma once
/// \file
/// `GE_API`: marks what ge's libraries export. They are compiled with hidden visibility,
/// so that a shared libge.so (and libge_onnx.so) offers the API of include/ge and, of
/// src/, only the few names ge's own libraries share (docs/embedding.md lists them):
/// the kernels, passes and other internals stay out of its symbol table. Classes carry
/// it whole (their members, vtable and type info: a `ge::Error` thrown in the library is
/// caught by its type outside it); free functions one by one. Templates and inline
/// functions need none: they are compiled where they are used.
///
/// `GE_HIDDEN`: for the private parts of a `GE_API` class that src/ defines (a `struct
/// Impl` behind a pointer): a nested class takes its enclosing class's visibility unless
/// marked.

#if defined(__GNUC__) || defined(__clang__)
#define GE_API __attribute__((visibility("default")))
#define GE_HIDDEN __attribute__((visibility("hidden")))
#else
#define GE_API
#define GE_HIDDEN
#endif
