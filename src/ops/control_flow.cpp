// Control flow: If (one of two subgraphs), Loop (a body run while a count and a condition
// allow, carrying values between iterations and stacking scan outputs) and Scan (a body
// run over slices of its scan inputs). Semantics of ONNX's ops; the subgraphs are graph
// attributes. ge makes every outer value a subgraph reads an explicit input: If's inputs
// after `cond` are all such values; Loop and Scan take them last, `captured` of them.
#include <algorithm>
#include <optional>

#include "common.hpp"
#include "ops/subgraph.hpp"

namespace ge::ops {

namespace {

std::string where(const InferContext& c, std::string_view attr) {
  return std::string(attr) + " of node '" + std::string(c.node()) + "'";
}

// Inputs [from, to) of the node, as descriptions and constants.
struct Slice {
  std::vector<TensorDesc> descs;
  std::vector<const Tensor*> constants;
};
Slice inputs_of(const InferContext& c, std::size_t from, std::size_t to) {
  Slice s;
  for (std::size_t i = from; i < to; ++i) {
    s.descs.push_back(c.input(i));
    s.constants.push_back(c.constant(i));
  }
  return s;
}

// The value of a one-element constant input, when it has one.
std::optional<double> scalar_constant(const InferContext& c, std::size_t i) {
  const Tensor* t = c.constant(i);
  if (t == nullptr || !t->has_data() || t->element_count() != 1) return std::nullopt;
  return t->to_doubles().at(0);
}

void require_one_element(const InferContext& c, std::size_t i, const char* what) {
  if (!c.has_input(i)) return;
  const Shape& s = c.shape(i);
  if (s.rank_known() && !element_count(s).contains(1))
    c.fail(Errc::bad_op_inputs, "input " + std::to_string(i) + " (" + what + ") has shape [" + s.to_string() +
                                    "]; expected one element");
}

std::vector<TensorDesc> infer_if(const InferContext& c) {
  require_one_element(c, 0, "cond");
  const Slice captured = inputs_of(c, 1, c.input_count());
  const std::optional<double> known = scalar_constant(c, 0);
  const auto branch = [&](const char* name) {
    return detail::infer_subgraph(c.attr(name).as_graph(), captured.descs, captured.constants, where(c, name));
  };
  if (known) return branch(*known != 0 ? "then_branch" : "else_branch");
  std::vector<TensorDesc> a = branch("then_branch");
  const std::vector<TensorDesc> b = branch("else_branch");
  if (a.size() != b.size())
    c.fail(Errc::bad_model, "then_branch gives " + std::to_string(a.size()) + " output(s) and else_branch " +
                                std::to_string(b.size()) + "; expected the same count");
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (a[k].dtype != b[k].dtype)
      c.fail(Errc::type_mismatch, "output " + std::to_string(k) + " is " + std::string(to_string(a[k].dtype)) +
                                      " in then_branch and " + std::string(to_string(b[k].dtype)) +
                                      " in else_branch; expected one type");
    a[k].shape = hull(a[k].shape, b[k].shape);
  }
  return a;
}

// A shape that takes `in` and `out`: their hull the first time, unknown dims (or rank)
// where it still grows after that, so that the fixed point comes in three rounds.
Shape widen(const Shape& in, const Shape& out, bool first) {
  const Shape h = hull(in, out);
  if (first || h == in || !h.rank_known()) return h;
  std::vector<Dim> dims = h.dims();
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (!(dims[d] == in.dims()[d])) dims[d] = Dim::unknown();
  return Shape(std::move(dims));
}

// The descriptions of the carried values the body keeps (`first` inputs of `ins` from
// `at`, the body's outputs from `out_at`), widened until the body gives what it takes.
// Returns the body's last outputs.
std::vector<TensorDesc> carried_fixed_point(const InferContext& c, const Graph& body, std::vector<TensorDesc>& ins,
                                            const std::vector<const Tensor*>& constants, std::size_t at,
                                            std::size_t out_at, std::size_t n, std::size_t min_outputs) {
  for (int round = 0;; ++round) {
    std::vector<TensorDesc> out = detail::infer_subgraph(body, ins, constants, where(c, "body"));
    if (out.size() < min_outputs)
      c.fail(Errc::bad_model, "body gives " + std::to_string(out.size()) + " output(s); expected at least " +
                                  std::to_string(min_outputs));
    bool changed = false;
    for (std::size_t k = 0; k < n; ++k) {
      TensorDesc& in = ins[at + k];
      const TensorDesc& o = out[out_at + k];
      if (o.dtype != in.dtype)
        c.fail(Errc::type_mismatch, "body takes carried value " + std::to_string(k) + " as " +
                                        std::string(to_string(in.dtype)) + " and gives it back as " +
                                        std::string(to_string(o.dtype)) + "; a carried value keeps its type");
      const Shape w = round >= 2 ? Shape::unknown_rank() : widen(in.shape, o.shape, round == 0);
      if (w == in.shape || (round >= 2 && hull(in.shape, o.shape) == in.shape)) continue;
      in.shape = w;
      changed = true;
    }
    if (!changed) return out;
  }
}

// The dims of a per-iteration value stacked `count` times at `axis`.
Shape stacked(const InferContext& c, const Shape& each, Dim count, std::int64_t axis) {
  if (!each.rank_known()) return Shape::unknown_rank();
  std::vector<Dim> dims = each.dims();
  const std::int64_t a = norm_axis(c, axis, static_cast<std::int64_t>(dims.size()) + 1, "scan output axis");
  dims.insert(dims.begin() + a, count);
  return Shape(std::move(dims));
}

std::vector<TensorDesc> infer_loop(const InferContext& c) {
  const auto captured = static_cast<std::size_t>(c.i("captured"));
  if (c.input_count() < 2 + captured)
    c.fail(Errc::bad_op_inputs, "has " + std::to_string(c.input_count()) + " inputs for " + std::to_string(captured) +
                                    " captured values; expected M, cond, the carried values, then those");
  require_one_element(c, 0, "M");
  require_one_element(c, 1, "cond");
  const std::size_t n = c.input_count() - 2 - captured;
  std::vector<TensorDesc> ins{{DataType::i64, Shape{}}, {DataType::boolean, Shape{}}};
  std::vector<const Tensor*> constants(2 + n, nullptr);
  for (std::size_t k = 0; k < n + captured; ++k) {
    ins.push_back(c.input(2 + k));
    if (k >= n) constants.push_back(c.constant(2 + k));
  }
  const Graph& body = c.attr("body").as_graph();
  const std::vector<TensorDesc> out = carried_fixed_point(c, body, ins, constants, 2, 1, n, 1 + n);
  if (out[0].dtype != DataType::boolean)
    c.fail(Errc::type_mismatch, "body gives its condition as " + std::string(to_string(out[0].dtype)) + "; expected bool");
  Dim trips = Dim::unknown();
  if (const auto m = scalar_constant(c, 0); m && c.has_input(0)) {
    const auto hi = static_cast<std::int64_t>(std::clamp(*m, 0.0, static_cast<double>(huge)));
    trips = c.has_input(1) ? Dim::interval(0, hi) : Dim(hi);
  }
  std::vector<TensorDesc> result(ins.begin() + 2, ins.begin() + 2 + static_cast<std::ptrdiff_t>(n));
  for (std::size_t k = 1 + n; k < out.size(); ++k) result.push_back({out[k].dtype, stacked(c, out[k].shape, trips, 0)});
  return result;
}

std::vector<std::int64_t> axes_or_zero(const InferContext& c, std::string_view name, std::size_t count) {
  std::vector<std::int64_t> v = c.ints(name);
  if (v.empty()) v.assign(count, 0);
  if (v.size() != count)
    c.fail(Errc::bad_attribute, "attribute '" + std::string(name) + "' has " + std::to_string(v.size()) +
                                    " value(s); expected " + std::to_string(count));
  return v;
}

std::vector<TensorDesc> infer_scan(const InferContext& c) {
  const auto captured = static_cast<std::size_t>(c.i("captured"));
  const auto m = static_cast<std::size_t>(c.i("num_scan_inputs"));
  if (c.input_count() < m + captured)
    c.fail(Errc::bad_op_inputs, "has " + std::to_string(c.input_count()) + " inputs; expected the states, " +
                                    std::to_string(m) + " scan input(s) and " + std::to_string(captured) +
                                    " captured value(s)");
  const std::size_t n = c.input_count() - m - captured;
  const std::vector<std::int64_t> in_axes = axes_or_zero(c, "scan_input_axes", m);
  std::vector<TensorDesc> ins;
  std::vector<const Tensor*> constants(n + m, nullptr);
  for (std::size_t k = 0; k < n; ++k) ins.push_back(c.input(k));
  Dim length = Dim::unknown();
  for (std::size_t k = 0; k < m; ++k) {
    const TensorDesc& x = c.input(n + k);
    if (!x.shape.rank_known()) {
      ins.push_back({x.dtype, Shape::unknown_rank()});
      continue;
    }
    std::vector<Dim> dims = x.shape.dims();
    if (dims.empty()) c.fail(Errc::bad_op_inputs, "scan input " + std::to_string(k) + " is a scalar; expected rank >= 1");
    const std::int64_t a = norm_axis(c, in_axes[k], static_cast<std::int64_t>(dims.size()), "scan_input_axes");
    length = merge_dims(c, length, dims[static_cast<std::size_t>(a)], "the scan inputs' sequence length");
    dims.erase(dims.begin() + a);
    ins.push_back({x.dtype, Shape(std::move(dims))});
  }
  for (std::size_t k = 0; k < captured; ++k) {
    ins.push_back(c.input(n + m + k));
    constants.push_back(c.constant(n + m + k));
  }
  const Graph& body = c.attr("body").as_graph();
  const std::vector<TensorDesc> out = carried_fixed_point(c, body, ins, constants, 0, 0, n, n);
  const std::vector<std::int64_t> out_axes = axes_or_zero(c, "scan_output_axes", out.size() - n);
  std::vector<TensorDesc> result(ins.begin(), ins.begin() + static_cast<std::ptrdiff_t>(n));
  for (std::size_t k = n; k < out.size(); ++k)
    result.push_back({out[k].dtype, stacked(c, out[k].shape, length, out_axes[k - n])});
  return result;
}

ArgSpec values(std::string name) {
  ArgSpec a = many(std::move(name), "V");
  a.heterogeneous = true;
  return a;
}

ArgSpec some_values(std::string name) {
  ArgSpec a = values(std::move(name));
  a.optional = true;
  return a;
}

}  // namespace

