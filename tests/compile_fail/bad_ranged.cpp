// expect: Ranged<5, 2>.*ge::typed::Ranged: bad range
// A range whose low end is above its high end must not compile.
#include "ge/shape/typed_dim.hpp"

using namespace ge::typed;

constexpr Ranged<5, 2> d{};
