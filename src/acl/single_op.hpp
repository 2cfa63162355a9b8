#pragma once
// What the single-op calls share (aclopCompile, aclopExecuteV2, the handles,
// aclopCompileAndExecute, aclopInferShape): one acl call read into ge's terms, the
// compile options in force, the lookup of a compiled op, and a run on data buffers.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "acl/acl_internal.hpp"

namespace acl {

/// The call's descriptions and attributes, checked (null pointers, counts) and
/// translated (`translate`). `opType` null: CallError ACL_ERROR_INVALID_PARAM.
[[nodiscard]] GeCall read_call(const char* op_type, int num_inputs, const aclTensorDesc* const* input_desc,
                               int num_outputs, const aclTensorDesc* const* output_desc, const aclopAttr* attr);

/// A compile request for the call with the options in force (aclSetCompileopt,
/// aclopSetCompileFlag): fuzzy when ACL_OP_COMPILE_FUZZ or ACL_OP_JIT_COMPILE "disable".
[[nodiscard]] ge::OpCompileRequest compile_request(const GeCall& call, ge::EngineChoice engine);

/// The compiled op serving the call (`OpCompiler::find`). A miss is CallError
/// ACL_ERROR_OP_NOT_FOUND, or ACL_ERROR_OP_INPUT_NOT_MATCH when an op compiled for the
/// same call but other constant data exists.
[[nodiscard]] std::shared_ptr<const ge::CompiledOp> find_compiled(const GeCall& call);

/// The real dims of each acl input description (each must be static; an unused optional
/// input has none).
[[nodiscard]] std::vector<std::vector<std::int64_t>> real_dims(int num_inputs, const aclTensorDesc* const* input_desc);

/// Runs `op` on the buffers: acl input `call.slots[j]` for ge input j, with `dims` per acl
/// input; outputs sized for the real output dims, which it returns.
std::vector<std::vector<std::int64_t>> run(const ge::CompiledOp& op, const GeCall& call,
                                           std::span<const std::vector<std::int64_t>> dims, int num_inputs,
                                           const aclDataBuffer* const* inputs, int num_outputs,
                                           aclDataBuffer* const* outputs);

/// Rewrites each output description with its real dims.
void rewrite_outputs(int num_outputs, aclTensorDesc* const* output_desc,
                     const std::vector<std::vector<std::int64_t>>& dims);

}  // namespace acl
