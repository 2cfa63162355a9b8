// The main example (README's first command). For now: the shape layer at work.
#include <cstdio>

#include "ge/ge.hpp"

int main() {
  const auto input = ge::Shape::parse("1~8,3,224,224");
  const auto bias = ge::Shape::parse("3,1,1");
  const auto out = ge::broadcast(input, bias);
  std::printf("broadcast(%s, %s) = %s\n", input.to_string().c_str(), bias.to_string().c_str(),
              out.to_string().c_str());
  const auto bytes = ge::byte_size(out, ge::DataType::f32);
  std::printf("bytes: %s (upper bound shape %s)\n", bytes.to_string().c_str(),
              ge::upper_bound(out).to_string().c_str());
  try {
    (void)ge::Shape::parse("3~1,224");
  } catch (const ge::Error& e) {
    std::printf("bad text is a ge::Error (%s): %s\n", std::string(ge::to_string(e.code())).c_str(), e.what());
  }
  return 0;
}
