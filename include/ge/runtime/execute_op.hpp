#pragma once
/// \file
/// Running a compiled single op (`aclopExecuteV2` over ge): the op comes from
/// `ge::compile_op` (`ge/compile/op_compile.hpp`); its real tensors are the caller's.
///
/// ```
/// auto op = ge::compile_op("Add", {a_desc, b_desc}, {y_desc});
/// auto dims = op->output_dims({a_view, b_view});    // to size y_view
/// ge::execute_op(*op, {a_view, b_view}, {y_view});
/// ```

#include <cstdint>
#include <span>
#include <vector>

#include "ge/compile/op_compile.hpp"
#include "ge/core/api.hpp"
#include "ge/core/tensor_view.hpp"

namespace ge {

/// Runs a compiled op on the CPU device. One view per input slot (an omitted optional
/// input: null data, `undefined` type) and per output. Checks (each a `ge::Error`): the
/// counts (`bad_tensor`); each input's type and dims against the compiled description
/// (dims inside its ranges, else `out_of_range`); constant inputs equal to the compiled
/// data (`const_mismatch`); null data with elements, a buffer smaller than its dims
/// (`bad_tensor`), dims whose bytes leave int64 (`int_overflow`); output types and dims
/// equal to the inference for the real inputs, no output sharing bytes with an input
/// (except exactly an input the op works in place on) or another output (`bad_tensor`).
/// Data-dependent ops (NonZero, ...) need output views big enough for the worst case;
/// the real output dims are returned either way. Host memory running out is
/// `out_of_memory`.
GE_API std::vector<std::vector<std::int64_t>> execute_op(const CompiledOp& op, std::span<const TensorView> inputs,
                                                         std::span<const TensorView> outputs);

}  // namespace ge
