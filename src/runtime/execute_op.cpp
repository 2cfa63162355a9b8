// execute_op and CompiledOp::output_dims: a compiled single op run on the caller's
// tensors (include/ge/runtime/execute_op.hpp), the tensors checked at the boundary
// (boundary.hpp) against what the op was compiled for.
#include "ge/runtime/execute_op.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "compile/run_step.hpp"
#include "ge/core/detail/out_of_memory.hpp"
#include "ge/ops/registry.hpp"
#include "runtime/boundary.hpp"

namespace ge {

namespace {

[[noreturn]] void fail(Errc code, std::string_view op, const std::string& what) {
  raise(code, "[ge.runtime] [" + std::string(op) + "] " + what);
}

// The words naming input or output `k` of op `name`.
std::string io_name(std::string_view name, bool output, std::size_t k) {
  return "[" + std::string(name) + "] " + (output ? "output " : "input ") + std::to_string(k);
}

// Checks the buffer a caller gave for output `o` of a data-dependent op against the
// bytes its real `dims` need.
void check_dynamic_output(std::string_view name, std::size_t o, const TensorView& v,
                          std::span<const std::int64_t> dims) {
  const auto which = [&] { return io_name(name, true, o); };
  (void)detail::view_bytes(v, which);
  detail::check_holds(v, checked_bytes(dims, v.dtype), which);
}

// Checks output `o` a caller gave against its real type and dims: its buffer, and no
// bytes shared with an input (except an input the op may work in place on) or with an
// output before it.
void check_output(std::string_view name, const OpSchema& schema, std::size_t o, DataType dtype,
                  std::span<const std::int64_t> want, std::span<const TensorView> inputs,
                  std::span<const TensorView> outputs) {
  const TensorView& v = outputs[o];
  if (v.dtype != dtype || !std::equal(want.begin(), want.end(), v.dims.begin(), v.dims.end()))
    fail(Errc::bad_tensor, name, "output " + std::to_string(o) + " is " + std::string(to_string(v.dtype)) + "[" +
                                     dims_text(v.dims) + "]; for these inputs it must be " +
                                     std::string(to_string(dtype)) + "[" + dims_text(want) + "]");
  const auto which = [&] { return io_name(name, true, o); };
  const std::int64_t bytes = detail::view_bytes_with_data(v, which);
  detail::check_separate(
      inputs, outputs, o, bytes,
      [&](std::size_t i) {
        return std::any_of(schema.in_place.begin(), schema.in_place.end(),
                           [&](const InPlace& ip) { return ip.output == o && ip.input == i; });
      },
      "[" + std::string(name) + "] ",
      [](bool output, std::size_t k) { return (output ? "output " : "input ") + std::to_string(k); });
}

// The real inputs' descriptions and constants, each input checked against what `op` was
// compiled for (see execute_op).
struct RealInputs {
  std::vector<TensorDesc> descs;
  std::vector<const Tensor*> constants;
};
RealInputs checked_inputs(const CompiledOp& op, std::span<const TensorView> inputs) {
  const std::string_view name = op.op_type;
  detail::check_count(inputs.size(), op.inputs.size(), "inputs", "[" + op.op_type + "] ", "it");
  RealInputs real{std::vector<TensorDesc>(inputs.size()), std::vector<const Tensor*>(inputs.size(), nullptr)};
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const OpTensor& c = op.inputs[i];
    const TensorView& v = inputs[i];
    const std::string which = "input " + std::to_string(i);
    if (c.is_undefined()) {
      if (v.dtype != DataType::undefined || v.data != nullptr)
        fail(Errc::bad_tensor, name, which + " was compiled as an unused optional input; expected no tensor");
      continue;
    }
    if (v.dtype != c.dtype)
      fail(Errc::bad_tensor, name, which + " is " + std::string(to_string(v.dtype)) + "; it was compiled for " +
                                       std::string(to_string(c.dtype)));
    (void)detail::view_bytes_with_data(v, [&] { return io_name(name, false, i); });
    const Shape shape(std::vector<Dim>(v.dims.begin(), v.dims.end()));
    if (!relaxes(c.shape, shape))
      fail(Errc::out_of_range, name, which + " has shape '" + shape.to_string() + "', outside the compiled '" +
                                         c.shape.to_string() + "'");
    if (c.constant) {
      const auto bytes = c.constant->bytes();
      if (v.bytes() != static_cast<std::int64_t>(bytes.size()) ||
          (!bytes.empty() && std::memcmp(v.data, bytes.data(), bytes.size()) != 0))
        fail(Errc::const_mismatch, name, which + " is constant, and its data differs from the data it was compiled with");
      real.constants[i] = &*c.constant;
    }
    real.descs[i] = {v.dtype, shape};
  }
  return real;
}

std::vector<std::vector<std::int64_t>> execute_unguarded(const CompiledOp& op, std::span<const TensorView> inputs,
                                                         std::span<const TensorView> outputs) {
  const std::string_view name = op.op_type;
  const auto [descs, constants] = checked_inputs(op, inputs);
  detail::check_count(outputs.size(), op.outputs.size(), "outputs", "[" + op.op_type + "] ", "it");
  const OpSchema& schema = OpRegistry::global().find(op.op_type);
  // A data-dependent kernel reports its output dims as it runs: its inputs are checked
  // against the schema first all the same.
  if (op.kernel->data_dependent())
    (void)infer_outputs(schema, op.op_type, descs, constants, op.attrs, op.outputs.size());
  std::vector<DataType> types;
  for (const TensorView& v : outputs) types.push_back(v.dtype);
  std::vector<std::vector<std::int64_t>> result(outputs.size());
  const auto memory = [&](std::size_t o, DataType dtype, std::span<const std::int64_t> dims) -> void* {
    if (op.kernel->data_dependent()) {
      check_dynamic_output(name, o, outputs[o], dims);
    } else {
      check_output(name, schema, o, dtype, dims, inputs, outputs);
    }
    result[o].assign(dims.begin(), dims.end());
    return outputs[o].data;
  };
  detail::run_step({*op.kernel, schema, name, op.attrs, inputs, constants, types}, memory,
                   [&](std::span<const TensorView> in, std::span<const TensorView> out) { op.kernel->run(in, out); });
  return result;
}

}  // namespace

std::vector<std::vector<std::int64_t>> CompiledOp::output_dims(std::span<const TensorView> in) const {
  const auto [descs, constants] = checked_inputs(*this, in);
  const std::vector<TensorDesc> out =
      infer_outputs(OpRegistry::global().find(op_type), op_type, descs, constants, attrs, outputs.size());
  std::vector<std::vector<std::int64_t>> dims;
  for (std::size_t o = 0; o < out.size(); ++o) {
    if (!out[o].shape.rank_known() || !out[o].shape.is_bounded())
      fail(Errc::unbounded, op_type, "output " + std::to_string(o) + " is [" + out[o].shape.to_string() +
                                         "] for these inputs: its dims depend on the data, with no upper bound");
    dims.push_back(upper_bound(out[o].shape).values());
  }
  return dims;
}

std::vector<std::vector<std::int64_t>> execute_op(const CompiledOp& op, std::span<const TensorView> inputs,
                                                  std::span<const TensorView> outputs) {
  return detail::guard_memory("[ge.runtime] executing op", [&] { return quoted(op.op_type); },
                              [&] { return execute_unguarded(op, inputs, outputs); });
}

}  // namespace ge
