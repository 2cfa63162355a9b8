// expect: Static<-2>.*ge::typed::Static: a dim must be >= 0
// A negative static dim must not compile (write Unknown for -1).
#include "ge/shape/typed_shape.hpp"

using namespace ge::typed;

constexpr auto s = make_shape(Static<3>{}, Static<-2>{});
