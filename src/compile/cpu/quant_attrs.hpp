#pragma once
// Private: the quantization attributes of ge's int8-aware ops (FakeQuant; FusedConv,
// FusedMatMul and FusedPointwiseDepthwise with a quantized input, compile/qdq.cpp), read and
// checked in one place: a model file may carry any number there, and a zero point that
// only narrowing to 32 bits would bring into range must be an error, not a wrap.
#include <optional>
#include <string>

#include "ge/ops/schema.hpp"
#include "kernels/cpu/gemm/gemm.hpp"
#include "kernels/cpu/int8/int8.hpp"

namespace ge::cpu_lower {

// `<prefix>x_scale` and `<prefix>x_zero_point` (a u8 zero point). Raises
// `Errc::bad_attribute` naming the node unless the scale is positive and finite and the
// zero point in [0, 255].
[[nodiscard]] cpu::QuantU8 input_quant(const InferContext& c, const std::string& prefix = "");

// The round trip `<names>scale`, `zero_point`, `qmin`, `qmax` as FakeQuant spells them
// (`y_` and `pointwise_y_` prefixes: `y_scale`, ..., `y_qmin`), or nullopt where the scale is
// 0 (none) and `optional`. Raises `Errc::bad_attribute` unless the scale is positive and
// finite and -128 <= qmin <= zero_point <= qmax <= 255, qmin < qmax.
[[nodiscard]] std::optional<cpu::FakeQuant> round_trip(const InferContext& c, const std::string& prefix,
                                                       bool optional);

}  // namespace ge::cpu_lower
