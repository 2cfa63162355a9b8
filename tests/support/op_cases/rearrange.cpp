// Random cases of Tile, DepthToSpace and SpaceToDepth.
#include <string>

#include "support/op_cases/detail.hpp"

namespace ge::test::cases {

namespace {

std::vector<OpCase> tile_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 4; ++k) {
    const Dims d = g.dims(1, 4, 1, 4);
    Dims reps;
    for (std::size_t i = 0; i < d.size(); ++i) reps.push_back(g.integer(k == 3 ? 0 : 1, 3));
    RefTensor x = k % 2 == 0 ? g.f32(d) : g.ints(DataType::i32, d, -9, 9);
    v.push_back(make("Tile", {in(x), i64s(reps)}));
  }
  return v;
}

std::vector<OpCase> depth_space_cases(Gen& g) {
  std::vector<OpCase> v;
  for (const char* mode : {"DCR", "CRD"}) {
    const std::int64_t b = g.integer(1, 3);
    const Dims d{g.integer(1, 2), b * b * g.integer(1, 3), g.integer(1, 4), g.integer(1, 4)};
    v.push_back(make("DepthToSpace", {in(g.f32(d))}, {{"blocksize", b}, {"mode", std::string(mode)}}));
  }
  for (int k = 0; k < 2; ++k) {
    const std::int64_t b = g.integer(1, 3);
    const Dims d{g.integer(1, 2), g.integer(1, 3), b * g.integer(1, 3), b * g.integer(1, 3)};
    v.push_back(make("SpaceToDepth", {in(k == 0 ? g.f32(d) : g.ints(DataType::i64, d, -99, 99))}, {{"blocksize", b}}));
  }
  return v;
}

}  // namespace

void add_rearrange_cases(GenTable& t) {
  t["Tile"] = tile_cases;
  t["DepthToSpace"] = depth_space_cases;
  t["SpaceToDepth"] = depth_space_cases;
}

}  // namespace ge::test::cases
