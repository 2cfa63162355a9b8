#pragma once
/// \file
/// A plain reference interpreter for `ge::Graph`, kept with the tests (the library
/// ge_test_support): it runs a graph, or one op, on host tensors with straightforward
/// loops (ONNX semantics, opset 13-17), so that the tests can check the optimised
/// engine's results and every CPU kernel against it.
///
/// It favours being obviously right over being fast: every op reads its attributes from
/// the node (an attribute the node does not set takes the schema's default), math runs
/// in double (Conv, Gemm and MatMul accumulate in double too), and each result is checked
/// against the description that shape inference recorded for the value.
///
/// ```
/// ge::Graph g = ge::models::resnet50("1,3,64,64");
/// auto x = ge::ref::RefTensor::random(ge::DataType::f32, {1, 3, 64, 64}, 7);
/// std::vector<ge::ref::RefTensor> y = ge::ref::run_reference(g, {x});   // y[0]: f32[1,1000]
/// std::string why;
/// bool ok = ge::ref::all_close(y[0], engine_output, y[0].elements(), 1e-4, 1e-5, &why);
///
/// auto a = ge::ref::RefTensor::of<float>({2}, {1.f, -2.f});
/// std::vector<ge::ref::RefTensor> r = ge::ref::run_op("LeakyRelu", {&a}, {{"alpha", 0.1}});  // {1, -0.2}
/// ```
///
/// The ops live in support/reference/ by family (elementwise.cpp, nn.cpp, shape_ops.cpp).

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ge/core/data_type.hpp"
#include "ge/graph/graph.hpp"
#include "ge/tensor/attribute.hpp"
#include "ge/tensor/tensor.hpp"

namespace ge::ref {

/// A dense host tensor: data type, dims and the bytes (row-major). Bool elements are
/// one byte each, 0 or 1.
struct RefTensor {
  DataType dtype = DataType::f32;  ///< element type
  std::vector<std::int64_t> dims;  ///< static dims; empty for a scalar
  std::vector<std::byte> bytes;    ///< elements() * size_of(dtype) bytes

  /// An f32 scalar without bytes (fill it, or use the factories below).
  RefTensor() = default;
  /// A zero-filled tensor of `dims`.
  RefTensor(DataType type, std::vector<std::int64_t> dims);

  /// A tensor of C++ values, e.g. `RefTensor::of<float>({2}, {1.f, 2.f})`. Throws
  /// std::runtime_error when the count does not fit the dims.
  template <class T>
  [[nodiscard]] static RefTensor of(std::vector<std::int64_t> dims, const std::vector<T>& values);
  /// Seeded uniform values in [lo, hi) (as `ge::Tensor::random`).
  [[nodiscard]] static RefTensor random(DataType type, std::vector<std::int64_t> dims, std::uint64_t seed,
                                        double lo = -1.0, double hi = 1.0);
  /// A copy of a graph constant (or any `ge::Tensor`).
  [[nodiscard]] static RefTensor from(const Tensor& t);
  /// A `ge::Tensor` holding a copy of the bytes.
  [[nodiscard]] Tensor to_tensor() const;

  /// The number of elements (1 for a scalar).
  [[nodiscard]] std::int64_t elements() const noexcept;
  /// The elements as `T`; `T` must store `dtype` (`bool` or `std::uint8_t` for bool
  /// tensors). Throws std::runtime_error otherwise.
  template <class T>
  [[nodiscard]] std::span<T> as();
  /// The elements as `T` (read only).
  template <class T>
  [[nodiscard]] std::span<const T> as() const;
  /// Every element as double (any type but f16/bf16).
  [[nodiscard]] std::vector<double> to_doubles() const;
  /// Every element as int64 (integer and bool types; floating types truncate).
  [[nodiscard]] std::vector<std::int64_t> to_int64s() const;
  /// `f32[1,3,2,2]`.
  [[nodiscard]] std::string describe() const;

 private:
  void check_view(DataType want, std::size_t elem_size) const;
};

/// Runs `graph` on `inputs` (one per graph input, in graph input order) and returns one
/// RefTensor per graph output, in order. Throws std::runtime_error naming the node and
/// op for an op or attribute it does not implement, for inputs that do not fit the graph
/// inputs, and for a result that does not fit the description recorded in the graph.
[[nodiscard]] std::vector<RefTensor> run_reference(const Graph& graph, const std::vector<RefTensor>& inputs);

/// Runs one `op` on `inputs` (null: an omitted optional input) with `attrs` (an
/// attribute not set takes the ONNX default), as a node named `name`; returns every
/// output the reference computes for the op (at least the required ones). Throws
/// std::runtime_error as `run_reference`, without the checks against a graph.
[[nodiscard]] std::vector<RefTensor> run_op(std::string_view op, const std::vector<const RefTensor*>& inputs,
                                            const Attributes& attrs = {}, std::string_view name = "node");

/// Whether the reference implements `op` (some attributes or types may still be missing).
[[nodiscard]] bool implements(std::string_view op);
/// The ops the reference implements, sorted.
[[nodiscard]] std::vector<std::string> implemented_ops();

/// Whether `count` f32 values at `actual` match `expected`: every element within
/// atol + rtol * |expected| for floating `expected` (NaN matches NaN, an infinity only
/// itself), equal after conversion for integer and bool `expected`. On a mismatch,
/// `why` (when given) says where, how far off, and the largest difference.
[[nodiscard]] bool all_close(const RefTensor& expected, const float* actual, std::int64_t count, double rtol,
                             double atol, std::string* why = nullptr);
/// The same for a whole tensor: data type and dims must agree too; integer and bool
/// tensors must be equal.
[[nodiscard]] bool all_close(const RefTensor& expected, const RefTensor& actual, double rtol, double atol,
                             std::string* why = nullptr);
/// The largest |expected - actual| over the elements (both converted to double).
[[nodiscard]] double max_abs_diff(const RefTensor& expected, const RefTensor& actual);

// ---- templates ------------------------------------------------------------------------

template <class T>
RefTensor RefTensor::of(std::vector<std::int64_t> d, const std::vector<T>& values) {
  static_assert(data_type_of<T>() != DataType::undefined, "RefTensor::of: no ge::DataType stores this C++ type");
  RefTensor t(data_type_of<T>(), std::move(d));
  if (static_cast<std::int64_t>(values.size()) != t.elements())
    throw std::runtime_error("RefTensor::of: " + std::to_string(values.size()) + " values for " + t.describe());
  auto out = t.as<T>();
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return t;
}

template <class T>
std::span<T> RefTensor::as() {
  static_assert(!std::is_const_v<T>);
  check_view(std::is_same_v<T, std::uint8_t> && dtype == DataType::boolean ? DataType::boolean : data_type_of<T>(),
             sizeof(T));
  return {reinterpret_cast<T*>(bytes.data()), bytes.size() / sizeof(T)};
}

template <class T>
std::span<const T> RefTensor::as() const {
  check_view(std::is_same_v<T, std::uint8_t> && dtype == DataType::boolean ? DataType::boolean : data_type_of<T>(),
             sizeof(T));
  return {reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)};
}

}  // namespace ge::ref
