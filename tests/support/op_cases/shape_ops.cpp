// Random cases of the shape ops (Reshape ... ConstantOfShape, Trilu, Pad) and TopK.
#include <string>

#include "support/op_cases/detail.hpp"

namespace ge::test::cases {

namespace {

// f32 or i64 data of dims `d`.
RefTensor data(Gen& g, const Dims& d) { return g.coin() ? g.f32(d) : g.ints(DataType::i64, d, -99, 99); }

std::vector<OpCase> reshape_cases(Gen& g) {
  const Dims d = g.dims(2, 4);
  std::int64_t n = 1;
  for (const auto v : d) n *= v;
  return {make("Reshape", {in(data(g, d)), i64s({n})}), make("Reshape", {in(data(g, d)), i64s({0, -1})}),
          make("Reshape", {in(data(g, d)), i64s({-1, d.back()})}), make("Reshape", {in(data(g, d)), i64s({1, n, 1})})};
}

std::vector<OpCase> transpose_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 3; ++k) {
    const Dims d = g.dims(2, 5, 1, 6);
    v.push_back(make("Transpose", {in(data(g, d))}, {{"perm", g.permutation(d.size())}}));
  }
  v.push_back(make("Transpose", {in(g.f32(g.dims(1, 4)))}));
  return v;
}

std::vector<OpCase> squeeze_cases(Gen& g) {
  Dims d = g.dims(2, 4);
  d.insert(d.begin() + g.integer(0, static_cast<std::int64_t>(d.size())), 1);
  Dims ones;
  for (std::size_t i = 0; i < d.size(); ++i)
    if (d[i] == 1) ones.push_back(static_cast<std::int64_t>(i));
  const Dims last{ones.back() - static_cast<std::int64_t>(d.size())};  // negative
  return {make("Squeeze", {in(data(g, d)), i64s(ones)}), make("Squeeze", {in(data(g, d)), i64s(last)}),
          make("Squeeze", {in(data(g, d))}), make("Unsqueeze", {in(data(g, d)), i64s({0})}),
          make("Unsqueeze", {in(data(g, d)), i64s({-1, 1})})};
}

Generator concat_or_split(bool concat) {
  return [concat](Gen& g) {
    std::vector<OpCase> v;
    for (int k = 0; k < 3; ++k) {
      const Dims d = g.dims(1, 4);
      const auto r = static_cast<std::int64_t>(d.size());
      const std::int64_t axis = g.integer(-r, r - 1), a = axis < 0 ? axis + r : axis;
      if (concat) {
        std::vector<std::optional<CaseInput>> ins;
        const bool f = g.coin();
        for (std::int64_t i = 0, n = g.integer(1, 3); i < n; ++i) {
          Dims e = d;
          e[static_cast<std::size_t>(a)] = g.integer(1, 4);
          ins.push_back(in(f ? g.f32(e) : g.ints(DataType::i64, e, -9, 9)));
        }
        v.push_back(make("Concat", ins, {{"axis", axis}}));
        continue;
      }
      Dims e = d;
      const std::int64_t parts = g.integer(1, 3);
      e[static_cast<std::size_t>(a)] = parts * g.integer(1, 3);
      OpCase c = k == 2
                     ? make("Split", {in(data(g, e)), i64s({e[static_cast<std::size_t>(a)] - 1, 1})}, {{"axis", axis}})
                     : make("Split", {in(data(g, e))}, {{"axis", axis}, {"num_outputs", parts}});
      c.outputs = k == 2 ? 2 : static_cast<std::size_t>(parts);
      if (k == 2 && e[static_cast<std::size_t>(a)] < 2) continue;
      v.push_back(c);
    }
    return v;
  };
}

std::vector<OpCase> slice_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 4; ++k) {
    const Dims d = g.dims(1, 4, 1, 9);
    const auto axis = g.integer(0, static_cast<std::int64_t>(d.size()) - 1);
    const std::int64_t n = d[static_cast<std::size_t>(axis)];
    const bool back = k == 3;
    const Dims starts{back ? g.integer(-1, n - 1) : g.integer(-n, n - 1)};
    const Dims ends{back ? g.integer(-n - 5, -1) : g.integer(-n, n + 3)};
    const Dims steps{back ? -g.integer(1, 2) : g.integer(1, 2)};
    std::vector<std::optional<CaseInput>> ins{in(data(g, d)), i64s(starts), i64s(ends), i64s({axis})};
    if (k > 0) ins.push_back(i64s(steps));
    v.push_back(make("Slice", ins));
  }
  return v;
}

