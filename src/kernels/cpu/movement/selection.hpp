#pragma once
/// \file
/// Elements selected or reordered by data: Compress, ReverseSequence and Unique, any
/// element type (Unique compares the values of numeric and bool types).
///
/// ```
/// ge::cpu::compress(1, x, condition, y);                       // the columns whose condition is true
/// ge::cpu::reverse_sequence(0, 1, x, lens, y);
/// const ge::cpu::UniqueResult u = ge::cpu::unique(true, std::nullopt, x);
/// ge::cpu::unique_values(std::nullopt, x, u, y);
/// ```

#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/cpu/common.hpp"

namespace ge::cpu {

/// y = the slices of x along `axis` (non-negative; none: the flattened elements) whose
/// condition (bool) is true; a shorter condition selects from the first slices. Raises
/// `Errc::bad_op_inputs` (y's dims, a condition longer than the axis), `Errc::type_mismatch`.
void compress(std::optional<std::int64_t> axis, const TensorView& x, const TensorView& condition, const TensorView& y);

/// y = x with the first lens[b] steps along `time_axis` reversed for each entry b along
/// `batch_axis` (the two are 0 and 1). Raises `Errc::bad_attribute` (axes),
/// `Errc::bad_op_inputs` (lens of the wrong length, or outside [0, time]).
void reverse_sequence(std::int64_t time_axis, std::int64_t batch_axis, const TensorView& x, const TensorView& lens,
                      const TensorView& y);

/// What Unique finds: per distinct slice (in output order) its first index and count,
/// and per input slice its distinct slice's index.
struct UniqueResult {
  std::vector<std::int64_t> first, inverse, counts;
};

/// The distinct slices of x along `axis` (none: its elements), sorted ascending
/// (lexicographically) when `sorted`, else in order of first occurrence. Raises
/// `Errc::bad_attribute` (axis), `Errc::unsupported` (f16, bf16).
[[nodiscard]] UniqueResult unique(bool sorted, std::optional<std::int64_t> axis, const TensorView& x);

/// y = the distinct slices `u` names, copied from x.
void unique_values(std::optional<std::int64_t> axis, const TensorView& x, const UniqueResult& u, const TensorView& y);

}  // namespace ge::cpu
