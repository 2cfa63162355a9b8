// The optimizers of ONNX's training domain (ai.onnx.preview.training): Adagrad, Momentum
// and Adam. Inputs: R (the learning rate, a float scalar), T (the step count, an i64
// scalar), then n tensors to optimize, their n gradients and their n state tensors per
// state (Adagrad: H; Momentum: V; Adam: V then H). Outputs: the n new tensors, then the
// n new states of each kind, each of its tensor's shape.
#include "common.hpp"

namespace ge::ops {

namespace {

// The outputs of an optimizer over `groups` inputs per optimized tensor (X, G, states).
std::vector<TensorDesc> infer_optimizer(const InferContext& c, std::size_t groups) {
  for (std::size_t i = 0; i < 2; ++i) require_rank(c, i, 0, 0);
  const std::size_t given = c.input_count() - 2;
  if (given == 0 || given % groups != 0)
    c.fail(Errc::bad_op_inputs, "has " + std::to_string(given) + " input(s) after R and T; expected " +
                                    std::to_string(groups) + " per optimized tensor (X, G and its states)");
  const std::size_t n = given / groups;
  // Each optimized tensor's shape, merged with its gradient's and its states'.
  std::vector<Shape> shapes;
  for (std::size_t k = 0; k < n; ++k) {
    Shape s = c.shape(2 + k);
    for (std::size_t g = 1; g < groups; ++g) {
      const std::size_t i = 2 + g * n + k;
      if (!compatible(s, c.shape(i)))
        c.fail(Errc::bad_op_inputs, c.input_name(i) + " has shape [" + c.shape(i).to_string() + "]; expected X's [" +
                                        c.shape(2 + k).to_string() + "]");
      s = merge(s, c.shape(i));
    }
    shapes.push_back(std::move(s));
  }
  std::vector<TensorDesc> out;
  for (std::size_t g = 0; g < groups; ++g)
    if (g != 1)  // the gradients have no output
      for (std::size_t k = 0; k < n; ++k) out.push_back({c.input(2 + k).dtype, shapes[k]});
  return out;
}

OpSchema optimizer(std::string name, std::string doc, std::size_t groups, std::vector<AttrSpec> attrs) {
  return schema(std::move(name), std::move(doc), {arg("R", "T1"), arg("T", "i64"), many("inputs", "T3")},
                {many("outputs", "T3")}, {{"T1", {DataType::f32, DataType::f64}}, {"T3", {DataType::f32, DataType::f64}}},
                std::move(attrs), [groups](const InferContext& c) { return infer_optimizer(c, groups); });
}

}  // namespace

void add_optimizer_ops(OpRegistry& r) {
  const OpOrigin training = onnx_op(onnx_training_domain, 1);  // version 1 of the domain
  add_op(r, training,
         optimizer("Adagrad",
                   "training domain: H += G'^2, X -= R / (1 + T decay_factor) G' / (sqrt(H) + epsilon), "
                   "G' = G + norm_coefficient X",
                   3,
                   {attr("decay_factor", 0.0, float_at_least(0, false)), attr("epsilon", 1e-6, float_at_least(0, false)),
                    attr("norm_coefficient", 0.0, float_at_least(0, false))}));
  add_op(r, training,
         optimizer("Momentum",
                   "training domain: V = alpha V + beta G' (beta 1 at T = 0), X -= R V (standard) or "
                   "R (G' + alpha V) (nesterov), G' = G + norm_coefficient X",
                   3,
                   {attr_req("alpha", AttrKind::floating), attr_req("beta", AttrKind::floating),
                    attr_req("mode", AttrKind::string, one_of({"standard", "nesterov"})),
                    attr_req("norm_coefficient", AttrKind::floating, float_at_least(0, false))}));
  add_op(r, training,
         optimizer("Adam",
                   "training domain: V = alpha V + (1 - alpha) G', H = beta H + (1 - beta) G'^2, X -= R' V / "
                   "(sqrt(H) + epsilon) then X *= 1 - norm_coefficient_post, R' bias-corrected for T > 0",
                   4,
                   {attr("alpha", 0.9, float_at_least(0, false)), attr("beta", 0.999, float_at_least(0, false)),
                    attr("epsilon", 1e-6, float_at_least(0, false)),
                    attr("norm_coefficient", 0.0, float_at_least(0, false)),
                    attr("norm_coefficient_post", 0.0, float_at_least(0, false))}));
}

}  // namespace ge::ops
