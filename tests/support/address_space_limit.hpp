#pragma once
// Test support: runs a call with the process's address space limited (RLIMIT_AS) to what
// it maps now plus `extra` bytes, the old limit restored after. Sanitizer builds reserve
// terabytes of shadow memory and cannot run under RLIMIT_AS: `available()` is false there,
// and tests skip with a message.
//
//   if (ge::test::AddressSpaceLimit::available())
//     ge::test::AddressSpaceLimit::run(16 << 20, [&] { ... });
#include <sys/resource.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>
#include <vector>

#include "ge/core/error.hpp"

extern char** environ;

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

  // Under RLIMIT_AS only new mappings fail: memory the process freed earlier (other
  // tests') serves allocations without one. So the cases run in a fresh process: this
  // test binary again, with only the test cases `pattern` matches (doctest's -tc: no
  // commas, `*` as a wildcard) and
  // GE_TEST_FRESH_PROCESS set. Returns true in that process (run the checks), false in
  // the parent after checking that the fresh process passed.
  static bool in_fresh_process(const char* pattern, int& child_status) {
    if (std::getenv("GE_TEST_FRESH_PROCESS") != nullptr) return true;
    std::string self(4096, '\0');
    const ::ssize_t n = ::readlink("/proc/self/exe", self.data(), self.size() - 1);
    self.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    std::string filter = std::string("-tc=") + pattern;
    std::vector<char*> argv{self.data(), filter.data(), nullptr};
    std::vector<std::string> env_text{"GE_TEST_FRESH_PROCESS=1"};
    for (char** e = environ; *e != nullptr; ++e) env_text.emplace_back(*e);
    std::vector<char*> env;
    for (std::string& e : env_text) env.push_back(e.data());
    env.push_back(nullptr);
    ::pid_t pid = 0;
    child_status = -1;
    if (::posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv.data(), env.data()) == 0)
      ::waitpid(pid, &child_status, 0);
    return false;
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

  // What `f` ends in under the limit: the code and message of the ge::Error it throws
  // (Errc::internal and "no exception", or "std::bad_alloc escaped", otherwise).
  struct Outcome {
    Errc code = Errc::internal;
    std::string what = "no exception";
  };
  template <class F>
  static Outcome outcome(std::size_t extra, F&& f) {
    Outcome o;
    run(extra, [&] {
      try {
        f();
      } catch (const Error& e) {
        o.code = e.code();
        o.what = e.what();
      } catch (const std::bad_alloc&) {
        o.what = "std::bad_alloc escaped";
      }
    });
    return o;
  }
};

}  // namespace ge::test
