// Tests of ge/core/log.hpp: level names, filtering by the threshold, the sink, the lazy
// form, GE_LOG_LEVEL (here with setenv; the first-message read by the core.log_env*
// entries of tests/core/CMakeLists.txt) and the errors for bad level text.
#include <doctest/doctest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ge/core/log.hpp"
#include "support/expect_error.hpp"

namespace {

using ge::LogLevel;
using ge::test::expect_error;

// Captures the messages while it lives; the level and sink are restored afterwards.
struct Captured {
  std::vector<std::pair<LogLevel, std::string>> seen;
  LogLevel before = ge::log_level();
  Captured() {
    ge::set_log_sink([this](LogLevel level, std::string_view m) { seen.emplace_back(level, std::string(m)); });
  }
  ~Captured() {
    ge::set_log_sink(nullptr);
    ge::set_log_level(before);
  }
  Captured(const Captured&) = delete;
  Captured& operator=(const Captured&) = delete;
};

// Sets GE_LOG_LEVEL while it lives.
struct Env {
  explicit Env(const char* value) {
    if (value)
      ::setenv("GE_LOG_LEVEL", value, 1);
    else
      ::unsetenv("GE_LOG_LEVEL");
  }
  ~Env() { ::unsetenv("GE_LOG_LEVEL"); }
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;
};

}  // namespace

TEST_CASE("log: level names round-trip") {
  for (const LogLevel l : {LogLevel::off, LogLevel::error, LogLevel::warn, LogLevel::info, LogLevel::debug})
    CHECK(ge::parse_log_level(ge::to_string(l)) == l);
  CHECK(ge::to_string(LogLevel::warn) == "warn");
  CHECK(ge::to_string(static_cast<LogLevel>(9)) == "unknown");
}

TEST_CASE("log: a message is written at or above the threshold only") {
  Captured c;
  ge::set_log_level(LogLevel::info);
  ge::log_message(LogLevel::error, "e");
  ge::log_message(LogLevel::warn, "w");
  ge::log_message(LogLevel::info, "i");
  ge::log_message(LogLevel::debug, "d");
  ge::log_message(LogLevel::off, "never: off is no message level");
  REQUIRE(c.seen.size() == 3);
  CHECK(c.seen[0] == std::pair(LogLevel::error, std::string("e")));
  CHECK(c.seen[1] == std::pair(LogLevel::warn, std::string("w")));
  CHECK(c.seen[2] == std::pair(LogLevel::info, std::string("i")));
  CHECK(ge::log_enabled(LogLevel::info));
  CHECK_FALSE(ge::log_enabled(LogLevel::debug));

  c.seen.clear();
  ge::set_log_level(LogLevel::off);
  ge::log_message(LogLevel::error, "e");
  CHECK(c.seen.empty());
  CHECK_FALSE(ge::log_enabled(LogLevel::error));

  ge::set_log_level("debug");
  CHECK(ge::log_level() == LogLevel::debug);
  ge::log_message(LogLevel::debug, "d");
  CHECK(c.seen.size() == 1);
}

TEST_CASE("log: the lazy form makes its message only when it is written") {
  Captured c;
  ge::set_log_level(LogLevel::warn);
  int made = 0;
  ge::log_message(LogLevel::debug, [&] {
    ++made;
    return std::string("per node");
  });
  CHECK(made == 0);
  ge::log_message(LogLevel::warn, [&] {
    ++made;
    return "fallback " + std::to_string(made);
  });
  CHECK(made == 1);
  REQUIRE(c.seen.size() == 1);
  CHECK(c.seen[0].second == "fallback 1");
}

TEST_CASE("log: the sink can be replaced and reset; its exceptions reach the caller") {
  Captured c;
  ge::set_log_level(LogLevel::warn);
  std::vector<std::string> other;
  ge::set_log_sink([&](LogLevel, std::string_view m) { other.emplace_back(m); });
  ge::log_message(LogLevel::warn, "to the second sink");
  CHECK(c.seen.empty());
  CHECK(other == std::vector<std::string>{"to the second sink"});

  ge::set_log_sink([](LogLevel, std::string_view) { throw std::runtime_error("sink failed"); });
  CHECK_THROWS_WITH(ge::log_message(LogLevel::warn, "x"), "sink failed");
  ge::set_log_sink(nullptr);  // the default: stderr
  ge::set_log_level(LogLevel::off);
  ge::log_message(LogLevel::warn, "not written: the level is off");
}

TEST_CASE("log: GE_LOG_LEVEL") {
  {
    const Env env(nullptr);
    CHECK(ge::log_level_from_env() == LogLevel::warn);
  }
  {
    const Env env("");
    CHECK(ge::log_level_from_env() == LogLevel::warn);
  }
  {
    const Env env("debug");
    CHECK(ge::log_level_from_env() == LogLevel::debug);
  }
  {
    const Env env("off");
    CHECK(ge::log_level_from_env() == LogLevel::off);
  }
  {
    const Env env("DEBUG");
    expect_error([] { (void)ge::log_level_from_env(); }, ge::Errc::bad_option_value,
                 "[ge.log] GE_LOG_LEVEL='DEBUG' is not a log level; expected off, error, warn, info or debug");
  }
}

TEST_CASE("log: bad level text is a ge::Error naming the text") {
  expect_error([] { (void)ge::parse_log_level("verbose"); }, ge::Errc::bad_option_value,
               "[ge.log] unknown log level: 'verbose'; expected off, error, warn, info or debug");
  expect_error([] { (void)ge::parse_log_level(""); }, ge::Errc::bad_option_value, "unknown log level: ''");
  expect_error([] { (void)ge::parse_log_level("warning"); }, ge::Errc::bad_option_value, "'warning'");
  const LogLevel before = ge::log_level();
  expect_error([] { ge::set_log_level("trace"); }, ge::Errc::bad_option_value, "'trace'");
  expect_error([] { ge::set_log_level(static_cast<LogLevel>(7)); }, ge::Errc::invalid_argument,
               "set_log_level: level 7 is outside LogLevel");
  CHECK(ge::log_level() == before);  // a refused level changes nothing
}

// Meaningful only as the first thing a process logs: run alone by the ctest entries
// core.log_env (GE_LOG_LEVEL=info) and core.log_env_bad (GE_LOG_LEVEL=loud).
TEST_CASE("log: GE_LOG_LEVEL read at the first message") {
  const char* env = std::getenv("GE_LOG_LEVEL");
  if (env == nullptr) return;
  std::vector<std::string> seen;
  ge::set_log_sink([&](LogLevel, std::string_view m) { seen.emplace_back(m); });
  const LogLevel level = ge::log_level();
  ge::set_log_sink(nullptr);
  if (std::string(env) == "info") {
    CHECK(level == LogLevel::info);
    CHECK(seen.empty());
  } else {
    CHECK(level == LogLevel::warn);
    REQUIRE(seen.size() == 1);
    CHECK(seen[0] == "[ge.log] GE_LOG_LEVEL='" + std::string(env) +
                         "' is not a log level; expected off, error, warn, info or debug; logging at warn");
    CHECK(ge::log_level() == LogLevel::warn);  // reported once
  }
}
