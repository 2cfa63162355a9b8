#pragma once
// Private to src/onnx: older opsets brought up to the importer's lowest.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>

#include "onnx/convert.hpp"

namespace ge::onnx::detail {

/// Rewrites `m`, whose default-domain opset `version` is below `min_opset`, to opset
/// `min_opset` with onnx's version converter. Throws `unsupported_op` with the
/// converter's reason (it names the op and the opsets) when it cannot, and when this
/// build has no converter; `bad_model` for a version below 1.
void upgrade_opset(::onnx::ModelProto& m, std::int64_t version);

/// The opset in which ONNX brought in default-domain op `op`, where that is above `opset`
/// (the model's, after the converter brought an older one to `min_opset`): the op is not in
/// the opset the model imports. nullopt where it is, and where this build has no onnx
/// schemas (libonnx, linked with the converter) or they do not know the op (one newer
/// than this onnx): then only the op's `origin.until` bounds it.
[[nodiscard]] std::optional<std::int64_t> onnx_op_first_opset_above(const std::string& op, std::int64_t opset);

}  // namespace ge::onnx::detail
