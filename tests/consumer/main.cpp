// A user's program: includes ge, uses the shape layer, prints "consumer: ok".
#include <cstdio>

#include "ge/ge.hpp"

int main() {
  const auto shape = ge::broadcast(ge::Shape::parse("-1,3,1"), ge::Shape::parse("1,224"));
  if (shape.to_string() != "-1,3,224") {
    std::printf("consumer: wrong broadcast %s\n", shape.to_string().c_str());
    return 1;
  }
  std::printf("consumer: ok (%s)\n", shape.to_string().c_str());
  return 0;
}
