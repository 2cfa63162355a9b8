// RNN, GRU and LSTM (recurrent.hpp): the checks, the packing of W and R, and the
// reference, which runs in double: inputs are read once into double buffers, each
// direction first takes X times W^T for every step (one pass over X), then walks the
// steps, each multiplying the state by R^T once per batch entry. f32 runs on the GEMM
// (recurrent_gemm.cpp).
#include "kernels/cpu/sequence/recurrent.hpp"

#include "kernels/cpu/sequence/recurrent_internal.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>

namespace ge::cpu {

namespace {

struct FnInfo {
  const char* name;
  RnnFn fn;
  bool alpha, beta;
  double def_alpha, def_beta;
};

constexpr std::array<FnInfo, 11> fns{{
    {"Relu", RnnFn::relu, false, false, 0, 0},
    {"Tanh", RnnFn::tanh, false, false, 0, 0},
    {"Sigmoid", RnnFn::sigmoid, false, false, 0, 0},
    {"Affine", RnnFn::affine, true, true, 1.0, 0.0},
    {"LeakyRelu", RnnFn::leaky_relu, true, false, 0.01, 0},
    {"ThresholdedRelu", RnnFn::thresholded_relu, true, false, 1.0, 0},
    {"ScaledTanh", RnnFn::scaled_tanh, true, true, 1.0, 1.0},
    {"HardSigmoid", RnnFn::hard_sigmoid, true, true, 0.2, 0.5},
    {"Elu", RnnFn::elu, true, false, 1.0, 0},
    {"Softsign", RnnFn::softsign, false, false, 0, 0},
    {"Softplus", RnnFn::softplus, false, false, 0, 0},
}};

const FnInfo& info(RnnFn f) {
  return *std::find_if(fns.begin(), fns.end(), [f](const FnInfo& i) { return i.fn == f; });
}

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

constexpr std::int64_t gates(RnnCell c) { return c == RnnCell::rnn ? 1 : c == RnnCell::gru ? 3 : 4; }

constexpr std::string_view op_name(RnnCell c) { return c == RnnCell::rnn ? "RNN" : c == RnnCell::gru ? "GRU" : "LSTM"; }

// A view's elements as doubles (f32 or f64); empty for an omitted input.
std::vector<double> load(const TensorView* t) {
  if (t == nullptr) return {};
  const auto n = static_cast<std::size_t>(t->elements());
  std::vector<double> v(n);
  if (t->dtype == DataType::f64) std::memcpy(v.data(), t->data, n * sizeof(double));
  else std::copy_n(t->as<const float>(), n, v.begin());
  return v;
}

void store(const TensorView& t, const std::vector<double>& v) {
  if (t.dtype == DataType::f64) std::memcpy(t.data, v.data(), v.size() * sizeof(double));
  else std::transform(v.begin(), v.end(), t.as<float>(), [](double x) { return static_cast<float>(x); });
}

const TensorView* given(std::span<const TensorView> in, std::size_t i) {
  return i < in.size() && in[i].dtype != DataType::undefined ? &in[i] : nullptr;
}

using Sizes = RnnSizes;

// One direction's weights and activations for a step.
struct Step {
  const RnnParams* p;
  const Sizes* s;
  const double* r;     // [G*H][H]
  const double* rb;    // [G*H]
  const double* peep;  // [3H] or null
  const RnnActivation* act;
  [[nodiscard]] double clip(double v) const { return p->clip ? std::clamp(v, -*p->clip, *p->clip) : v; }
  [[nodiscard]] double row(std::int64_t j, const double* h) const {
    double acc = 0;
    const double* rr = r + j * s->H;
    for (std::int64_t m = 0; m < s->H; ++m) acc += rr[m] * h[m];
    return acc;
  }
};

// One step of one batch entry: h (and c) from xw, the input products plus W's bias.
void cell_step(const Step& st, const double* xw, double* h, double* c, std::vector<double>& tmp) {
  const std::int64_t H = st.s->H;
  const RnnCell cell = st.p->cell;
  const std::int64_t rows = cell == RnnCell::gru ? 2 * H : st.s->G * H;
  tmp.resize(static_cast<std::size_t>(st.s->G * H + H));
  double* pre = tmp.data();
  for (std::int64_t j = 0; j < rows; ++j) pre[j] = xw[j] + st.rb[j] + st.row(j, h);
  const auto f = [&](std::size_t k, double v) { return rnn_apply(st.act[k], st.clip(v)); };
  if (cell == RnnCell::rnn) {
    for (std::int64_t j = 0; j < H; ++j) h[j] = f(0, pre[j]);
  } else if (cell == RnnCell::gru) {
    double* rh = pre + 3 * H;  // r * h for linear_before_reset 0
    for (std::int64_t j = 0; j < H; ++j) rh[j] = f(0, pre[H + j]) * h[j];
    for (std::int64_t j = 0; j < H; ++j) {
      const double r = f(0, pre[H + j]);
      const double hr = st.p->linear_before_reset ? r * (st.row(2 * H + j, h) + st.rb[2 * H + j])
                                                  : st.row(2 * H + j, rh) + st.rb[2 * H + j];
      pre[2 * H + j] = f(1, xw[2 * H + j] + hr);
    }
    for (std::int64_t j = 0; j < H; ++j) {
      const double z = f(0, pre[j]);
      h[j] = (1 - z) * pre[2 * H + j] + z * h[j];
    }
  } else {  // LSTM: gates i, o, f, c; peepholes i, o, f
    const double* P = st.peep;
    for (std::int64_t j = 0; j < H; ++j) {
      const double i = f(0, pre[j] + (P ? P[j] * c[j] : 0));
      const double fg = st.p->input_forget ? 1 - i : f(0, pre[2 * H + j] + (P ? P[2 * H + j] * c[j] : 0));
      const double cc = f(1, pre[3 * H + j]);
      c[j] = fg * c[j] + i * cc;
      const double o = f(0, pre[H + j] + (P ? P[H + j] * c[j] : 0));
      h[j] = o * rnn_apply(st.act[2], c[j]);
    }
  }
}

struct Data {
  std::vector<double> x, w, r, b, h0, c0, peep;
  std::vector<std::int64_t> lens;
};

// Direction d over every step: Y's rows of d, and the final h and c into yh, yc.
void run_direction(const RnnParams& p, const Sizes& s, const Data& in, std::int64_t d, std::vector<double>* y,
                   std::vector<double>& yh, std::vector<double>& yc) {
  const std::int64_t GH = s.G * s.H;
  const double* w = in.w.data() + d * GH * s.I;
  std::vector<double> zeros(static_cast<std::size_t>(2 * GH), 0.0);
  const double* bias = in.b.empty() ? zeros.data() : in.b.data() + d * 2 * GH;
  std::vector<double> xw(static_cast<std::size_t>(s.S * s.N * GH));
  for (std::int64_t t = 0; t < s.S; ++t)
    for (std::int64_t n = 0; n < s.N; ++n) {
      const double* x = in.x.data() + s.x_at(t, n);
      double* o = xw.data() + (t * s.N + n) * GH;
      for (std::int64_t j = 0; j < GH; ++j) {
        double acc = bias[j];
        for (std::int64_t i = 0; i < s.I; ++i) acc += w[j * s.I + i] * x[i];
        o[j] = acc;
      }
    }
  const Step st{&p, &s, in.r.data() + d * GH * s.H, bias + GH, in.peep.empty() ? nullptr : in.peep.data() + d * 3 * s.H,
                p.activations.data() + static_cast<std::size_t>(d) * rnn_activation_count(p.cell)};
  const bool reverse = d == 1 || p.reverse;
  std::vector<double> tmp;
  for (std::int64_t n = 0; n < s.N; ++n) {
    double* h = yh.data() + s.state_at(d, n);
    double* c = yc.data() + s.state_at(d, n);
    const std::int64_t len = in.lens.empty() ? s.S : in.lens[static_cast<std::size_t>(n)];
    for (std::int64_t k = 0; k < len; ++k) {
      const std::int64_t t = reverse ? len - 1 - k : k;
      cell_step(st, xw.data() + (t * s.N + n) * GH, h, c, tmp);
      if (y != nullptr) std::copy_n(h, s.H, y->data() + s.y_at(t, d, n));
    }
  }
}

}  // namespace

std::size_t rnn_activation_count(RnnCell cell) noexcept {
  return cell == RnnCell::rnn ? 1 : cell == RnnCell::gru ? 2 : 3;
}

std::optional<RnnFn> rnn_fn(std::string_view name) {
  for (const FnInfo& i : fns)
    if (same_name(name, i.name)) return i.fn;
  return std::nullopt;
}

std::string rnn_fn_names() {
  std::string s;
  for (const FnInfo& i : fns) s += (s.empty() ? "" : ", ") + std::string(i.name);
  return s;
}

std::vector<RnnActivation> rnn_activations(RnnCell cell, int directions, const std::vector<std::string>& names,
                                           const std::vector<double>& alphas, const std::vector<double>& betas) {
  const std::size_t k = rnn_activation_count(cell);
  std::vector<std::string> list = names;
  if (list.empty()) list = cell == RnnCell::rnn   ? std::vector<std::string>{"Tanh"}
                           : cell == RnnCell::gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                  : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  const auto want = k * static_cast<std::size_t>(directions);
  if (list.size() != want && list.size() != k)
    fail(Errc::bad_attribute, op_name(cell),
         "activations has " + std::to_string(list.size()) + " names; expected " + std::to_string(k) +
             " per direction (" + std::to_string(want) + " for " + std::to_string(directions) + " direction(s))");
  std::vector<RnnActivation> out;
  auto a = alphas.begin();
  auto b = betas.begin();
  for (const std::string& name : list) {
    const auto fn = rnn_fn(name);
    if (!fn) fail(Errc::bad_attribute, op_name(cell), "activation '" + name + "' is not one of " + rnn_fn_names());
    const FnInfo& i = info(*fn);
    RnnActivation act{*fn, i.def_alpha, i.def_beta};
    if (i.alpha && a != alphas.end()) act.alpha = *a++;
    if (i.beta && b != betas.end()) act.beta = *b++;
    out.push_back(act);
  }
  while (out.size() < want) out.push_back(out[out.size() - k]);
  return out;
}

double rnn_apply(const RnnActivation& a, double x) noexcept {
  switch (a.fn) {
    case RnnFn::relu: return std::max(x, 0.0);
    case RnnFn::tanh: return std::tanh(x);
    case RnnFn::sigmoid: return 1 / (1 + std::exp(-x));
    case RnnFn::affine: return a.alpha * x + a.beta;
    case RnnFn::leaky_relu: return x < 0 ? a.alpha * x : x;
    case RnnFn::thresholded_relu: return x > a.alpha ? x : 0;
    case RnnFn::scaled_tanh: return a.alpha * std::tanh(a.beta * x);
    case RnnFn::hard_sigmoid: return std::clamp(a.alpha * x + a.beta, 0.0, 1.0);
    case RnnFn::elu: return x < 0 ? a.alpha * (std::exp(x) - 1) : x;
    case RnnFn::softsign: return x / (1 + std::abs(x));
    case RnnFn::softplus: return x > 30 ? x : std::log1p(std::exp(x));
  }
  return x;
}

RnnSizes rnn_check(const RnnParams& p, std::span<const TensorView> in, std::span<const TensorView> out,
                   bool weights_packed) {
  const std::string_view op = op_name(p.cell);
  if (in.size() < 3) fail(Errc::bad_op_inputs, op, "takes X, W and R; got " + std::to_string(in.size()) + " input(s)");
  const TensorView& x = in[0];
  if (x.dtype != DataType::f32 && x.dtype != DataType::f64)
    fail(Errc::type_mismatch, op, "X is " + std::string(to_string(x.dtype)) + "; expected f32 or f64");
  check_rank(op, "X", x, 3);
  Sizes s{};
  s.batch_first = p.batch_first;
  s.S = x.dims[p.batch_first ? 1 : 0];
  s.N = x.dims[p.batch_first ? 0 : 1];
  s.I = x.dims[2];
  s.H = p.hidden;
  s.D = p.directions;
  s.G = gates(p.cell);
  if (p.activations.size() != static_cast<std::size_t>(s.D) * rnn_activation_count(p.cell))
    fail(Errc::bad_attribute, op, "has " + std::to_string(p.activations.size()) + " activations for " +
                                      std::to_string(s.D) + " direction(s)");
  const auto check = [&](std::size_t i, const char* name, std::vector<std::int64_t> dims) {
    if (const TensorView* t = given(in, i)) {
      if (i != 4) check_dtype(op, name, *t, x.dtype);
      check_dims(op, name, *t, dims);
      check_data(op, name, *t);
    }
  };
  check_data(op, "X", x);
  if (!weights_packed) {
    check(1, "W", {s.D, s.G * s.H, s.I});
    check(2, "R", {s.D, s.G * s.H, s.H});
  }
  check(3, "B", {s.D, 2 * s.G * s.H});
  check(4, "sequence_lens", {s.N});
  check(5, "initial_h", s.state_dims());
  if (p.cell == RnnCell::lstm) {
    check(6, "initial_c", s.state_dims());
    check(7, "P", {s.D, 3 * s.H});
  }
  (void)rnn_lengths(op, given(in, 4), s.S);
  const std::vector<std::int64_t> y_dims = s.batch_first ? std::vector<std::int64_t>{s.N, s.S, s.D, s.H}
                                                         : std::vector<std::int64_t>{s.S, s.D, s.N, s.H};
  const std::vector<std::int64_t> st = s.state_dims();
  const char* names[] = {"Y", "Y_h", "Y_c"};
  for (std::size_t k = 0; k < out.size() && k < 3; ++k)
    if (out[k].dtype != DataType::undefined) {
      check_dtype(op, names[k], out[k], x.dtype);
      check_dims(op, names[k], out[k], k == 0 ? std::span<const std::int64_t>(y_dims) : std::span<const std::int64_t>(st));
    }
  return s;
}

std::vector<std::int64_t> rnn_lengths(std::string_view op, const TensorView* t, std::int64_t S) {
  if (t == nullptr) return {};
  if (t->dtype != DataType::i32 && t->dtype != DataType::i64)
    fail(Errc::type_mismatch, op, "sequence_lens is " + std::string(to_string(t->dtype)) + "; expected i32 or i64");
  std::vector<std::int64_t> v(static_cast<std::size_t>(t->elements()));
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = t->dtype == DataType::i32 ? t->as<const std::int32_t>()[i] : t->as<const std::int64_t>()[i];
    if (v[i] < 0 || v[i] > S)
      fail(Errc::bad_op_inputs, op, "sequence_lens[" + std::to_string(i) + "] is " + std::to_string(v[i]) +
                                        "; expected a length in [0, " + std::to_string(S) + "]");
  }
  return v;
}

