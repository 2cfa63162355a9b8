// run_step: one step whose output dims are known only when it runs (run_step.hpp).
#include "compile/run_step.hpp"

#include <string>
#include <vector>

#include "ge/ops/registry.hpp"

namespace ge::detail {

void run_step(const RunStep& step, OutputMemory memory, LaunchStep launch) {
  const std::size_t outputs = step.output_types.size();
  if (step.kernel.data_dependent()) {
    step.kernel.run_dynamic(step.inputs, [&](std::size_t o, std::span<const std::int64_t> dims) -> void* {
      if (o >= outputs)
        raise(Errc::internal,
              "[ge.runtime] step '" + std::string(step.name) + "' asked for output " + std::to_string(o));
      return memory(o, step.output_types[o], dims);
    });
    return;
  }
  std::vector<TensorDesc> descs(step.inputs.size());
  for (std::size_t i = 0; i < step.inputs.size(); ++i) {
    const TensorView& v = step.inputs[i];
    if (v.dtype != DataType::undefined) descs[i] = {v.dtype, Shape(std::vector<Dim>(v.dims.begin(), v.dims.end()))};
  }
  const auto real = infer_outputs(step.schema, step.name, descs, step.constants, step.attrs, outputs);
  std::vector<std::vector<std::int64_t>> dims(outputs);
  std::vector<TensorView> out(outputs);
  for (std::size_t o = 0; o < outputs; ++o) {
    if (!real[o].shape.is_static())
      raise(Errc::internal, "[ge.runtime] step '" + std::string(step.name) + "': output " + std::to_string(o) +
                                " has no fixed shape at run time (" + real[o].shape.to_string() + ")");
    dims[o] = real[o].shape.values();
    out[o] = {memory(o, real[o].dtype, dims[o]), real[o].dtype, dims[o]};
  }
  launch(step.inputs, out);
}

}  // namespace ge::detail
