// Random cases of GatherElements, ScatterElements and Size.
#include <string>

#include "support/op_cases/detail.hpp"

namespace ge::test::cases {

namespace {

struct Indexing {
  Dims data, indices;
  std::int64_t axis;
};

// Data dims, indices dims no larger off the axis (any length along it) and an axis.
Indexing indexing(Gen& g) {
  Indexing s;
  s.data = g.dims(1, 4, 1, 5);
  const auto r = static_cast<std::int64_t>(s.data.size());
  s.axis = g.integer(0, r - 1);
  for (std::size_t d = 0; d < s.data.size(); ++d)
    s.indices.push_back(static_cast<std::int64_t>(d) == s.axis ? g.integer(1, 6) : g.integer(1, s.data[d]));
  if (g.coin()) s.axis -= r;  // the same axis, negative
  return s;
}

// Indices in [-n, n) for an axis of n (negative ones count from the end).
RefTensor indices(Gen& g, const Indexing& s, DataType t) {
  const auto r = static_cast<std::int64_t>(s.data.size());
  const std::int64_t n = s.data[static_cast<std::size_t>(s.axis < 0 ? s.axis + r : s.axis)];
  return g.ints(t, s.indices, -n, n - 1);
}

std::vector<OpCase> gather_elements_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 4; ++k) {
    const Indexing s = indexing(g);
    RefTensor x = k % 2 == 0 ? g.f32(s.data) : g.ints(DataType::i64, s.data, -99, 99);
    v.push_back(make("GatherElements", {in(x), in(indices(g, s, k < 2 ? DataType::i64 : DataType::i32))},
                     {{"axis", s.axis}}));
  }
  return v;
}

std::vector<OpCase> scatter_elements_cases(Gen& g) {
  std::vector<OpCase> v;
  for (const char* red : {"none", "add", "mul", "max", "min"}) {
    const Indexing s = indexing(g);
    const bool ints = g.coin();
    RefTensor x = ints ? g.ints(DataType::i32, s.data, -9, 9) : g.f32(s.data);
    RefTensor u = ints ? g.ints(DataType::i32, s.indices, -9, 9) : g.f32(s.indices);
    OpCase c = make("ScatterElements", {in(x), in(indices(g, s, DataType::i64)), in(u)},
                    {{"axis", s.axis}, {"reduction", std::string(red)}});
    c.rtol = c.atol = 1e-5;
    v.push_back(c);
  }
  return v;
}

}  // namespace

void add_indexing_cases(GenTable& t) {
  t["GatherElements"] = gather_elements_cases;
  t["ScatterElements"] = scatter_elements_cases;
  t["Size"] = [](Gen& g) {
    return std::vector<OpCase>{make("Size", {in(g.f32(g.dims(0, 4)))}),
                               make("Size", {in(g.ints(DataType::i32, g.dims(1, 3, 0, 3), 0, 5))})};
  };
}

}  // namespace ge::test::cases
