#pragma once
// Shared by the tests of tests/ops: run one op's checked inference on descriptions
// written as text, and check its errors by code and key words.

#include <doctest/doctest.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ge/ops/registry.hpp"
#include "support/expect_error.hpp"

namespace ge_test {

using ge::test::expect_error;

/// One input: a description, and its data when it is a constant.
struct In {
  ge::TensorDesc desc;
  std::optional<ge::Tensor> value;
};

/// A non-constant input: `t("f32", "1~8,3,224,224")`.
inline In t(std::string_view dtype, std::string_view shape) {
  return {{ge::parse_data_type(dtype), ge::Shape::parse(shape)}, std::nullopt};
}
/// A constant input.
inline In c(ge::Tensor tensor) { return {tensor.desc(), tensor}; }
/// A constant 1-D i64 input.
inline In ints(std::vector<std::int64_t> v) {
  const auto n = static_cast<std::int64_t>(v.size());
  return c(ge::Tensor::from<std::int64_t>({n}, v));
}
/// An omitted optional input.
inline In none() { return {}; }

/// The outputs of `op` on the inputs, as node `n`.
inline std::vector<ge::TensorDesc> infer(std::string_view op, const std::vector<In>& ins, const ge::Attributes& attrs = {},
                                         std::size_t num_outputs = 0) {
  std::vector<ge::TensorDesc> descs;
  std::vector<const ge::Tensor*> consts;
  for (const In& i : ins) {
    descs.push_back(i.desc);
    consts.push_back(i.value ? &*i.value : nullptr);
  }
  return ge::infer_outputs(ge::OpRegistry::global().find(op), "n", descs, consts, attrs, num_outputs);
}

/// The text of output 0's shape.
inline std::string shape0(std::string_view op, const std::vector<In>& ins, const ge::Attributes& attrs = {}) {
  return infer(op, ins, attrs).at(0).shape.to_string();
}

/// Checks that inference of `op` throws `code` with the node name and the words.
template <class... Words>
void check_infer_error(std::string_view op, const std::vector<In>& ins, const ge::Attributes& attrs, ge::Errc code,
                       const Words&... words) {
  expect_error([&] { (void)infer(op, ins, attrs); }, code, "node 'n'", "[ge.ops]", words...);
}

}  // namespace ge_test
