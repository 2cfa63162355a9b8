#pragma once
// Inside the reference interpreter (support/reference.hpp): dims arithmetic, element
// access through double and int64, what an op sees (Ctx), and the op table each family
// of ops (elementwise.cpp, nn.cpp, shape_ops.cpp) adds to.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ge/graph/graph.hpp"
#include "support/reference.hpp"

namespace ge::ref::detail {

using Dims = std::vector<std::int64_t>;

/// Throws std::runtime_error("reference: " + what).
[[noreturn]] void fail(const std::string& what);

/// The product of d[from, to).
std::int64_t product(const Dims& d, std::size_t from = 0, std::size_t to = static_cast<std::size_t>(-1));
/// a / b rounded down / up (b > 0).
std::int64_t floor_div(std::int64_t a, std::int64_t b);
std::int64_t ceil_div(std::int64_t a, std::int64_t b);
/// `[1,2,3]`.
std::string dims_text(const Dims& d);
/// A double with 9 significant digits.
std::string number_text(double v);
bool is_floating(DataType t);
/// Row-major strides of `d` (in elements).
Dims strides_of(const Dims& d);
/// For each element of a tensor of dims `out`, in row-major order, the flat index
/// `base + sum(position[d] * strides[d])`. Transpose, Slice, broadcasting and the
/// reductions are all this walk with suitable strides.
Dims strided_index(const Dims& out, const Dims& strides, std::int64_t base = 0);
/// Numpy broadcasting of two dims lists; nullopt when they do not broadcast.
std::optional<Dims> broadcast_dims(const Dims& a, const Dims& b);
/// For each element of `out` (row-major), the flat index of the element of a tensor of
/// dims `in` that broadcasts to it (`in` must broadcast to `out`).
Dims broadcast_index(const Dims& out, const Dims& in);

/// Element i as double (any type but f16/bf16).
double get_f(const RefTensor& t, std::int64_t i);
/// A double as int64, truncated toward zero; fails for NaN, infinities, out of range.
std::int64_t to_int64(double v);
/// Element i as int64 (floating types truncate).
std::int64_t get_i(const RefTensor& t, std::int64_t i);
/// Stores v; integer types truncate toward zero, bool is v != 0.
void set_f(RefTensor& t, std::int64_t i, double v);
/// Stores v; narrower integer types wrap, bool is v != 0.
void set_i(RefTensor& t, std::int64_t i, std::int64_t v);
/// dst = the elements of src at the given flat indices (any type: bytes are copied).
RefTensor gather_elements(const RefTensor& src, Dims out_dims, const Dims& index);
/// The same elements with other dims.
RefTensor with_dims(const RefTensor& x, Dims dims);

// What an op sees: the node, its inputs (null for omitted ones), attribute readers that
// fall back to the ONNX default.
class Ctx {
 public:
  Ctx(const Node& n, std::vector<const RefTensor*> in) : node(n), in_(std::move(in)) {}

  const Node& node;

  [[nodiscard]] std::size_t input_count() const { return in_.size(); }
  [[nodiscard]] bool has_input(std::size_t k) const { return k < in_.size() && in_[k] != nullptr; }
  [[nodiscard]] const RefTensor& in(std::size_t k) const {
    if (!has_input(k)) error("input " + std::to_string(k) + " is missing");
    return *in_[k];
  }

  [[nodiscard]] bool has(std::string_view name) const { return node.attrs.find(name) != node.attrs.end(); }
  [[nodiscard]] std::int64_t i(std::string_view name, std::int64_t def) const {
    const auto it = node.attrs.find(name);
    return it == node.attrs.end() ? def : it->second.as_int();
  }
  [[nodiscard]] double f(std::string_view name, double def) const {
    const auto it = node.attrs.find(name);
    return it == node.attrs.end() ? def : it->second.as_float();
  }
  [[nodiscard]] std::string s(std::string_view name, std::string def) const {
    const auto it = node.attrs.find(name);
    return it == node.attrs.end() ? def : it->second.as_string();
  }
  [[nodiscard]] Dims ints(std::string_view name, Dims def = {}) const {
    const auto it = node.attrs.find(name);
    return it == node.attrs.end() ? def : it->second.as_ints();
  }

  [[noreturn]] void error(const std::string& what) const {
    fail("node '" + node.name + "' (" + node.op + "): " + what);
  }
  // An axis in [-rank, rank) (or [-rank, rank] with `inclusive`), made non-negative.
  [[nodiscard]] std::int64_t axis(std::int64_t a, std::int64_t rank, const std::string& what,
                                  bool inclusive = false) const {
    const std::int64_t hi = inclusive ? rank : rank - 1;
    if (a < -rank || a > hi)
      error(what + " is " + std::to_string(a) + ", outside [" + std::to_string(-rank) + ", " + std::to_string(hi) +
            "] for rank " + std::to_string(rank));
    return a < 0 ? a + rank : a;
  }
  void require_float(std::size_t k) const {
    const DataType t = in(k).dtype;
    if (t != DataType::f32 && t != DataType::f64)
      error("input " + std::to_string(k) + " is " + in(k).describe() + "; only f32 and f64 are implemented");
  }

 private:
  std::vector<const RefTensor*> in_;
};

using Outs = std::vector<RefTensor>;

using OpFn = std::function<Outs(const Ctx&)>;
/// One op of the reference.
struct OpImpl {
  OpFn run;
  std::vector<std::string_view> attrs;  ///< the attributes it reads; any other one fails
};
using OpTable = std::map<std::string, OpImpl, std::less<>>;

/// y = f(x) in double for a floating x (the unary maps of every family).
template <class F>
Outs map_float(const Ctx& c, F f) {
  c.require_float(0);
  const RefTensor& x = c.in(0);
  RefTensor y(x.dtype, x.dims);
  for (std::int64_t i = 0; i < x.elements(); ++i) set_f(y, i, f(get_f(x, i)));
  return {y};
}

/// The axes of input `k` normalized against `rank`, checked for duplicates.
Dims axes_input(const Ctx& c, std::size_t k, std::int64_t rank);

/// The ops of each family.
void add_elementwise_ops(OpTable& t);
void add_elementwise_math_ops(OpTable& t);  // elementwise_math.cpp
void add_nn_ops(OpTable& t);
void add_shape_ops(OpTable& t);
void add_reduce_ops(OpTable& t);  // reduce.cpp
void add_indexing_ops(OpTable& t);  // indexing.cpp
void add_rearrange_ops(OpTable& t);  // rearrange.cpp
void add_loss_ops(OpTable& t);       // loss.cpp
void add_one_hot_ops(OpTable& t);    // one_hot.cpp (and Dropout, CastLike)
void add_selection_ops(OpTable& t);  // selection.cpp (and GatherND, ScatterND)
void add_recurrent_ops(OpTable& t);  // recurrent.cpp (RNN, GRU, LSTM)
void add_optimizer_ops(OpTable& t);  // optimizers.cpp (Adagrad, Adam, Momentum)
void add_nn_more_ops(OpTable& t);    // nn_more.cpp (ConvTranspose, ...)
void add_spectral_ops(OpTable& t);   // spectral.cpp (DFT, STFT, MelWeightMatrix, TfIdfVectorizer)
void add_quantize_ops(OpTable& t);   // quantize.cpp
void add_detection_ops(OpTable& t);  // detection.cpp
void add_resize_ops(OpTable& t);     // resize.cpp

}  // namespace ge::ref::detail
