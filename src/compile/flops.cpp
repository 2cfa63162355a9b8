#include "ge/compile/flops.hpp"

#include <vector>

#include "ge/compile/plan.hpp"

namespace ge {
namespace {

double elements(std::span<const std::int64_t> dims) noexcept {
  double n = 1;
  for (const std::int64_t d : dims) n *= static_cast<double>(d);
  return n;
}

bool any_negative(std::span<const std::int64_t> dims) noexcept {
  for (const std::int64_t d : dims) {
    if (d < 0) return true;
  }
  return false;
}

}  // namespace

std::optional<double> op_flops(std::string_view op, std::span<const std::span<const std::int64_t>> inputs,
                               std::span<const std::int64_t> output) noexcept {
  if (inputs.size() < 2 || any_negative(output)) return std::nullopt;
  const auto a = inputs[0], b = inputs[1];
  if (any_negative(a) || any_negative(b)) return std::nullopt;
  if (op == "Conv" || op == "FusedConv") {
    // Each output element is a dot product over one filter: W is [M, C/group, k...].
    if (b.size() < 3 || output.size() != b.size() || b[0] == 0) return std::nullopt;
    return 2.0 * elements(output) * (elements(b) / static_cast<double>(b[0]));
  }
  if (op == "FusedPointwiseDepthwise") {
    // The pointwise conv over every input pixel (X is NHWC, W1 [E, C, 1, 1]), then the
    // depthwise one over every output element (W2 [E, 1, kh, kw]).
    if (inputs.size() < 4 || a.size() != 4 || b.size() != 4 || inputs[3].size() != 4 || any_negative(inputs[3]))
      return std::nullopt;
    const double pointwise = 2.0 * elements(a) * static_cast<double>(b[0]);
    return pointwise + 2.0 * elements(output) * static_cast<double>(inputs[3][2] * inputs[3][3]);
  }
  if (op == "FusedDepthwisePointwise") {
    // The depthwise conv over every pixel of the output's (W1 [C, 1, kh, kw]), then the
    // pointwise one (W2 [M, C, 1, 1]).
    if (inputs.size() < 4 || b.size() != 4 || inputs[3].size() != 4 || output.size() != 4 || any_negative(inputs[3]))
      return std::nullopt;
    const double pixels = static_cast<double>(output[0] * output[1] * output[2]);
    return 2.0 * pixels * static_cast<double>(b[0] * b[2] * b[3]) +
           2.0 * pixels * static_cast<double>(b[0] * inputs[3][0]);
  }
  if (op == "ConvTranspose") {
    // Each input element is scattered through one filter: W is [C, M/group, k...].
    if (b.size() < 3 || a.size() != b.size() || b[0] == 0) return std::nullopt;
    return 2.0 * elements(a) * (elements(b) / static_cast<double>(b[0]));
  }
  if (op == "MatMul" || op == "FusedMatMul") {
    if (a.empty() || b.empty()) return std::nullopt;
    return 2.0 * elements(output) * static_cast<double>(a.back());
  }
  if (op == "Gemm") {
    // A is [M, K] or, transposed, [K, M], and Y is [M, N]: K = |A| / M.
    if (a.size() != 2 || output.size() != 2 || output[0] == 0) return std::nullopt;
    const double k = elements(a) / static_cast<double>(output[0]);
    return 2.0 * elements(output) * k;
  }
  return std::nullopt;
}

std::optional<double> step_flops(const Plan& plan, std::size_t step) noexcept {
  if (!plan.static_shapes || step >= plan.steps.size()) return std::nullopt;
  const PlanStep& s = plan.steps[step];
  if (s.outputs.empty() || s.outputs[0] < 0) return std::nullopt;
  std::vector<std::vector<std::int64_t>> dims;
  try {
    const auto static_dims = [&](std::int32_t v) {
      std::vector<std::int64_t> d;
      if (v < 0) return d;
      for (const Dim& x : plan.values[static_cast<std::size_t>(v)].desc.shape.dims()) d.push_back(x.value());
      return d;
    };
    for (const std::int32_t v : s.inputs) dims.push_back(static_dims(v));
    const std::vector<std::int64_t> out = static_dims(s.outputs[0]);
    std::vector<std::span<const std::int64_t>> spans(dims.begin(), dims.end());
    return op_flops(s.op, spans, out);
  } catch (...) {
    return std::nullopt;
  }
}

std::optional<double> plan_flops(const Plan& plan) noexcept {
  if (!plan.static_shapes) return std::nullopt;
  double total = 0;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) total += step_flops(plan, i).value_or(0.0);
  return total;
}

}  // namespace ge
