#include "ge/graph/builder.hpp"

#include <cmath>

#include "ge/ops/registry.hpp"

namespace ge {

namespace {
[[noreturn]] void fail(Errc code, const std::string& what) { raise(code, "[ge.graph] " + what); }

std::string snake(std::string_view op) {
  if (op == "MatMul") return "matmul";
  if (op == "ArgMax") return "argmax";
  if (op == "TopK") return "topk";
  if (op == "NonZero") return "nonzero";
  if (op == "Conv") return "conv";
  std::string s;
  for (std::size_t i = 0; i < op.size(); ++i) {
    const char ch = op[i];
    if (ch >= 'A' && ch <= 'Z') {
      if (i > 0 && !(op[i - 1] >= 'A' && op[i - 1] <= 'Z')) s += '_';
      s += static_cast<char>(ch - 'A' + 'a');
    } else {
      s += ch;
    }
  }
  return s.empty() ? std::string("node") : s;
}
}  // namespace

// ---- GraphBuilder -------------------------------------------------------------------

GraphBuilder::GraphBuilder(const OpRegistry* registry)
    : registry_(registry != nullptr ? registry : &OpRegistry::global()) {}

Value GraphBuilder::input(std::string_view name, DataType dtype, std::string_view shape, Format format) {
  return input(name, dtype, Shape::parse(shape), format);
}

Value GraphBuilder::input(std::string_view name, DataType dtype, Shape shape, Format format) {
  return {this, graph_.add_input(std::string(name), dtype, std::move(shape), format)};
}

Value GraphBuilder::constant(std::string_view name, Tensor tensor) {
  return {this, graph_.add_constant(std::string(name), std::move(tensor))};
}

Value GraphBuilder::constant(Tensor tensor) { return constant(const_name(), std::move(tensor)); }

Value GraphBuilder::scalar(double value, DataType dtype) { return constant(Tensor::full(dtype, {}, value)); }

Value GraphBuilder::int64s(std::vector<std::int64_t> values) {
  const auto n = static_cast<std::int64_t>(values.size());
  return constant(Tensor::from<std::int64_t>({n}, values));
}

Value GraphBuilder::full(std::string_view name, std::vector<std::int64_t> shape, double value) {
  return constant(name, Tensor::full(DataType::f32, std::move(shape), value));
}

Value GraphBuilder::random_weights(std::string_view name, std::vector<std::int64_t> shape, std::uint64_t seed) {
  double fan_in = 1;
  for (std::size_t i = 1; i < shape.size(); ++i) fan_in *= static_cast<double>(shape[i]);
  const double bound = std::sqrt(6.0 / std::max(fan_in, 1.0));
  return constant(name, Tensor::random(DataType::f32, std::move(shape), seed, -bound, bound));
}

Value GraphBuilder::random_uniform(std::string_view name, std::vector<std::int64_t> shape, std::uint64_t seed,
                                   double lo, double hi) {
  return constant(name, Tensor::random(DataType::f32, std::move(shape), seed, lo, hi));
}

std::string GraphBuilder::const_name() {
  for (;;) {
    std::string n = scope_ + "const_" + std::to_string(const_counter_++);
    if (!graph_.find_value(n)) return n;
  }
}

std::string GraphBuilder::node_name(std::string_view type, std::string_view given) {
  if (!given.empty()) return std::string(given);
  const std::string prefix = scope_ + snake(type);
  std::size_t& k = counters_[prefix];
  for (;;) {
    std::string n = prefix + "_" + std::to_string(k++);
    if (!graph_.find_node(n) && !graph_.find_value(n) && !graph_.find_value(n + ":0")) return n;
  }
}

void GraphBuilder::check_handle(const Value& v, std::string_view what) const {
  if (v.valid() && &v.builder() != this)
    fail(Errc::invalid_argument, std::string(what) + " is value '" + v.name() +
                                     "' of another GraphBuilder; expected a value of this builder");
}

Value GraphBuilder::op(std::string_view type, const std::vector<Value>& inputs, Attributes attrs, std::string_view name) {
  return op_n(type, inputs, std::move(attrs), 0, name).front();
}

std::vector<Value> GraphBuilder::op_n(std::string_view type, const std::vector<Value>& inputs, Attributes attrs,
                                      std::size_t num_outputs, std::string_view name) {
  const OpSchema& schema = registry_->find(type);
  const std::string node = node_name(type, name);
  if (const auto k = graph_.find_node(node))
    fail(Errc::duplicate_name, "duplicate node name '" + node + "': node " + std::to_string(*k) + " (" +
                                   graph_.nodes()[*k].op + ") has it already; the new one is a " + schema.name);
  std::vector<TensorDesc> descs;
  std::vector<const Tensor*> consts;
  std::vector<ValueId> ids;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    check_handle(inputs[i], "input " + std::to_string(i) + " of node '" + node + "'");
    descs.push_back(inputs[i].valid() ? inputs[i].desc() : TensorDesc{});
    consts.push_back(inputs[i].valid() ? graph_.constant_of(inputs[i].id()) : nullptr);
    ids.push_back(inputs[i].valid() ? inputs[i].id() : no_value);
  }
  std::vector<TensorDesc> outs = infer_outputs(schema, node, descs, consts, attrs, num_outputs);
  // Every output name is free before anything is added, so that a failure leaves the
  // graph as it was.
  std::vector<std::string> names;
  for (std::size_t k = 0; k < outs.size(); ++k) {
    names.push_back(outs.size() == 1 ? node : node + ":" + std::to_string(k));
    if (const auto v = graph_.find_value(names.back()))
      fail(Errc::duplicate_name, "node '" + node + "' output " + std::to_string(k) + " would be named '" + names.back() +
                                     "', which already names another value; expected unique names");
  }
  std::vector<ValueId> out_ids;
  for (std::size_t k = 0; k < outs.size(); ++k) out_ids.push_back(graph_.declare_value(names[k], std::move(outs[k])));
  graph_.add_node(node, schema.name, std::move(ids), out_ids, std::move(attrs));
  std::vector<Value> result;
  for (ValueId id : out_ids) result.emplace_back(this, id);
  return result;
}

