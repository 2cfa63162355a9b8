// expect: dim_overflows_int64
// Typed dims whose sum leaves int64 must not compile (ge::Dim's operator+ throws
// int_overflow for them at run time).
#include "ge/shape/typed_dim.hpp"

using ge::typed::Static;
using S = ge::typed::sum_t<Static<(std::int64_t{1} << 62)>, Static<(std::int64_t{1} << 62)>>;
S s;
