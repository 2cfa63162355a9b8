#pragma once
// Ascend IR op names onto ge's ops (docs/acl.md has the table): the translation of one
// single-op call, done the same way at compile, execution, handle creation and shape
// inference, so that a call finds what an equal call compiled.

#include <cstddef>
#include <cstdint>
#include <span>
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
  /// Per ge input: empty, or how its data is the acl input's transposed: ge dim i is acl
  /// dim perm[i] (an NHWC image or an HWCN filter read as ge's NCHW / OIHW). Constant
  /// inputs are transposed already; `run` transposes the buffers of the others.
  std::vector<std::vector<std::int64_t>> input_perms;
  /// Per ge input: empty, or its dims regrouped after the permutation (the same bytes):
  /// ge dim i is the product of the dims whose bits mask i sets, 1 for mask 0
  /// (`{0b11, 0, 0b100, 0b1000}`: [C, K, h, w] as [C*K, 1, h, w]; `{1, 0, 0}`: [C] as [C, 1, 1]).
  std::vector<std::vector<std::uint64_t>> input_regroups;
  /// Per output: empty, or how the acl output is ge's transposed: acl dim i is ge dim
  /// perm[i] (ge's NCHW result written out as NHWC).
  std::vector<std::vector<std::int64_t>> output_perms;

  /// The permutation of ge input `j` (empty: none).
  [[nodiscard]] std::span<const std::int64_t> input_perm(std::size_t j) const noexcept {
    return j < input_perms.size() ? std::span<const std::int64_t>(input_perms[j]) : std::span<const std::int64_t>();
  }
  /// The regrouping of ge input `j` (empty: none).
  [[nodiscard]] std::span<const std::uint64_t> input_regroup(std::size_t j) const noexcept {
    return j < input_regroups.size() ? std::span<const std::uint64_t>(input_regroups[j]) : std::span<const std::uint64_t>();
  }
  /// The permutation of output `o` (empty: none).
  [[nodiscard]] std::span<const std::int64_t> output_perm(std::size_t o) const noexcept {
    return o < output_perms.size() ? std::span<const std::int64_t>(output_perms[o]) : std::span<const std::int64_t>();
  }
};

/// Translates a call of `op_type` (an Ascend IR name, or any other name as itself) with
/// the acl inputs, outputs and attributes; `input_formats` are the acl inputs' aclFormat
/// values (a filter's HWCN, which ge's formats fold into ND). Throws `ge::Error`
/// (`bad_attribute`, `bad_op_inputs`) where an Ascend op's attributes or inputs have no
/// ge meaning, and `acl::CallError` ACL_ERROR_FORMAT_NOT_MATCH for a layout it cannot
/// read (data_format against x's format, a filter format that is none of Conv2D's or
/// DepthwiseConv2D's, an ONNX image op on an NHWC description),
/// ACL_ERROR_OP_OUTPUT_NOT_MATCH for outputs ge does not give.
[[nodiscard]] GeCall translate(std::string_view op_type, std::vector<ge::OpTensor> inputs,
                               std::vector<ge::OpTensor> outputs, const ge::Attributes& attrs,
                               std::span<const int> input_formats = {});

/// `dims` permuted: result[i] = dims[perm[i]].
[[nodiscard]] std::vector<std::int64_t> permuted(std::span<const std::int64_t> dims, std::span<const std::int64_t> perm);

/// `dims` regrouped by `masks` (see `GeCall::input_regroups`).
[[nodiscard]] std::vector<std::int64_t> regrouped(std::span<const std::int64_t> dims, std::span<const std::uint64_t> masks);

/// Copies the dense tensor of `dims` (elements of `element_size` bytes) at `from` to `to`
/// transposed by `perm`: `to` has dims `permuted(dims, perm)`.
void transpose(const void* from, void* to, std::span<const std::int64_t> dims, std::span<const std::int64_t> perm,
               std::size_t element_size);

}  // namespace acl
