// The reference's RNN, GRU and LSTM, from the ONNX equations: each step of each batch
// entry and direction computes its gates element by element from X, W, R and the state.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "support/reference/detail.hpp"

namespace ge::ref::detail {

namespace {

struct Act {
  std::string name;
  double alpha, beta;
};

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

double apply(const Act& a, double x) {
  const std::string& n = a.name;
  if (n == "relu") return x > 0 ? x : 0;
  if (n == "tanh") return std::tanh(x);
  if (n == "sigmoid") return 1 / (1 + std::exp(-x));
  if (n == "affine") return a.alpha * x + a.beta;
  if (n == "leakyrelu") return x >= 0 ? x : a.alpha * x;
  if (n == "thresholdedrelu") return x > a.alpha ? x : 0;
  if (n == "scaledtanh") return a.alpha * std::tanh(a.beta * x);
  if (n == "hardsigmoid") return std::max(0.0, std::min(1.0, a.alpha * x + a.beta));
  if (n == "elu") return x >= 0 ? x : a.alpha * (std::exp(x) - 1);
  if (n == "softsign") return x / (1 + std::fabs(x));
  if (n == "softplus") return std::log(1 + std::exp(x));
  fail("unknown activation " + n);
}

// The activations of every direction: names, then alphas and betas taken in order by the
// functions that have them.
std::vector<Act> activations(const Ctx& c, std::vector<std::string> defaults, std::int64_t dirs) {
  std::vector<std::string> names = defaults;
  std::vector<double> alphas, betas;
  if (const auto it = c.node.attrs.find("activations"); it != c.node.attrs.end()) names = it->second.as_strings();
  if (const auto it = c.node.attrs.find("activation_alpha"); it != c.node.attrs.end()) alphas = it->second.as_floats();
  if (const auto it = c.node.attrs.find("activation_beta"); it != c.node.attrs.end()) betas = it->second.as_floats();
  // One direction's list (with its parameters) serves both directions.
  const bool shared = names.size() == defaults.size() && dirs == 2;
  if (!shared && names.size() != defaults.size() * static_cast<std::size_t>(dirs)) c.error("activation count");
  std::vector<Act> out;
  std::size_t ai = 0, bi = 0;
  for (const std::string& raw : names) {
    Act a{lower(raw), 0, 0};
    const std::string& n = a.name;
    const bool has_alpha = n == "affine" || n == "leakyrelu" || n == "thresholdedrelu" || n == "scaledtanh" ||
                           n == "hardsigmoid" || n == "elu";
    const bool has_beta = n == "affine" || n == "scaledtanh" || n == "hardsigmoid";
    const double def_alpha = n == "leakyrelu" ? 0.01 : n == "hardsigmoid" ? 0.2 : 1.0;
    const double def_beta = n == "hardsigmoid" ? 0.5 : n == "scaledtanh" ? 1.0 : 0.0;
    if (has_alpha) a.alpha = ai < alphas.size() ? alphas[ai++] : def_alpha;
    if (has_beta) a.beta = bi < betas.size() ? betas[bi++] : def_beta;
    out.push_back(a);
  }
  if (shared) {
    const std::vector<Act> one = out;
    out.insert(out.end(), one.begin(), one.end());
  }
  return out;
}

// A layer's sizes and accessors; layout 1 swaps the batch and the sequence axes.
struct Layer {
  const Ctx& c;
  std::int64_t S, N, I, H, D, G;
  bool bf;
  double clip;  // 0: none
  [[nodiscard]] double x(std::int64_t t, std::int64_t n, std::int64_t i) const {
    return get_f(c.in(0), ((bf ? n * S + t : t * N + n) * I) + i);
  }
  [[nodiscard]] double w(std::int64_t d, std::int64_t row, std::int64_t i) const { return get_f(c.in(1), (d * G * H + row) * I + i); }
  [[nodiscard]] double r(std::int64_t d, std::int64_t row, std::int64_t m) const { return get_f(c.in(2), (d * G * H + row) * H + m); }
  [[nodiscard]] double b(std::int64_t d, std::int64_t k) const { return c.has_input(3) ? get_f(c.in(3), d * 2 * G * H + k) : 0; }
  [[nodiscard]] std::int64_t state(std::int64_t d, std::int64_t n) const { return (bf ? n * D + d : d * N + n) * H; }
  // Gate `gate`, unit j: x W^T + v R^T + Wb + Rb, v a state vector.
  [[nodiscard]] double gate(std::int64_t d, std::int64_t gate, std::int64_t j, std::int64_t t, std::int64_t n,
                            const std::vector<double>& v, bool with_rb = true) const {
    const std::int64_t row = gate * H + j;
    double s = b(d, row) + (with_rb ? b(d, G * H + row) : 0);
    for (std::int64_t i = 0; i < I; ++i) s += x(t, n, i) * w(d, row, i);
    for (std::int64_t m = 0; m < H; ++m) s += v[static_cast<std::size_t>(m)] * r(d, row, m);
    return s;
  }
  [[nodiscard]] double cl(double v) const { return clip > 0 ? std::max(-clip, std::min(clip, v)) : v; }
};

// One step of the cell at (t, n) in direction d: h (and c) updated.
void step(const Layer& L, const std::string& op, const std::vector<Act>& a, std::int64_t d, std::int64_t t,
          std::int64_t n, std::vector<double>& h, std::vector<double>& cst) {
  const auto H = static_cast<std::size_t>(L.H);
  std::vector<double> nh(H), nc(H);
  const std::vector<double> zero(H, 0.0);
  for (std::size_t j = 0; j < H; ++j) {
    const auto J = static_cast<std::int64_t>(j);
    if (op == "RNN") {
      nh[j] = apply(a[0], L.cl(L.gate(d, 0, J, t, n, h)));
    } else if (op == "GRU") {
      const double z = apply(a[0], L.cl(L.gate(d, 0, J, t, n, h)));
      double hh;
      if (L.c.i("linear_before_reset", 0) != 0) {
        const double rj = apply(a[0], L.cl(L.gate(d, 1, J, t, n, h)));
        const double hr = L.gate(d, 2, J, t, n, h) - L.gate(d, 2, J, t, n, zero, false);  // h R^T + Rb
        hh = apply(a[1], L.cl(L.gate(d, 2, J, t, n, zero, false) + rj * hr));
      } else {
        std::vector<double> rh(H);
        for (std::size_t m = 0; m < H; ++m)
          rh[m] = apply(a[0], L.cl(L.gate(d, 1, static_cast<std::int64_t>(m), t, n, h))) * h[m];
        hh = apply(a[1], L.cl(L.gate(d, 2, J, t, n, rh)));
      }
      nh[j] = (1 - z) * hh + z * h[j];
    } else {
      const auto p = [&](std::int64_t k) { return L.c.has_input(7) ? get_f(L.c.in(7), d * 3 * L.H + k * L.H + J) : 0.0; };
      const double i = apply(a[0], L.cl(L.gate(d, 0, J, t, n, h) + p(0) * cst[j]));
      const double f = L.c.i("input_forget", 0) != 0 ? 1 - i : apply(a[0], L.cl(L.gate(d, 2, J, t, n, h) + p(2) * cst[j]));
      nc[j] = f * cst[j] + i * apply(a[1], L.cl(L.gate(d, 3, J, t, n, h)));
      const double o = apply(a[0], L.cl(L.gate(d, 1, J, t, n, h) + p(1) * nc[j]));
      nh[j] = o * apply(a[2], nc[j]);
    }
  }
  h = nh;
  if (op == "LSTM") cst = nc;
}

Outs recurrent(const Ctx& c) {
  c.require_float(0);
  const std::string op = c.node.op;
  const RefTensor& X = c.in(0);
  const bool bf = c.i("layout", 0) == 1;
  const std::int64_t D = c.s("direction", "forward") == "bidirectional" ? 2 : 1;
  const std::int64_t G = op == "RNN" ? 1 : op == "GRU" ? 3 : 4;
  const std::int64_t H = c.in(2).dims[2];
  const Layer L{c, X.dims[bf ? 1 : 0], X.dims[bf ? 0 : 1], X.dims[2], H, D, G, bf, c.f("clip", 0)};
  const std::vector<Act> acts =
      activations(c, op == "RNN" ? std::vector<std::string>{"Tanh"}
                     : op == "GRU" ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                   : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}, D);
  const std::size_t per = acts.size() / static_cast<std::size_t>(D);
  RefTensor Y(X.dtype, bf ? Dims{L.N, L.S, D, H} : Dims{L.S, D, L.N, H});
  RefTensor Yh(X.dtype, bf ? Dims{L.N, D, H} : Dims{D, L.N, H});
  RefTensor Yc = Yh;
  for (std::int64_t d = 0; d < D; ++d)
    for (std::int64_t n = 0; n < L.N; ++n) {
      std::vector<double> h(static_cast<std::size_t>(H)), cst(static_cast<std::size_t>(H));
      for (std::int64_t j = 0; j < H; ++j) {
        if (c.has_input(5)) h[static_cast<std::size_t>(j)] = get_f(c.in(5), L.state(d, n) + j);
        if (op == "LSTM" && c.has_input(6)) cst[static_cast<std::size_t>(j)] = get_f(c.in(6), L.state(d, n) + j);
      }
      const std::int64_t len = c.has_input(4) ? get_i(c.in(4), n) : L.S;
      const bool rev = d == 1 || c.s("direction", "forward") == "reverse";
      const std::vector<Act> a(acts.begin() + static_cast<std::ptrdiff_t>(per * static_cast<std::size_t>(d)),
                               acts.begin() + static_cast<std::ptrdiff_t>(per * static_cast<std::size_t>(d + 1)));
      for (std::int64_t k = 0; k < len; ++k) {
        const std::int64_t t = rev ? len - 1 - k : k;
        step(L, op, a, d, t, n, h, cst);
        for (std::int64_t j = 0; j < H; ++j)
          set_f(Y, (bf ? (n * L.S + t) * D + d : (t * D + d) * L.N + n) * H + j, h[static_cast<std::size_t>(j)]);
      }
      for (std::int64_t j = 0; j < H; ++j) {
        set_f(Yh, L.state(d, n) + j, h[static_cast<std::size_t>(j)]);
        set_f(Yc, L.state(d, n) + j, cst[static_cast<std::size_t>(j)]);
      }
    }
  if (op == "LSTM") return {Y, Yh, Yc};
  return {Y, Yh};
}

}  // namespace

void add_recurrent_ops(OpTable& t) {
  const std::vector<std::string_view> common{"activation_alpha", "activation_beta", "activations", "clip",
                                             "direction",        "hidden_size",     "layout"};
  auto gru = common, lstm = common;
  gru.push_back("linear_before_reset");
  lstm.push_back("input_forget");
  t["RNN"] = {recurrent, common};
  t["GRU"] = {recurrent, gru};
  t["LSTM"] = {recurrent, lstm};
}

}  // namespace ge::ref::detail
