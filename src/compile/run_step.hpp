#pragma once
// Private to src/compile and src/runtime: one step run on real inputs whose output dims
// are known only now. Session runs the steps of a plan without static shapes through
// it, execute_op every compiled op.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "ge/compile/kernel.hpp"
#include "ge/core/function_ref.hpp"
#include "ge/ops/schema.hpp"

namespace ge::detail {

// What a step runs: its kernel, the op's schema and attributes, its inputs.
struct RunStep {
  const Kernel& kernel;
  const OpSchema& schema;
  std::string_view name;                      // the node's or op's, in messages
  const Attributes& attrs;
  std::span<const TensorView> inputs;         // an omitted optional input: a null view of type undefined
  std::span<const Tensor* const> constants;   // per input: its data where constant, else null
  std::span<const DataType> output_types;     // per output: its type (data-dependent kernels report dims only)
};

// Memory for output `o` of type `dtype` once its real `dims` are known; it may check them.
using OutputMemory = FunctionRef<void*(std::size_t o, DataType dtype, std::span<const std::int64_t> dims)>;
// Runs a kernel that is not data-dependent on the step's inputs and its output views.
using LaunchStep = FunctionRef<void(std::span<const TensorView> inputs, std::span<const TensorView> outputs)>;

// Runs `step`: a data-dependent kernel asks `memory` for each output as it learns its
// dims; for any other kernel the schema infers the outputs' real types and dims from the
// inputs' (and the constants' data), `memory` gives each output, and `launch` runs it.
// Raises Errc::internal for an output that a kernel asks for twice or that has no fixed
// shape at run time.
void run_step(const RunStep& step, OutputMemory memory, LaunchStep launch);

}  // namespace ge::detail
