// A user's program: includes ge, uses the shape layer, the version and the log (as
// docs/embedding.md shows them), prints "consumer: ok".
#include <cstdio>
#include <string>

#include "ge/ge.hpp"

int main() {
  const auto shape = ge::broadcast(ge::Shape::parse("-1,3,1"), ge::Shape::parse("1,224"));
  if (shape.to_string() != "-1,3,224") {
    std::printf("consumer: wrong broadcast %s\n", shape.to_string().c_str());
    return 1;
  }
  if (std::string(ge::version()) != GE_VERSION_STRING) {
    std::printf("consumer: ge::version() %s differs from GE_VERSION_STRING %s\n", ge::version(), GE_VERSION_STRING);
    return 1;
  }
  std::string logged;
  ge::set_log_sink([&](ge::LogLevel, std::string_view m) { logged = m; });
  ge::set_log_level("info");
  ge::log_message(ge::LogLevel::info, "the app's sink");
  ge::set_log_sink(nullptr);
  if (logged != "the app's sink") {
    std::printf("consumer: the log sink got '%s'\n", logged.c_str());
    return 1;
  }
  std::printf("consumer: ok (%s, ge " GE_VERSION_STRING ", cpu isa %s)\n", shape.to_string().c_str(),
              std::string(ge::cpu_isa()).c_str());
  return 0;
}
