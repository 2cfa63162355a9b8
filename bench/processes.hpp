#pragma once
// Child processes for the benchmarks that run peers: a program run with its stdout
// captured, its peak RSS measured through a fresh copy of the benchmark (`--reap`), a
// program found in PATH, and the fields of the one-line JSON the peers print.
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

extern char** environ;

namespace ge_bench {

struct Child {
  bool started = false;
  int status = -1;        // the wait status
  std::string out;        // its stdout
  double max_rss_mib = 0; // wait4's ru_maxrss
  [[nodiscard]] bool ok() const { return started && WIFEXITED(status) && WEXITSTATUS(status) == 0; }
};

// Runs argv[0] (searched in PATH) with stdout captured and stderr passed through.
inline Child spawn(const std::vector<std::string>& argv) {
  Child c;
  int fds[2];
  if (pipe(fds) != 0) return c;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  posix_spawn_file_actions_addclose(&fa, fds[1]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return c;
  }
  c.started = true;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    c.out.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  struct rusage ru {};
  while (wait4(pid, &c.status, 0, &ru) < 0 && errno == EINTR) {
  }
  c.max_rss_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;  // KiB on Linux
  return c;
}

// Peak RSS of a child, measured right. Linux keeps the high-water mark of the memory a
// process replaces at execve, and posix_spawn's child shares ours until then: a child's
// ru_maxrss is at least OUR peak (GBs once ResNet-50 is compiled). So each measured child
// is started by a fresh copy of this program (`--reap CMD...`, small), which spawns the
// command, waits for it and appends its ru_maxrss to the output as `@@reap maxrss_kib=N`.
inline constexpr const char* reap_marker = "\n@@reap maxrss_kib=";

inline int reap(char** argv) {
  pid_t pid = 0;
  if (posix_spawnp(&pid, argv[0], nullptr, nullptr, argv, environ) != 0) {
    std::fprintf(stderr, "ge_bench_models --reap: cannot start '%s': %s\n", argv[0], std::strerror(errno));
    return 127;
  }
  int status = 0;
  struct rusage ru {};
  while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  std::fflush(stdout);
  std::printf("%s%ld\n", reap_marker, static_cast<long>(ru.ru_maxrss));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

inline Child spawn_measured(std::vector<std::string> argv) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return spawn(argv);  // no /proc: the figure may include our own peak
  argv.insert(argv.begin(), {self.string(), "--reap"});
  Child c = spawn(argv);
  if (const auto at = c.out.rfind(reap_marker); at != std::string::npos) {
    c.max_rss_mib = std::atof(c.out.c_str() + at + std::strlen(reap_marker)) / 1024.0;
    c.out.resize(at);
  } else {
    c.max_rss_mib = 0;
  }
  return c;
}

inline bool executable(const std::string& path) { return !path.empty() && access(path.c_str(), X_OK) == 0; }

// The program `name` in PATH, or "".
inline std::string which(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::string p = path;
  for (std::size_t start = 0; start <= p.size();) {
    std::size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    const std::string candidate = p.substr(start, end - start) + "/" + name;
    if (end > start && executable(candidate)) return candidate;
    start = end + 1;
  }
  return {};
}

// A number field of a one-line JSON object, or nullopt.
inline std::optional<double> json_number(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return std::nullopt;
  const char* start = json.c_str() + at + key.size() + 3;
  char* end = nullptr;
  const double v = std::strtod(start, &end);
  if (end == start) return std::nullopt;
  return v;
}

inline std::string json_string(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\":\"");
  if (at == std::string::npos) return {};
  const auto start = at + key.size() + 4;
  const auto end = json.find('"', start);
  return end == std::string::npos ? std::string() : json.substr(start, end - start);
}

}  // namespace ge_bench
