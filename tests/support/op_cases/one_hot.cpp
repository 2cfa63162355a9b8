// Random cases of Hardmax, EyeLike, OneHot, Dropout (inference) and CastLike.
#include <string>

#include "support/op_cases/detail.hpp"

namespace ge::test::cases {

namespace {

std::vector<OpCase> hardmax_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 4; ++k) {
    const Dims d = g.dims(1, 4, 1, 6);
    const auto r = static_cast<std::int64_t>(d.size());
    // Integer-valued floats on odd k, so that ties (the first maximum wins) happen.
    RefTensor x = k % 2 == 1 ? g.ints(DataType::f32, d, 0, 2) : g.f32(d);
    v.push_back(make("Hardmax", {in(x)}, {{"axis", g.integer(-r, r - 1)}}));
  }
  return v;
}

std::vector<OpCase> eye_like_cases(Gen& g) {
  std::vector<OpCase> v;
  for (const char* type : {"", "i32", "f64", "bool"}) {
    const Dims d = g.dims(2, 2, 1, 6);
    Attributes a{{"k", g.integer(-3, 3)}};
    if (*type != '\0') a.emplace("dtype", std::string(type));
    v.push_back(make("EyeLike", {in(g.f32(d))}, a));
  }
  return v;
}

std::vector<OpCase> one_hot_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 4; ++k) {
    const Dims d = g.dims(0, 3, 1, 4);
    const std::int64_t depth = g.integer(1, 5);
    const auto r = static_cast<std::int64_t>(d.size());
    // Indices in [-depth - 1, depth]: negative ones count from the end, the ends are off.
    RefTensor idx = g.ints(k % 2 == 0 ? DataType::i64 : DataType::f32, d, -depth - 1, depth);
    RefTensor depth_t =
        k < 2 ? RefTensor::of<std::int64_t>({}, {depth}) : RefTensor::of<float>({1}, {static_cast<float>(depth)});
    RefTensor values = k % 2 == 0 ? g.f32({2}) : g.ints(DataType::i32, {2}, -5, 5);
    v.push_back(make("OneHot", {in(idx), cst(depth_t), in(values)},
                     {{"axis", g.integer(-r - 1, r)}}));
  }
  return v;
}

std::vector<OpCase> dropout_cases(Gen& g) {
  OpCase plain = make("Dropout", {in(g.f32(g.dims(1, 4)))});
  OpCase masked = make("Dropout", {in(g.f32(g.dims(0, 3))), cst(RefTensor::of<float>({}, {0.25f})),
                                   cst(RefTensor(DataType::boolean, {}))},
                       {{"seed", std::int64_t{3}}});
  masked.outputs = 2;
  return {plain, masked};
}

std::vector<OpCase> cast_like_cases(Gen& g) {
  return {make("CastLike", {in(g.f32(g.dims(1, 3), -50, 50)), in(g.ints(DataType::i32, {1}, 0, 0))}),
          make("CastLike", {in(g.ints(DataType::i64, g.dims(1, 3), -99, 99)), in(g.f32({2}))}),
          make("CastLike", {in(g.f32(g.dims(0, 3))), in(RefTensor(DataType::f64, {1}))})};
}

}  // namespace

void add_one_hot_cases(GenTable& t) {
  t["Hardmax"] = hardmax_cases;
  t["EyeLike"] = eye_like_cases;
  t["OneHot"] = one_hot_cases;
  t["Dropout"] = dropout_cases;
  t["CastLike"] = cast_like_cases;
}

}  // namespace ge::test::cases
