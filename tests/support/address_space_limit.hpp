#pragma once
// Test support: runs a call with the process's address space limited (RLIMIT_AS) to what
// it maps now plus `extra` bytes, the old limit restored after. Sanitizer builds reserve
// terabytes of shadow memory and cannot run under RLIMIT_AS: `available()` is false there,
// and tests skip with a message.
//
//   if (ge::test::AddressSpaceLimit::available())
//     ge::test::AddressSpaceLimit::run(16 << 20, [&] { ... });
#include <sys/resource.h>

#include <cstddef>
#include <fstream>
#include <unistd.h>

namespace ge::test {

struct AddressSpaceLimit {
  static constexpr bool available() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
    return false;
#else
    return true;
#endif
#else
    return true;
#endif
  }

  // The bytes the process maps now (/proc/self/statm: VmSize in pages).
  static std::size_t mapped_now() {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0;
    statm >> pages;
    return pages * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  }

  template <class F>
  static void run(std::size_t extra, F&& f) {
    rlimit saved{};
    ::getrlimit(RLIMIT_AS, &saved);
    rlimit low = saved;
    low.rlim_cur = mapped_now() + extra;
    ::setrlimit(RLIMIT_AS, &low);
    try {
      f();
    } catch (...) {
      ::setrlimit(RLIMIT_AS, &saved);
      throw;
    }
    ::setrlimit(RLIMIT_AS, &saved);
  }
};

}  // namespace ge::test