namespace {

void reference(const RnnParams& p, const Sizes& s, std::span<const TensorView> in, std::span<const TensorView> out) {
  Data d;
  d.x = load(&in[0]);
  d.w = load(&in[1]);
  d.r = load(&in[2]);
  d.b = load(given(in, 3));
  d.lens = rnn_lengths(op_name(p.cell), given(in, 4), s.S);
  d.h0 = load(given(in, 5));
  if (p.cell == RnnCell::lstm) {
    d.c0 = load(given(in, 6));
    d.peep = load(given(in, 7));
  }
  const auto state = static_cast<std::size_t>(s.D * s.N * s.H);
  std::vector<double> yh = d.h0.empty() ? std::vector<double>(state, 0.0) : d.h0;
  std::vector<double> yc = d.c0.empty() ? std::vector<double>(state, 0.0) : d.c0;
  const bool want_y = !out.empty() && out[0].dtype != DataType::undefined;
  std::vector<double> y(want_y ? static_cast<std::size_t>(s.S * s.D * s.N * s.H) : 0, 0.0);
  for (std::int64_t dir = 0; dir < s.D; ++dir) run_direction(p, s, d, dir, want_y ? &y : nullptr, yh, yc);
  if (want_y) store(out[0], y);
  if (out.size() > 1 && out[1].dtype != DataType::undefined) store(out[1], yh);
  if (out.size() > 2 && out[2].dtype != DataType::undefined) store(out[2], yc);
}

// W or R of `p` (f32, [D, G*H, cols]) checked before packing.
void check_packable(const RnnParams& p, const TensorView& t, const char* name, std::int64_t cols) {
  const std::string_view op = op_name(p.cell);
  check_dtype(op, name, t, DataType::f32);
  check_rank(op, name, t, 3);
  const std::int64_t want[3] = {p.directions, gates(p.cell) * p.hidden, cols < 0 ? t.dims[2] : cols};
  check_dims(op, name, t, want);
  check_data(op, name, t);
}

}  // namespace