void GraphBuilder::output(Value v) {
  if (!v.valid()) fail(Errc::invalid_argument, "graph output is 'no value'; expected a value");
  check_handle(v, "graph output");
  graph_.add_output(v.id());
}

Graph GraphBuilder::build() const {
  Graph g = graph_;
  g.validate(registry_);
  return g;
}

// ---- Value --------------------------------------------------------------------------

GraphBuilder& Value::builder() const {
  if (!valid()) fail(Errc::invalid_argument, "use of 'no value' (a default-constructed ge::Value); expected a value");
  return *b_;
}
const TensorDesc& Value::desc() const { return builder().graph_.value(id_).desc; }
const std::string& Value::name() const { return builder().graph_.value(id_).name; }

namespace {
std::vector<std::int64_t> repeat(std::size_t n, std::int64_t v) { return std::vector<std::int64_t>(n, v); }
std::size_t spatial_of(const Shape& s) { return s.rank_known() && s.rank() >= 2 ? s.rank() - 2 : 2; }
// A pool's window attributes, the same on each of n axes.
Attributes pool_attrs(std::size_t n, const PoolOptions& o) {
  return {{"kernel_shape", repeat(n, o.kernel)}, {"strides", repeat(n, o.stride)}, {"pads", repeat(2 * n, o.pad)},
          {"ceil_mode", o.ceil_mode ? 1 : 0}};
}
}  // namespace

Value Value::unary(std::string_view op, std::string_view name, Attributes attrs) const {
  return builder().op(op, {*this}, std::move(attrs), name);
}

Value Value::conv2d(Value w, const ConvOptions& o) const { return conv2d(w, Value{}, o); }

Value Value::conv2d(Value w, Value bias, const ConvOptions& o) const {
  const std::size_t n = w.valid() ? spatial_of(w.shape()) : 2;
  Attributes a{{"strides", repeat(n, o.stride)}, {"dilations", repeat(n, o.dilation)}, {"group", o.group},
               {"auto_pad", o.auto_pad}};
  if (o.auto_pad == "NOTSET") a.emplace("pads", repeat(2 * n, o.pad));
  std::vector<Value> in{*this, w};
  if (bias.valid()) in.push_back(bias);
  return builder().op("Conv", in, std::move(a), o.name);
}

Value Value::batch_norm(Value scale, Value bias, Value mean, Value var, double epsilon, std::string_view name) const {
  return builder().op("BatchNormalization", {*this, scale, bias, mean, var}, {{"epsilon", epsilon}}, name);
}

Value Value::layer_norm(Value scale, Value bias, std::int64_t axis, double epsilon, std::string_view name) const {
  return builder().op("LayerNormalization", {*this, scale, bias}, {{"axis", axis}, {"epsilon", epsilon}}, name);
}

Value Value::max_pool(const PoolOptions& o) const {
  const std::size_t n = spatial_of(shape());
  return builder().op("MaxPool", {*this}, pool_attrs(n, o), o.name);
}

