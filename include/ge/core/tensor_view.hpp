#pragma once
/// \file
/// `ge::TensorView`: a non-owning view of a dense, row-major tensor in memory: the ABI
/// between the runtime and kernels. Nothing here allocates.
///
/// ```
/// std::vector<float> buf(2 * 3);
/// std::int64_t dims[] = {2, 3};
/// ge::TensorView t{buf.data(), ge::DataType::f32, dims};
/// t.elements();   // 6
/// t.as<float>();  // float*
/// ```

#include <cstdint>
#include <span>

#include "ge/core/data_type.hpp"

namespace ge {

/// A dense row-major tensor: data, element type, dims. Dims are owned elsewhere.
struct TensorView {
  void* data = nullptr;
  DataType dtype = DataType::undefined;
  std::span<const std::int64_t> dims;

  /// The number of dims.
  [[nodiscard]] std::size_t rank() const noexcept { return dims.size(); }
  /// The product of the dims (1 for a scalar).
  [[nodiscard]] std::int64_t elements() const noexcept {
    std::int64_t n = 1;
    for (const std::int64_t d : dims) n *= d;
    return n;
  }
  /// The size in bytes.
  [[nodiscard]] std::int64_t bytes() const noexcept { return elements() * size_of(dtype); }
  /// The data as `T*` (the caller knows `dtype`).
  template <class T>
  [[nodiscard]] T* as() const noexcept {
    return static_cast<T*>(data);
  }
};

}  // namespace ge