void add_control_flow_ops(OpRegistry& r) {
  const TypeConstraint any{"V", TypeSet::all()};
  OpSchema s = schema("If", "then_branch's outputs where cond is true, else else_branch's; the inputs after cond are "
                      "the outer values the branches read (each branch takes them all, in order)",
                      {arg("cond", "bool"), some_values("captured")}, {values("outputs")}, {any},
                      {attr_req("then_branch", AttrKind::graph), attr_req("else_branch", AttrKind::graph)}, infer_if);
  s.engines = engines(Engine::vector, Engine::host);
  add_op(r, onnx_op(13), std::move(s));
  s = schema("Loop", "runs body while the iteration count is below M (when given) and cond holds (when given): body "
             "takes (iteration, cond, carried values..., captured values...) and gives (cond, carried values..., scan "
             "outputs...); the outputs are the last carried values and each scan output stacked over the iterations",
             {opt("M", "i64"), opt("cond", "bool"), some_values("values")}, {values("outputs")}, {any},
             {attr_req("body", AttrKind::graph),
              attr("captured", 0, int_at_least(0))},
             infer_loop);
  s.engines = engines(Engine::vector, Engine::host);
  add_op(r, onnx_op(13), std::move(s));
  s = schema("Scan", "runs body once per slice of the scan inputs along their axes, carrying the states: body takes "
             "(states..., slices..., captured values...) and gives (states..., scan outputs...)",
             {values("values")}, {values("outputs")}, {any},
             {attr_req("body", AttrKind::graph), attr_req("num_scan_inputs", AttrKind::integer, int_at_least(1)),
              attr_opt("scan_input_axes", AttrKind::integers), attr_opt("scan_input_directions", AttrKind::integers),
              attr_opt("scan_output_axes", AttrKind::integers), attr_opt("scan_output_directions", AttrKind::integers),
              attr("captured", 0, int_at_least(0))},
             infer_scan);
  s.engines = engines(Engine::vector, Engine::host);
  add_op(r, onnx_op(13), std::move(s));
}

}  // namespace ge::ops

namespace ge::detail {

namespace {
SubgraphInference& installed() {
  static SubgraphInference rule = nullptr;
  return rule;
}
}  // namespace

void set_subgraph_inference(SubgraphInference rule) noexcept { installed() = rule; }

std::vector<TensorDesc> infer_subgraph(const Graph& g, std::span<const TensorDesc> inputs,
                                       std::span<const Tensor* const> constants, std::string_view where) {
  if (installed() == nullptr) raise(Errc::internal, "[ge.ops] no rule infers subgraphs (" + std::string(where) + ")");
  return installed()(g, inputs, constants, where);
}

}  // namespace ge::detail
