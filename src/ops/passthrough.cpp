// Ops whose inference form passes the data through: Dropout (the identity outside
// training; its mask all true) and CastLike (a Cast to the second input's type).
#include "common.hpp"

namespace ge::ops {

namespace {

OpSchema dropout() {
  OpSchema s = schema(
      "Dropout",
      "output = data outside training (training_mode false, or a ratio of 0); the optional mask is all true. "
      "Training with a ratio above 0 has no kernel (it is random)",
      {arg("data", "T"), opt("ratio", "T1"), opt("training_mode", "bool")}, {arg("output", "T"), opt("mask", "bool")},
      {{"T", TypeSet::floats()}, {"T1", TypeSet::floats()}},
      {attr_opt("seed", AttrKind::integer), attr_opt("ratio", AttrKind::floating)}, [](const InferContext& c) {
        for (std::size_t i = 1; i < 3; ++i)
          if (c.has_input(i) && c.shape(i).rank_known() && c.shape(i).rank() != 0)
            c.fail(Errc::bad_op_inputs, c.input_name(i) + " has shape [" + c.shape(i).to_string() + "]; expected a scalar");
        if (c.has("ratio") && (c.f("ratio") < 0 || c.f("ratio") >= 1))
          c.fail(Errc::bad_attribute, "attribute 'ratio' is " + std::to_string(c.f("ratio")) + "; expected [0, 1)");
        return std::vector<TensorDesc>{c.input(0), {DataType::boolean, c.shape(0)}};
      });
  s.in_place = {{0, 0}};
  return s;
}

OpSchema cast_like() {
  return schema("CastLike", "output = input converted to the data type of target_type (whose data is not read)",
                {arg("input", "T1"), arg("target_type", "T2")}, {arg("output", "T2")},
                {{"T1", TypeSet::all()}, {"T2", TypeSet::all()}}, {}, [](const InferContext& c) {
                  return std::vector<TensorDesc>{{c.input(1).dtype, c.shape(0)}};
                });
}

}  // namespace

void add_passthrough_ops(OpRegistry& r) {
  add_op(r, onnx_op(13), dropout());
  add_op(r, onnx_op(15), cast_like());
}

}  // namespace ge::ops
