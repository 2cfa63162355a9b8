#pragma once
// Private to src/onnx: older opsets brought up to the importer's lowest.

#include <onnx/onnx_pb.h>

#include <cstdint>

#include "onnx/convert.hpp"

namespace ge::onnx::detail {

/// Rewrites `m`, whose default-domain opset `version` is below `min_opset`, to opset
/// `min_opset` with onnx's version converter. Throws `unsupported_op` with the
/// converter's reason (it names the op and the opsets) when it cannot, and when this
/// build has no converter; `bad_model` for a version below 1.
void upgrade_opset(::onnx::ModelProto& m, std::int64_t version);

}  // namespace ge::onnx::detail
