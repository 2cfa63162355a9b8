#pragma once
// Private to src/onnx: the helpers that turn ONNX protobuf messages into ge types.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "ge/core/data_type.hpp"
#include "ge/core/error.hpp"
#include "ge/ops/schema.hpp"
#include "ge/tensor/tensor.hpp"
#include "ge/onnx.hpp"

namespace ge::onnx::detail {

/// The domain of ONNX's training ops; ge reads its optimizers Adagrad, Adam, Momentum.
inline constexpr std::string_view training_domain = onnx_training_domain;

/// The ge type of an ONNX TensorProto data type, or nullopt when ge has none.
[[nodiscard]] std::optional<DataType> map_type(std::int32_t onnx_type) noexcept;
/// `FLOAT`, `STRING`, ... or `data type 99`.
[[nodiscard]] std::string type_name(std::int32_t onnx_type);
/// `'name'`, printable and at most 200 characters.
[[nodiscard]] std::string quote(std::string_view s);
/// Throws `Error(code, "[ge.onnx] " + what)`.
[[noreturn]] void fail(Errc code, const std::string& what);
/// The tensor, its data checked against its dims before anything is allocated.
/// `what` names it in messages (`initializer 'w'`).
[[nodiscard]] Tensor to_tensor(const ::onnx::TensorProto& t, const std::string& what,
                               const std::filesystem::path& base_dir, const LoadOptions& options);

}  // namespace ge::onnx::detail
