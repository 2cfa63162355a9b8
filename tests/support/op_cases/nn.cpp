// Random cases of the network ops: Conv and pooling, the normalizations, Gemm, MatMul.
#include <string>

#include "support/op_cases/detail.hpp"

namespace ge::test::cases {

namespace {

// Window attributes for `spatial` dims of input extents `in`, kernel `k`: strides,
// dilations (when `dilate`), pads below the kernel, or auto_pad.
Attributes window_attrs(Gen& g, const Dims& k, bool dilate) {
  Attributes a;
  const std::size_t n = k.size();
  Dims strides(n), dil(n, 1), pads(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    strides[i] = g.integer(1, 2);
    if (dilate) dil[i] = g.integer(1, 2);
    pads[i] = g.integer(0, k[i] - 1);
    pads[i + n] = g.integer(0, k[i] - 1);
  }
  a["strides"] = strides;
  if (dilate) a["dilations"] = dil;
  if (g.integer(0, 3) == 0)
    a["auto_pad"] = g.coin() ? "SAME_UPPER" : "VALID";
  else
    a["pads"] = pads;
  return a;
}

std::vector<OpCase> conv_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 9; ++k) {
    // 3: grouped; 4: 1-D; 5, 6: enough channels for the packed, Winograd and 1x1 paths;
    // 7, 8: 3-D (8 grouped).
    const bool wide = k == 5 || k == 6;
    const std::int64_t group = k == 3 || k == 8 ? g.integer(2, 3) : 1, cin = group * g.integer(1, wide ? 24 : 3),
                       cout = group * g.integer(1, wide ? 40 : 4), spatial = k == 4 ? 1 : k >= 7 ? 3 : 2;
    Dims x{g.integer(1, 2), cin}, w{cout, cin / group}, kernel;
    for (std::int64_t i = 0; i < spatial; ++i) {
      kernel.push_back(k == 6 ? 3 : g.integer(1, 3));
      x.push_back(g.integer(2 * kernel.back() + 1, spatial == 3 ? 7 : 11));
      w.push_back(kernel.back());
    }
    Attributes a = window_attrs(g, kernel, !wide);
    if (k == 6) a = {{"pads", Dims{1, 1, 1, 1}}};  // 3x3 or 1x1, stride 1
    if (group > 1) a["group"] = group;
    std::vector<std::optional<CaseInput>> ins{in(g.f32(x)), cst(g.f32(w))};
    if (g.coin()) ins.push_back(cst(g.f32({cout})));
    OpCase c = make("Conv", ins, a);
    c.rtol = c.atol = 1e-4;
    v.push_back(c);
  }
  return v;
}

Generator pool(std::string op) {
  return [op](Gen& g) {
    std::vector<OpCase> v;
    // 0-3: 2-D f32; 4, 5: 3-D; MaxPool 6: u8, 7: with Indices (storage_order at random).
    const bool is_max = op == "MaxPool";
    for (int k = 0; k < (is_max ? 8 : 6); ++k) {
      Dims kernel{g.integer(1, 3), g.integer(1, 3)};
      Dims x{g.integer(1, 2), g.integer(1, 5), g.integer(6, 12), g.integer(6, 12)};
      if (k == 4 || k == 5) {
        kernel.insert(kernel.begin(), g.integer(1, 3));
        x.insert(x.begin() + 2, g.integer(4, 7));
      }
      Attributes a = window_attrs(g, kernel, is_max && (k == 3 || k == 5));
      a["kernel_shape"] = kernel;
      if (g.coin()) a["ceil_mode"] = 1;
      if (op == "AveragePool" && g.coin()) a["count_include_pad"] = 1;
      if (a.contains("auto_pad")) a.erase("ceil_mode");
      if (k == 7 && g.coin()) a["storage_order"] = 1;
      OpCase c = make(op, {in(k == 6 ? g.ints(DataType::u8, x, 0, 255) : g.f32(x, -3, 3))}, a);
      c.outputs = k == 7 ? 2 : 1;
      v.push_back(c);
    }
    return v;
  };
}

std::vector<OpCase> batch_norm_cases(Gen& g) {
  std::vector<OpCase> v;
  // 3, 4: training_mode 1 (3 with the running statistics, 4 without).
  for (int k = 0; k < 5; ++k) {
    const Dims x = g.dims(2, 4, 1, 7);
    const Dims c{x[1]};
    Attributes a = k == 0 ? Attributes{} : Attributes{{"epsilon", g.real(1e-5, 1e-2)}};
    if (k >= 3) {
      a["training_mode"] = 1;
      a["momentum"] = g.real(0.5, 1);
    }
    OpCase bn = make("BatchNormalization",
                     {in(g.f32(x, -3, 3)), cst(g.f32(c)), cst(g.f32(c)), cst(g.f32(c)), cst(g.f32(c, 0.1, 2))}, a);
    bn.rtol = bn.atol = k >= 3 ? 1e-4 : 1e-5;
    bn.outputs = k == 3 ? 3 : 1;
    v.push_back(bn);
  }
  return v;
}