Value Value::avg_pool(const PoolOptions& o) const {
  const std::size_t n = spatial_of(shape());
  Attributes a = pool_attrs(n, o);
  a.emplace("count_include_pad", o.count_include_pad ? 1 : 0);
  return builder().op("AveragePool", {*this}, std::move(a), o.name);
}

Value Value::global_avg_pool(std::string_view name) const { return unary("GlobalAveragePool", name); }
Value Value::matmul(Value w, std::string_view name) const { return builder().op("MatMul", {*this, w}, {}, name); }
Value Value::gemm(Value w, Value c, const GemmOptions& o) const {
  std::vector<Value> in{*this, w};
  if (c.valid()) in.push_back(c);
  return builder().op("Gemm", in,
                      {{"alpha", o.alpha}, {"beta", o.beta}, {"transA", o.trans_a ? 1 : 0}, {"transB", o.trans_b ? 1 : 0}},
                      o.name);
}
Value Value::softmax(std::int64_t axis, std::string_view name) const { return unary("Softmax", name, {{"axis", axis}}); }
Value Value::log_softmax(std::int64_t axis, std::string_view name) const {
  return unary("LogSoftmax", name, {{"axis", axis}});
}

Value Value::relu(std::string_view name) const { return unary("Relu", name); }
Value Value::sigmoid(std::string_view name) const { return unary("Sigmoid", name); }
Value Value::tanh(std::string_view name) const { return unary("Tanh", name); }
Value Value::exp(std::string_view name) const { return unary("Exp", name); }
Value Value::log(std::string_view name) const { return unary("Log", name); }
Value Value::sqrt(std::string_view name) const { return unary("Sqrt", name); }
Value Value::neg(std::string_view name) const { return unary("Neg", name); }
Value Value::abs(std::string_view name) const { return unary("Abs", name); }
Value Value::erf(std::string_view name) const { return unary("Erf", name); }
Value Value::gelu(std::string_view approximate, std::string_view name) const {
  return unary("Gelu", name, {{"approximate", std::string(approximate)}});
}
Value Value::hard_swish(std::string_view name) const { return unary("HardSwish", name); }
Value Value::identity(std::string_view name) const { return unary("Identity", name); }
Value Value::leaky_relu(double alpha, std::string_view name) const { return unary("LeakyRelu", name, {{"alpha", alpha}}); }
Value Value::clip(double lo, double hi, std::string_view name) const {
  GraphBuilder& b = builder();
  return b.op("Clip", {*this, b.scalar(lo, dtype()), b.scalar(hi, dtype())}, {}, name);
}
Value Value::pow(Value exponent, std::string_view name) const { return builder().op("Pow", {*this, exponent}, {}, name); }
Value Value::equal(Value other, std::string_view name) const { return builder().op("Equal", {*this, other}, {}, name); }
Value Value::less(Value other, std::string_view name) const { return builder().op("Less", {*this, other}, {}, name); }
Value Value::greater(Value other, std::string_view name) const {
  return builder().op("Greater", {*this, other}, {}, name);
}
Value Value::cast(DataType to, std::string_view name) const {
  return unary("Cast", name, {{"to", std::string(ge::to_string(to))}});
}

