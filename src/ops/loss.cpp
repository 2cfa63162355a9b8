// The losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (input [N, C, d...],
// targets [N, d...], an optional weight per class, reduction none, sum or mean).
#include "common.hpp"

namespace ge::ops {

namespace {

// Checks input 0 [N, C, d...], input 1 [N, d...] and the optional weight [C]; returns the
// targets' shape (merged with the input's dims off C).
Shape loss_target_shape(const InferContext& c) {
  require_rank(c, 0, 2, static_cast<std::size_t>(-1));
  require_rank(c, 1, 1, static_cast<std::size_t>(-1));
  if (c.has_input(2)) require_rank(c, 2, 1, 1);
  const Shape& x = c.shape(0);
  const Shape& t = c.shape(1);
  if (!x.rank_known()) return t;
  std::vector<Dim> dims{x[0]};
  for (std::size_t d = 2; d < x.rank(); ++d) dims.push_back(x[d]);
  if (t.rank_known()) {
    if (t.rank() + 1 != x.rank())
      c.fail(Errc::bad_op_inputs, c.input_name(1) + " [" + t.to_string() + "] has rank " + std::to_string(t.rank()) +
                                      " for " + c.input_name(0) + " [" + x.to_string() +
                                      "]; expected one less than the input's");
    for (std::size_t d = 0; d < dims.size(); ++d)
      dims[d] = merge_dims(c, dims[d], t[d], c.input_name(1) + " dim " + std::to_string(d));
  }
  if (c.has_input(2) && c.shape(2).rank_known())
    (void)merge_dims(c, x[1], c.shape(2)[0], c.input_name(2) + " (one weight per class)");
  return Shape(std::move(dims));
}

std::vector<AttrSpec> loss_attrs() {
  return {attr("reduction", "mean", one_of({"none", "sum", "mean"})), attr_opt("ignore_index", AttrKind::integer)};
}

OpSchema nll_loss() {
  return schema("NegativeLogLikelihoodLoss",
                "loss[n, d...] = -input[n, target[n, d...], d...] * weight[target]; reduction none, sum or mean "
                "(the sum over the sum of the weights); targets equal to ignore_index count nothing",
                {arg("input", "T"), arg("target", "Tind"), opt("weight", "T")}, {arg("loss", "T")},
                {{"T", TypeSet::floats()}, {"Tind", TypeSet::indices()}}, loss_attrs(), [](const InferContext& c) {
                  const Shape t = loss_target_shape(c);
                  const bool none = c.s("reduction") == "none";
                  return std::vector<TensorDesc>{{c.input(0).dtype, none ? t : Shape{}}};
                });
}

OpSchema softmax_cross_entropy() {
  return schema("SoftmaxCrossEntropyLoss",
                "NegativeLogLikelihoodLoss of log_prob = LogSoftmax(scores) along axis 1; log_prob is the optional "
                "second output",
                {arg("scores", "T"), arg("labels", "Tind"), opt("weights", "T")},
                {arg("output", "T"), opt("log_prob", "T")}, {{"T", TypeSet::floats()}, {"Tind", TypeSet::indices()}},
                loss_attrs(), [](const InferContext& c) {
                  const Shape t = loss_target_shape(c);
                  const bool none = c.s("reduction") == "none";
                  const DataType dt = c.input(0).dtype;
                  return std::vector<TensorDesc>{{dt, none ? t : Shape{}}, {dt, c.shape(0)}};
                });
}

}  // namespace

void add_loss_ops(OpRegistry& r) {
  add_op(r, onnx_op(13), nll_loss());
  add_op(r, onnx_op(13), softmax_cross_entropy());
}

}  // namespace ge::ops