std::vector<OpCase> gather_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 3; ++k) {
    const Dims d = g.dims(1, 4);
    const auto r = static_cast<std::int64_t>(d.size());
    const std::int64_t axis = g.integer(-r, r - 1), n = d[static_cast<std::size_t>(axis < 0 ? axis + r : axis)];
    const RefTensor ind = g.ints(DataType::i64, g.dims(0, 2, 1, 4), -n, n - 1);
    v.push_back(make("Gather", {in(data(g, d)), k == 1 ? in(ind) : cst(ind)}, {{"axis", axis}}));
  }
  return v;
}

std::vector<OpCase> expand_shape_cases(Gen& g) {
  const Dims d = g.dims(1, 4);
  const Dims x = g.broadcastable(d);
  return {make("Expand", {in(data(g, x)), i64s(d)}), make("Expand", {in(data(g, d)), i64s({1})}),
          make("Shape", {in(data(g, d))}), make("Shape", {in(data(g, d))}, {{"start", -2}}),
          make("Shape", {in(data(g, d))}, {{"start", 1}, {"end", 3}})};
}

std::vector<OpCase> trilu_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 4; ++k) {
    const Dims d = g.dims(2, 4, 1, 9);
    std::vector<std::optional<CaseInput>> ins{in(k == 3 ? g.bools(d) : data(g, d))};
    if (k > 0) ins.push_back(cst(RefTensor::of<std::int64_t>({}, {g.integer(-4, 4)})));
    v.push_back(make("Trilu", ins, k == 2 ? Attributes{{"upper", 0}} : Attributes{}));
  }
  return v;
}

std::vector<OpCase> pad_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 6; ++k) {
    const Dims d = g.dims(1, 4, 2, 7);
    const std::string mode = k < 3 ? "constant" : k < 5 ? "reflect" : "edge";
    Dims pads(2 * d.size());
    for (std::size_t i = 0; i < pads.size(); ++i)
      pads[i] = k == 2 ? g.integer(-1, 2) : g.integer(0, std::min<std::int64_t>(3, d[i % d.size()] - 1));
    std::vector<std::optional<CaseInput>> ins{in(k == 1 ? g.f32(d) : data(g, d)), i64s(pads)};
    if (k == 1) ins.push_back(cst(RefTensor::of<float>({}, {1.5f})));
    v.push_back(make("Pad", ins, k == 0 || k == 1 ? Attributes{} : Attributes{{"mode", mode}}));
  }
  return v;
}

std::vector<OpCase> topk_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 4; ++k) {
    const Dims d = g.dims(1, 3, 1, 12);
    const auto r = static_cast<std::int64_t>(d.size());
    const std::int64_t axis = g.integer(-r, r - 1), n = d[static_cast<std::size_t>(axis < 0 ? axis + r : axis)];
    Attributes a{{"axis", axis}};
    if (k % 2 == 1) a["largest"] = 0;
    // 2, 3: few distinct values, so that ties meet.
    v.push_back(make(
        "TopK",
        {in(k >= 2 ? g.ints(k == 2 ? DataType::f32 : DataType::i64, d, 0, 3) : g.f32(d)), i64s({g.integer(0, n)})}, a));
  }
  return v;
}

}  // namespace

void add_shape_cases(GenTable& t) {
  t["Pad"] = pad_cases;
  t["TopK"] = topk_cases;
  t["Trilu"] = trilu_cases;
  t["Reshape"] = reshape_cases;
  t["Flatten"] = [](Gen& g) {
    const Dims d = g.dims(1, 4);
    const auto r = static_cast<std::int64_t>(d.size());
    return std::vector<OpCase>{make("Flatten", {in(data(g, d))}), make("Flatten", {in(data(g, d))}, {{"axis", 0}}),
                               make("Flatten", {in(data(g, d))}, {{"axis", g.integer(-r, r)}})};
  };
  t["Transpose"] = transpose_cases;
  t["Squeeze"] = squeeze_cases;
  t["Unsqueeze"] = squeeze_cases;
  t["Concat"] = concat_or_split(true);
  t["Split"] = concat_or_split(false);
  t["Slice"] = slice_cases;
  t["Gather"] = gather_cases;
  t["Expand"] = expand_shape_cases;
  t["Shape"] = expand_shape_cases;
  t["ConstantOfShape"] = [](Gen& g) {
    return std::vector<OpCase>{
        make("ConstantOfShape", {i64s(g.dims(1, 3))}),
        make("ConstantOfShape", {i64s(g.dims(1, 3))}, {{"value", Tensor::from<float>({1}, {2.5f})}}),
        make("ConstantOfShape", {i64s(g.dims(2, 2))}, {{"value", Tensor::from<std::int64_t>({1}, {7})}})};
  };
}

}  // namespace ge::test::cases
