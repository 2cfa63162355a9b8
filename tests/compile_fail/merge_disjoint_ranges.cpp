// expect: ge::typed::merge: dims have no value in common.*can_merge_v<ge::typed::Ranged<1, 4>, ge::typed::Ranged<6, 8> >
// Merging two ranges that do not meet must not compile.
#include "ge/shape/typed_dim.hpp"

using namespace ge::typed;

constexpr auto d = merge(Ranged<1, 4>{}, Ranged<6, 8>{});
