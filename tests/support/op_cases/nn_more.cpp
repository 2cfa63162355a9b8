// Random cases of the further network ops: ConvTranspose in 1-D to 3-D, LRN,
// MeanVarianceNormalization, the window functions, Det and MaxUnpool.
#include <string>

#include "support/op_cases/detail.hpp"

namespace ge::test::cases {

namespace {

std::vector<OpCase> conv_transpose_cases(Gen& g) {
  std::vector<OpCase> v;
  // 0, 1: 2-D; 2: 1-D; 3, 4: 3-D; 1 and 4 grouped; 0 with output_shape, 3 with SAME_UPPER.
  for (int k = 0; k < 5; ++k) {
    const std::size_t n = k == 2 ? 1 : k >= 3 ? 3 : 2;
    const std::int64_t group = k == 1 || k == 4 ? 2 : 1, cin = group * g.integer(1, 3), mg = g.integer(1, 3);
    Dims x{g.integer(1, 2), cin}, w{cin, mg}, strides, dil, pads(2 * n), out_pad;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t kk = g.integer(1, 3);
      x.push_back(g.integer(2, n == 3 ? 4 : 6));
      w.push_back(kk);
      strides.push_back(g.integer(1, 3));
      dil.push_back(g.integer(1, 2));
      pads[i] = g.integer(0, kk - 1);
      pads[i + n] = g.integer(0, kk - 1);
      out_pad.push_back(g.integer(0, strides.back() - 1));
    }
    Attributes a{{"strides", strides}, {"dilations", dil}};
    if (group > 1) a["group"] = group;
    if (k == 0) {
      Dims shape;
      for (std::size_t i = 0; i < n; ++i) shape.push_back(x[2 + i] * strides[i] + g.integer(0, 1));
      a["output_shape"] = shape;
    } else if (k == 3) {
      a["auto_pad"] = "SAME_UPPER";
    } else {
      a["pads"] = pads;
      a["output_padding"] = out_pad;
    }
    std::vector<std::optional<CaseInput>> ins{in(g.f32(x)), cst(g.f32(w))};
    if (g.coin()) ins.push_back(cst(g.f32({mg * group})));
    OpCase c = make("ConvTranspose", ins, a);
    c.rtol = c.atol = 1e-4;
    v.push_back(c);
  }
  return v;
}

std::vector<OpCase> lrn_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 3; ++k) {
    Attributes a{{"size", g.integer(1, 5)}};
    if (k > 0) {
      a["alpha"] = g.real(1e-4, 1e-1);
      a["beta"] = g.real(0.5, 1);
      a["bias"] = g.real(1, 2);
    }
    OpCase c = make("LRN", {in(g.f32(g.dims(3, 4, 1, 6), -3, 3))}, a);
    c.rtol = c.atol = 1e-5;
    v.push_back(c);
  }
  return v;
}

std::vector<OpCase> mvn_cases(Gen& g) {
  std::vector<OpCase> v{make("MeanVarianceNormalization", {in(g.f32(g.dims(4, 4, 2, 5), -3, 3))}),
                        make("MeanVarianceNormalization", {in(g.f32(g.dims(3, 3, 2, 5), -3, 3))}, {{"axes", Dims{0, -1}}}),
                        make("MeanVarianceNormalization", {in(g.f32(g.dims(2, 2, 2, 6), -3, 3))}, {{"axes", Dims{1}}})};
  for (OpCase& c : v) c.rtol = c.atol = 1e-4;
  return v;
}

Generator window_cases(std::string op) {
  return [op](Gen& g) {
    std::vector<OpCase> v;
    // The length a constant (a graph input leaves the output's length unbounded until run
    // time: the conformance cases run that).
    for (int k = 0; k < 4; ++k) {
      const RefTensor len = RefTensor::of<std::int64_t>({}, {g.integer(1, 12)});
      Attributes a;
      if (k % 2 == 1) a["periodic"] = 0;
      if (k == 3) a["output_datatype"] = 11;
      OpCase c = make(op, {cst(len)}, a);
      c.rtol = c.atol = 1e-6;
      v.push_back(c);
    }
    return v;
  };
}

std::vector<OpCase> det_cases(Gen& g) {
  std::vector<OpCase> v{make("Det", {in(g.f32({3, 3}, -2, 2))}), make("Det", {in(g.f32({2, 4, 4}, -2, 2))}),
                        make("Det", {in(g.f32({2, 1, 1}, -2, 2))})};
  for (OpCase& c : v) c.rtol = c.atol = 1e-4;
  return v;
}

// MaxUnpool with kernel 2 and stride 2 over [N, C, H, W]: each input goes to one position
// of its 2x2 block (a flat index of the unpooled [N, C, 2H, 2W]); 1 with a larger
// output_shape constant. (A graph-input output_shape leaves the output dims unbounded
// until run time: the conformance cases run that.)
std::vector<OpCase> max_unpool_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 2; ++k) {
    const Dims x{g.integer(1, 2), g.integer(1, 3), g.integer(1, 4), g.integer(1, 4)};
    const Dims out{x[0], x[1], 2 * x[2], 2 * x[3]};
    std::vector<std::int64_t> idx;
    for (std::int64_t p = 0; p < x[0] * x[1]; ++p)
      for (std::int64_t h = 0; h < x[2]; ++h)
        for (std::int64_t w = 0; w < x[3]; ++w)
          idx.push_back((p * out[2] + 2 * h + g.integer(0, 1)) * out[3] + 2 * w + g.integer(0, 1));
    std::vector<std::optional<CaseInput>> ins{in(g.f32(x)), cst(RefTensor::of<std::int64_t>(x, idx))};
    if (k == 1) ins.push_back(i64s({out[0], out[1], out[2] + 1, out[3] + 2}));
    v.push_back(make("MaxUnpool", ins, {{"kernel_shape", Dims{2, 2}}, {"strides", Dims{2, 2}}}));
  }
  return v;
}

}  // namespace

void add_nn_more_cases(GenTable& t) {
  t["ConvTranspose"] = conv_transpose_cases;
  t["LRN"] = lrn_cases;
  t["MeanVarianceNormalization"] = mvn_cases;
  for (const char* op : {"BlackmanWindow", "HammingWindow", "HannWindow"}) t[op] = window_cases(op);
  t["Det"] = det_cases;
  t["MaxUnpool"] = max_unpool_cases;
}

}  // namespace ge::test::cases
