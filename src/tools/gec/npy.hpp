#pragma once
// NumPy .npy files for gec run: read an input, write an output; and seeded random inputs.
// Versions 1.0 to 3.0, little-endian, C order; types f16, f32, f64, i8..i64, u8..u64, bool
// (a bf16 output is written as f32: NumPy has no bf16).
// A file that breaks the format is a ge::Error (bad_tensor) naming the file and the reason.

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ge/core/tensor_view.hpp"

namespace gec {

/// An array in host memory.
struct NpyArray {
  ge::DataType dtype = ge::DataType::f32;
  std::vector<std::int64_t> dims;
  std::vector<std::byte> bytes;
  /// A view of it (valid while the array lives and is not resized).
  [[nodiscard]] ge::TensorView view() { return {bytes.data(), dtype, dims}; }
};

/// Reads a .npy file.
[[nodiscard]] NpyArray read_npy(const std::string& path);
/// Writes `t` as a .npy file. Throws ge::Error (invalid_argument) for a type .npy lacks
/// here or a file that cannot be written.
void write_npy(const std::string& path, const ge::TensorView& t);
/// Seeded random data: floats (f16, bf16 too) uniform in [-1, 1), integers in [0, 10), bools 0/1.
[[nodiscard]] NpyArray random_array(ge::DataType dtype, const std::vector<std::int64_t>& dims, std::mt19937_64& rng);

}  // namespace gec