RnnRBlocks rnn_r_blocks(const RnnParams& p) {
  RnnRBlocks b;
  const std::int64_t H = p.hidden;
  if (p.cell == RnnCell::gru && !p.linear_before_reset) {
    b.count = 2;
    b.rows[0] = 2 * H;
    b.rows[1] = H;
  } else {
    b.rows[0] = gates(p.cell) * H;
  }
  return b;
}

PackedMatMulB pack_rnn_w(const RnnParams& p, const TensorView& w) {
  check_packable(p, w, "W", -1);
  PackedMatMulB b;
  b.k = w.dims[2];
  b.n = w.dims[0] * w.dims[1];
  b.panels = Scratch(packed_b_size(b.k, b.n));
  if (b.n > 0) pack_b(b.k, b.n, w.as<const float>(), b.k, true, b.panels.data());
  return b;
}

PackedMatMulB pack_rnn_r(const RnnParams& p, const TensorView& r) {
  check_packable(p, r, "R", p.hidden);
  const RnnRBlocks blocks = rnn_r_blocks(p);
  PackedMatMulB b;
  b.k = p.hidden;
  b.n = p.directions * blocks.direction_columns();
  b.panels = Scratch(packed_b_size(b.k, b.n));
  const std::int64_t gh = r.dims[1];
  float* dst = b.panels.data();
  for (std::int64_t d = 0; d < p.directions; ++d) {
    std::int64_t row = 0;
    for (std::int64_t k = 0; k < blocks.count; ++k) {
      const std::int64_t rows = blocks.rows[k];
      pack_b(b.k, rows, r.as<const float>() + (d * gh + row) * b.k, b.k, true, dst);
      // The columns past `rows` up to the panel's end are zero (pack_b pads them).
      dst += packed_b_size(b.k, rows);
      row += rows;
    }
  }
  return b;
}