Value Value::reshape(std::vector<std::int64_t> shape, std::string_view name) const {
  GraphBuilder& b = builder();
  return b.op("Reshape", {*this, b.int64s(std::move(shape))}, {}, name);
}
Value Value::flatten(std::int64_t axis, std::string_view name) const { return unary("Flatten", name, {{"axis", axis}}); }
Value Value::transpose(std::vector<std::int64_t> perm, std::string_view name) const {
  if (perm.empty()) return unary("Transpose", name);
  return unary("Transpose", name, {{"perm", std::move(perm)}});
}
Value Value::squeeze(std::vector<std::int64_t> axes, std::string_view name) const {
  GraphBuilder& b = builder();
  if (axes.empty()) return b.op("Squeeze", {*this}, {}, name);
  return b.op("Squeeze", {*this, b.int64s(std::move(axes))}, {}, name);
}
Value Value::unsqueeze(std::vector<std::int64_t> axes, std::string_view name) const {
  GraphBuilder& b = builder();
  return b.op("Unsqueeze", {*this, b.int64s(std::move(axes))}, {}, name);
}
Value Value::slice(std::vector<std::int64_t> starts, std::vector<std::int64_t> ends, std::vector<std::int64_t> axes,
                   std::vector<std::int64_t> steps, std::string_view name) const {
  GraphBuilder& b = builder();
  std::vector<Value> in{*this, b.int64s(std::move(starts)), b.int64s(std::move(ends))};
  if (!axes.empty() || !steps.empty()) in.push_back(axes.empty() ? Value{} : b.int64s(std::move(axes)));
  if (!steps.empty()) in.push_back(b.int64s(std::move(steps)));
  return b.op("Slice", in, {}, name);
}
Value Value::gather(Value indices, std::int64_t axis, std::string_view name) const {
  return builder().op("Gather", {*this, indices}, {{"axis", axis}}, name);
}
Value Value::expand(std::vector<std::int64_t> shape, std::string_view name) const {
  GraphBuilder& b = builder();
  return b.op("Expand", {*this, b.int64s(std::move(shape))}, {}, name);
}
Value Value::pad(std::vector<std::int64_t> pads, std::string_view mode, double value, std::string_view name) const {
  GraphBuilder& b = builder();
  return b.op("Pad", {*this, b.int64s(std::move(pads)), b.scalar(value, dtype())}, {{"mode", std::string(mode)}}, name);
}
Value Value::resize(std::vector<double> scales, std::string_view mode, std::string_view name) const {
  GraphBuilder& b = builder();
  std::vector<float> f(scales.begin(), scales.end());
  const Value s = b.constant(Tensor::from<float>({static_cast<std::int64_t>(f.size())}, f));
  return b.op("Resize", {*this, Value{}, s}, {{"mode", std::string(mode)}}, name);
}
std::vector<Value> Value::split(std::vector<std::int64_t> sizes, std::int64_t axis, std::string_view name) const {
  GraphBuilder& b = builder();
  const std::size_t n = sizes.size();
  return b.op_n("Split", {*this, b.int64s(std::move(sizes))}, {{"axis", axis}}, n, name);
}
Value Value::shape_of(std::string_view name) const { return unary("Shape", name); }

Value Value::reduce(std::string_view op, std::vector<std::int64_t> axes, bool keepdims, std::string_view name) const {
  return unary(op, name, {{"axes", std::move(axes)}, {"keepdims", keepdims ? 1 : 0}});
}
Value Value::reduce_mean(std::vector<std::int64_t> axes, bool keepdims, std::string_view name) const {
  return reduce("ReduceMean", std::move(axes), keepdims, name);
}
Value Value::reduce_sum(std::vector<std::int64_t> axes, bool keepdims, std::string_view name) const {
  return reduce("ReduceSum", std::move(axes), keepdims, name);
}
Value Value::reduce_max(std::vector<std::int64_t> axes, bool keepdims, std::string_view name) const {
  return reduce("ReduceMax", std::move(axes), keepdims, name);
}
Value Value::argmax(std::int64_t axis, bool keepdims, std::string_view name) const {
  return unary("ArgMax", name, {{"axis", axis}, {"keepdims", keepdims ? 1 : 0}});
}
std::vector<Value> Value::topk(std::int64_t k, std::int64_t axis, std::string_view name) const {
  GraphBuilder& b = builder();
  return b.op_n("TopK", {*this, b.int64s({k})}, {{"axis", axis}}, 2, name);
}
Value Value::nonzero(std::string_view name) const { return unary("NonZero", name); }

// ---- free functions -----------------------------------------------------------------

namespace {
Value binary(std::string_view op, Value a, Value b) { return a.builder().op(op, {a, b}); }
Value with_scalar(Value a, double v) { return a.builder().scalar(v, a.dtype()); }
}  // namespace

Value operator+(Value a, Value b) { return binary("Add", a, b); }
Value operator-(Value a, Value b) { return binary("Sub", a, b); }
Value operator*(Value a, Value b) { return binary("Mul", a, b); }
Value operator/(Value a, Value b) { return binary("Div", a, b); }
Value operator+(Value a, double b) { return binary("Add", a, with_scalar(a, b)); }
Value operator-(Value a, double b) { return binary("Sub", a, with_scalar(a, b)); }
Value operator*(Value a, double b) { return binary("Mul", a, with_scalar(a, b)); }
Value operator/(Value a, double b) { return binary("Div", a, with_scalar(a, b)); }
Value operator+(double a, Value b) { return binary("Add", with_scalar(b, a), b); }
Value operator-(double a, Value b) { return binary("Sub", with_scalar(b, a), b); }
Value operator*(double a, Value b) { return binary("Mul", with_scalar(b, a), b); }

Value concat(const std::vector<Value>& parts, std::int64_t axis, std::string_view name) {
  if (parts.empty() || !parts.front().valid())
    fail(Errc::invalid_argument, "concat of no values; expected at least one value");
  return parts.front().builder().op("Concat", parts, {{"axis", axis}}, name);
}

Value where(Value cond, Value x, Value y, std::string_view name) {
  return cond.builder().op("Where", {cond, x, y}, {}, name);
}

}  // namespace ge
