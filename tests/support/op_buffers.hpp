#pragma once
// Test support for single-op compile tests (compile_op / execute_op): owning buffers of C++
// values, op tensor descriptions, constants from buffers, and one run.

#include <cstdint>
#include <vector>

#include "ge/compile/op_compile.hpp"
#include "ge/runtime/execute_op.hpp"
#include "ge/tensor/tensor.hpp"

namespace ge::test::op {

using Ints = std::vector<std::int64_t>;

template <class T>
struct Buf {
  std::vector<T> data;
  Ints dims;
  DataType dtype = data_type_of<T>();
  TensorView view() { return TensorView{data.data(), dtype, dims}; }
};

template <class T>
Buf<T> of(Ints dims, std::vector<T> values) {
  return Buf<T>{std::move(values), std::move(dims)};
}
template <class T = float>
Buf<T> zeros(Ints dims) {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  return Buf<T>{std::vector<T>(static_cast<std::size_t>(n)), std::move(dims)};
}
inline Buf<float> iota(Ints dims, float start = 0.f, float step = 1.f) {
  Buf<float> b = zeros(std::move(dims));
  for (std::size_t i = 0; i < b.data.size(); ++i) b.data[i] = start + step * static_cast<float>(i);
  return b;
}
// A bool tensor, one byte per element.
inline Buf<std::uint8_t> bools(Ints dims, std::vector<std::uint8_t> v) {
  return Buf<std::uint8_t>{std::move(v), std::move(dims), DataType::boolean};
}

inline OpTensor desc(DataType t, const char* shape) { return OpTensor{t, Shape::parse(shape)}; }
inline OpTensor f32(const char* shape) { return desc(DataType::f32, shape); }
// The buffer as a constant input.
template <class T>
OpTensor konst(const Buf<T>& b) {
  if (b.dtype == DataType::boolean) {
    std::vector<bool> v(b.data.begin(), b.data.end());
    return OpTensor::constant_of(Tensor::from<bool>(b.dims, v));
  }
  return OpTensor::constant_of(Tensor::from<T>(b.dims, b.data));
}

inline std::vector<Ints> run(const CompiledOp& op, std::vector<TensorView> in, std::vector<TensorView> out) {
  return execute_op(op, in, out);
}

}  // namespace ge::test::op