std::vector<OpCase> layer_norm_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 4; ++k) {
    const Dims x = g.dims(1, 4, 1, 16);
    const auto r = static_cast<std::int64_t>(x.size());
    const std::int64_t axis = k == 0 ? -1 : g.integer(-r, r - 1);
    const Dims norm(x.begin() + (axis < 0 ? axis + r : axis), x.end());
    std::vector<std::optional<CaseInput>> ins{in(g.f32(x, -3, 3)), cst(g.f32(norm))};
    if (k != 2) ins.push_back(cst(g.f32(norm)));
    OpCase c = make("LayerNormalization", ins, {{"axis", axis}});
    c.rtol = c.atol = 1e-4;
    c.outputs = 1;
    v.push_back(c);
  }
  return v;
}

std::vector<OpCase> gemm_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int k = 0; k < 4; ++k) {
    const bool big = k == 3;  // big enough for the packed paths
    const std::int64_t m = g.integer(1, big ? 60 : 9), n = g.integer(1, big ? 60 : 9), kk = g.integer(1, big ? 80 : 17);
    const bool ta = g.coin(), tb = g.coin();
    Attributes a;
    if (ta) a["transA"] = 1;
    if (tb) a["transB"] = 1;
    if (k > 0) a["alpha"] = g.real(0.5, 2);
    std::vector<std::optional<CaseInput>> ins{in(g.f32(ta ? Dims{kk, m} : Dims{m, kk})),
                                              cst(g.f32(tb ? Dims{n, kk} : Dims{kk, n}))};
    if (k > 1) {
      ins.push_back(cst(g.f32(k == 2 ? Dims{n} : Dims{m, n})));
      a["beta"] = g.real(0.5, 2);
    }
    OpCase c = make("Gemm", ins, a);
    c.rtol = c.atol = 1e-4;
    v.push_back(c);
  }
  return v;
}

std::vector<OpCase> matmul_cases(Gen& g) {
  const std::int64_t m = g.integer(1, 9), n = g.integer(1, 9), k = g.integer(1, 17), b = g.integer(2, 3);
  std::vector<OpCase> v{make("MatMul", {in(g.f32({m, k})), in(g.f32({k, n}))}),
                        make("MatMul", {in(g.f32({b, 1, m, k})), cst(g.f32({k, n}))}),
                        make("MatMul", {in(g.f32({b, m, k})), in(g.f32({1, k, n}))}),
                        make("MatMul", {in(g.f32({k})), in(g.f32({b, k, n}))}),
                        make("MatMul", {in(g.f32({b, m, k})), in(g.f32({k}))})};
  // Big enough for the packed and blocked paths.
  const std::int64_t bm = g.integer(20, 70), bn = g.integer(20, 70), bk = g.integer(20, 90);
  v.push_back(make("MatMul", {in(g.f32({bm, bk})), cst(g.f32({bk, bn}))}));
  v.push_back(make("MatMul", {in(g.f32({2, bm, bk})), in(g.f32({2, bk, bn}))}));
  for (OpCase& c : v) c.rtol = c.atol = 1e-4;
  return v;
}

}  // namespace

void add_nn_cases(GenTable& t) {
  t["Conv"] = conv_cases;
  t["MaxPool"] = pool("MaxPool");
  t["AveragePool"] = pool("AveragePool");
  t["GlobalMaxPool"] = [](Gen& g) {
    return std::vector<OpCase>{make("GlobalMaxPool", {in(g.f32(g.dims(4, 4, 1, 9)))}),
                               make("GlobalMaxPool", {in(g.f32(g.dims(3, 5, 1, 5)))})};
  };
  t["GlobalAveragePool"] = [](Gen& g) {
    return std::vector<OpCase>{make("GlobalAveragePool", {in(g.f32(g.dims(4, 4, 1, 9)))}),
                               make("GlobalAveragePool", {in(g.f32(g.dims(3, 3, 1, 9)))})};
  };
  t["BatchNormalization"] = batch_norm_cases;
  t["InstanceNormalization"] = [](Gen& g) {
    std::vector<OpCase> v;
    for (int k = 0; k < 3; ++k) {
      const Dims x = g.dims(3, 5, 1, 9);
      const Dims ch{x[1]};
      OpCase c = make("InstanceNormalization", {in(g.f32(x, -3, 3)), cst(g.f32(ch)), cst(g.f32(ch))},
                      k == 0 ? Attributes{} : Attributes{{"epsilon", g.real(1e-5, 1e-2)}});
      c.rtol = c.atol = 1e-4;
      v.push_back(c);
    }
    return v;
  };
  t["LayerNormalization"] = layer_norm_cases;
  t["Gemm"] = gemm_cases;
  t["MatMul"] = matmul_cases;
}

}  // namespace ge::test::cases