void recurrent_reference(const RnnParams& p, std::span<const TensorView> in, std::span<const TensorView> out) {
  reference(p, rnn_check(p, in, out, false), in, out);
}

void recurrent(const RnnParams& p, std::span<const TensorView> in, std::span<const TensorView> out) {
  const Sizes s = rnn_check(p, in, out, false);
  if (in[0].dtype != DataType::f32) {
    reference(p, s, in, out);
    return;
  }
  const PackedMatMulB w = pack_rnn_w(p, in[1]);
  const PackedMatMulB r = pack_rnn_r(p, in[2]);
  recurrent_f32(p, s, in, out, w, r);
}

void recurrent(const RnnParams& p, std::span<const TensorView> in, std::span<const TensorView> out,
               const PackedMatMulB& w, const PackedMatMulB& r) {
  const std::string_view op = op_name(p.cell);
  const Sizes s = rnn_check(p, in, out, true);
  check_dtype(op, "X", in[0], DataType::f32);
  if (w.bf16 || r.bf16 || w.k != s.I || w.n != s.D * s.G * s.H || r.k != s.H ||
      r.n != s.D * rnn_r_blocks(p).direction_columns())
    fail(Errc::bad_op_inputs, op, "X " + bracketed(in[0].dims) + " does not fit the weights packed for input size " +
                                      std::to_string(w.k) + " and " + std::to_string(w.n) + " gate rows");
  recurrent_f32(p, s, in, out, w, r);
}

}  // namespace ge::cpu
