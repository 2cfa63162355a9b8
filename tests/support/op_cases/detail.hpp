#pragma once
// Inside support/op_cases: the random source of the case generators and the table each
// family of generators (elementwise.cpp, nn.cpp, shape_ops.cpp) adds to.

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "support/op_cases.hpp"

namespace ge::test::cases {

using Dims = std::vector<std::int64_t>;
using ref::RefTensor;

/// Seeded random values, shapes and tensors for one op's cases.
class Gen {
 public:
  explicit Gen(std::uint64_t seed) : rng_(seed) {}

  /// Uniform in [lo, hi].
  std::int64_t integer(std::int64_t lo, std::int64_t hi);
  /// Uniform in [lo, hi).
  double real(double lo, double hi);
  bool coin() { return integer(0, 1) == 1; }
  /// Rank in [rank_lo, rank_hi], each dim in [lo, hi].
  Dims dims(std::int64_t rank_lo, std::int64_t rank_hi, std::int64_t lo = 1, std::int64_t hi = 7);
  /// Dims that broadcast to `d`: some leading dims dropped, some others set to 1.
  Dims broadcastable(const Dims& d);
  /// f32 values uniform in [lo, hi).
  RefTensor f32(Dims d, double lo = -1, double hi = 1);
  /// Integers in [lo, hi] of type `t` (f32 too: integer-valued floats, so that
  /// comparisons meet equal values).
  RefTensor ints(DataType t, Dims d, std::int64_t lo, std::int64_t hi);
  /// Random bools.
  RefTensor bools(Dims d);
  /// A random permutation of 0..n-1.
  Dims permutation(std::size_t n);

 private:
  std::mt19937_64 rng_;
};

/// A graph input / a graph constant.
inline CaseInput in(RefTensor t) { return {std::move(t), false}; }
inline CaseInput cst(RefTensor t) { return {std::move(t), true}; }
/// A 1-D i64 constant (shapes, axes).
inline CaseInput i64s(const Dims& v) {
  return cst(RefTensor::of<std::int64_t>({static_cast<std::int64_t>(v.size())}, v));
}
/// A case of `op` on `inputs` with `attrs`.
OpCase make(std::string op, std::vector<std::optional<CaseInput>> inputs, Attributes attrs = {});

using Generator = std::function<std::vector<OpCase>(Gen&)>;
using GenTable = std::map<std::string, Generator, std::less<>>;

void add_elementwise_cases(GenTable& t);
void add_elementwise_math_cases(GenTable& t);  // op_cases/elementwise_math.cpp

/// Three cases of a float unary op on values in [lo, hi), ranks 0 to 4 (elementwise.cpp).
Generator unary(std::string op, double lo, double hi, double rtol = 1e-5, Attributes attrs = {});
/// Comparisons: integer-valued floats (so that some are equal) and i64, broadcast.
Generator comparison(std::string op);
void add_nn_cases(GenTable& t);
void add_shape_cases(GenTable& t);
void add_reduce_cases(GenTable& t);  // op_cases/reduce.cpp
void add_indexing_cases(GenTable& t);  // op_cases/indexing.cpp
void add_rearrange_cases(GenTable& t);  // op_cases/rearrange.cpp
void add_loss_cases(GenTable& t);       // op_cases/loss.cpp
void add_one_hot_cases(GenTable& t);    // op_cases/one_hot.cpp
void add_selection_cases(GenTable& t);  // op_cases/selection.cpp
void add_recurrent_cases(GenTable& t);  // op_cases/recurrent.cpp
void add_optimizer_cases(GenTable& t);  // op_cases/optimizers.cpp
void add_nn_more_cases(GenTable& t);    // op_cases/nn_more.cpp
void add_spectral_cases(GenTable& t);   // op_cases/spectral.cpp
void add_quantize_cases(GenTable& t);   // op_cases/quantize.cpp
void add_detection_cases(GenTable& t);  // op_cases/detection.cpp
void add_resize_cases(GenTable& t);     // op_cases/resize.cpp

}  // namespace ge::test::cases
