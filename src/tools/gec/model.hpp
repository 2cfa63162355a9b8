#pragma once
// What `gec compile` and `gec run` (model.cpp) share with the other commands that take a
// model (cost.cpp): the model flags, loading and compiling, the real input dims of --shape.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "args.hpp"
#include "ge/compile/compile.hpp"

namespace gec {

/// The flags every model command takes: --model, every build option, --target,
/// --streams, --precision, --cache_dir.
[[nodiscard]] std::vector<Flag> shared_model_flags();
/// The model of --model (an ONNX file or a compiled model file), compiled with the flags.
[[nodiscard]] std::shared_ptr<const ge::CompiledModel> load_model(const Args& a);
/// The input dims of --shape (INPUT_SHAPE style), else the model's static ones.
[[nodiscard]] std::vector<std::vector<std::int64_t>> model_run_dims(const Args& a, const ge::CompiledModel& m);

}  // namespace gec
