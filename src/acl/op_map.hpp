#pragma once
// Ascend IR op names onto ge's ops (docs/acl.md has the table): the translation of one
// single-op call, done the same way at compile, execution, handle creation and shape
// inference, so that a call finds what an equal call compiled.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ge/compile/op_compile.hpp"
#include "ge/tensor/attribute.hpp"

namespace acl {

/// One single-op call in ge's terms.
struct GeCall {
  std::string op_type;                ///< ge's op
  std::vector<ge::OpTensor> inputs;   ///< ge's inputs
  std::vector<std::size_t> slots;     ///< for each ge input, the index of the acl input it is
  std::vector<ge::OpTensor> outputs;  ///< ge's outputs (the acl outputs, in order)
  ge::Attributes attrs;               ///< ge's attributes
};

/// Translates a call of `op_type` (an Ascend IR name, or any other name as itself) with
/// the acl inputs, outputs and attributes. Throws `ge::Error` (`bad_attribute`,
/// `bad_op_inputs`) where an Ascend op's attributes or inputs have no ge meaning, and
/// `acl::CallError` ACL_ERROR_FORMAT_NOT_MATCH for an NHWC window op,
/// ACL_ERROR_OP_OUTPUT_NOT_MATCH for outputs ge does not give.
[[nodiscard]] GeCall translate(std::string_view op_type, std::vector<ge::OpTensor> inputs,
                               std::vector<ge::OpTensor> outputs, const ge::Attributes& attrs);

}  // namespace acl
