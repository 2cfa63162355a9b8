// InferContext, the generic checks of infer_outputs, and the shared inference helpers.
#include <algorithm>
#include <map>

#include "common.hpp"
#include "ge/ops/registry.hpp"
#include "ge/ops/schema.hpp"

namespace ge {

std::string TypeSet::to_string() const {
  std::string s;
  for (unsigned t = 1; t <= static_cast<unsigned>(DataType::boolean); ++t)
    if (contains(static_cast<DataType>(t))) s += (s.empty() ? "" : "|") + std::string(ge::to_string(static_cast<DataType>(t)));
  return s;
}

std::string EngineSet::to_string() const {
  if (has(Engine::vector) && has(Engine::host)) return "vector|host";
  if (has(Engine::host)) return "host";
  if (has(Engine::vector)) return "vector";
  return "none";
}

std::string OpOrigin::to_string() const {
  switch (kind) {
    case Kind::unset: return "unset";
    case Kind::internal: return "internal";
    case Kind::onnx: break;
  }
  return "onnx " + (domain.empty() ? std::string() : domain + " ") + std::to_string(since) +
         (until ? ".." + std::to_string(*until) : std::string());
}

OpOrigin onnx_op(std::int64_t since, std::optional<std::int64_t> until) {
  return {.kind = OpOrigin::Kind::onnx, .since = since, .until = until};
}

OpOrigin onnx_op(std::string_view domain, std::int64_t since) {
  return {.kind = OpOrigin::Kind::onnx, .domain = std::string(domain), .since = since};
}

OpOrigin internal_op() { return {.kind = OpOrigin::Kind::internal}; }

const Attribute& InferContext::attr(std::string_view name) const {
  const auto it = attrs_.find(name);
  if (it == attrs_.end()) fail(Errc::bad_attribute, "attribute '" + std::string(name) + "' is not set; expected a value");
  return it->second;
}

std::vector<std::int64_t> InferContext::ints(std::string_view name) const {
  const auto it = attrs_.find(name);
  if (it == attrs_.end()) return {};
  return it->second.as_ints();
}

void InferContext::fail(Errc code, const std::string& what) const {
  raise(code, "[ge.ops] [" + schema_.name + "] node '" + std::string(node_) + "': " + what);
}

std::string InferContext::input_name(std::size_t i) const {
  std::string n;
  if (!schema_.inputs.empty()) n = schema_.inputs[std::min(i, schema_.inputs.size() - 1)].name;
  return "input " + std::to_string(i) + (n.empty() ? "" : " (" + n + ")");
}

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      const auto lower = [](char ch) { return static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch); };
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (lower(a[i - 1]) == lower(b[j - 1]) ? 0u : 1u)});
      diag = up;
    }
  }
  return row[b.size()];
}

// Converts a value to the spec's kind where the meaning is clear; nullopt otherwise.
std::optional<Attribute> convert(const Attribute& a, AttrKind want) {
  if (a.kind() == want) return a;
  if (a.kind() == AttrKind::integer && want == AttrKind::floating) return Attribute(a.as_float());
  if (a.kind() == AttrKind::integer && want == AttrKind::boolean && (a.as_int() == 0 || a.as_int() == 1))
    return Attribute(a.as_int() == 1);
  if (a.kind() == AttrKind::boolean && want == AttrKind::integer) return Attribute(std::int64_t{a.as_bool() ? 1 : 0});
  if (a.kind() == AttrKind::integers && want == AttrKind::floats) {
    std::vector<double> v;
    for (std::int64_t x : a.as_ints()) v.push_back(static_cast<double>(x));
    return Attribute(std::move(v));
  }
  if (a.kind() == AttrKind::integers && a.as_ints().empty()) {
    if (want == AttrKind::strings) return Attribute(std::vector<std::string>{});
    if (want == AttrKind::booleans) return Attribute(std::vector<bool>{});
  }
  return std::nullopt;
}

}  // namespace

namespace detail {
std::string nearest_name(std::string_view name, const std::vector<std::string>& known) {
  std::string best;
  std::size_t best_d = std::string::npos;
  for (const std::string& k : known) {
    const std::size_t d = edit_distance(name, k);
    if (d < best_d) best_d = d, best = k;
  }
  if (best.empty() || best_d > std::max<std::size_t>(2, name.size() / 3)) return {};
  return best;
}
}  // namespace detail

Attributes OpSchema::with_defaults(const Attributes& given) const {
  Attributes out = given;
  for (const AttrSpec& a : attrs)
    if (a.default_value && out.find(a.name) == out.end()) out.emplace(a.name, *a.default_value);
  return out;
}

std::optional<Attribute> OpSchema::attr(const Attributes& given, std::string_view name) const {
  if (const auto it = given.find(name); it != given.end()) return it->second;
  for (const AttrSpec& a : attrs)
    if (a.name == name) return a.default_value;
  return std::nullopt;
}

namespace {

// Attributes: known names, kinds, checks; then required ones and defaults, into `resolved`.
void resolve_attrs(const OpSchema& schema, const Attributes& attrs, const InferContext& pre, Attributes& resolved) {
  std::vector<std::string> known;
  for (const AttrSpec& a : schema.attrs) known.push_back(a.name);
  for (const auto& [name, value] : attrs) {
    const auto spec = std::find_if(schema.attrs.begin(), schema.attrs.end(), [&n = name](const AttrSpec& a) { return a.name == n; });
    if (spec == schema.attrs.end()) {
      const std::string near = detail::nearest_name(name, known);
      pre.fail(Errc::bad_attribute, "unknown attribute '" + name + "'" +
                                        (near.empty() ? std::string() : "; did you mean '" + near + "'?") +
                                        (known.empty() ? std::string("; the op has no attributes") : ""));
    }
    auto v = convert(value, spec->kind);
    if (!v)
      pre.fail(Errc::bad_attribute, "attribute '" + name + "' is " + std::string(to_string(value.kind())) + " " +
                                        value.to_string() + "; expected " + std::string(to_string(spec->kind)));
    if (spec->check) {
      const std::string expected = spec->check(*v);
      if (!expected.empty())
        pre.fail(Errc::bad_attribute, "attribute '" + name + "' is " + v->to_string() + "; expected " + expected);
    }
    resolved.emplace(name, std::move(*v));
  }
  for (const AttrSpec& a : schema.attrs)
    if (a.required && resolved.find(a.name) == resolved.end())
      pre.fail(Errc::bad_attribute, "attribute '" + a.name + "' is required but not set");
  resolved = schema.with_defaults(resolved);

}

// Input count and presence.
void check_input_count(const OpSchema& schema, std::span<const TensorDesc> inputs, const InferContext& pre) {
  const bool variadic = !schema.inputs.empty() && schema.inputs.back().variadic;
  std::size_t required = 0;
  for (const ArgSpec& a : schema.inputs)
    if (!a.optional) ++required;
  std::string names;
  for (const ArgSpec& a : schema.inputs) names += (names.empty() ? "" : ", ") + a.name + (a.optional ? "?" : "") + (a.variadic ? "..." : "");
  if (inputs.size() < required)
    pre.fail(Errc::bad_op_inputs, "takes " + std::string(variadic ? "at least " : "") + std::to_string(required) +
                                      " input(s) (" + names + "); got " + std::to_string(inputs.size()));
  if (!variadic && inputs.size() > schema.inputs.size())
    pre.fail(Errc::bad_op_inputs, "takes at most " + std::to_string(schema.inputs.size()) + " input(s) (" + names +
                                      "); got " + std::to_string(inputs.size()));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const ArgSpec& spec = schema.inputs[std::min(i, schema.inputs.size() - 1)];
    if (!spec.optional && inputs[i].dtype == DataType::undefined)
      pre.fail(Errc::bad_op_inputs, pre.input_name(i) + " is required but omitted");
  }

}

// Data types, per type variable.
void check_input_types(const OpSchema& schema, std::span<const TensorDesc> inputs, const InferContext& pre) {
  std::map<std::string, std::size_t, std::less<>> bound;  // type variable -> first input with it
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype == DataType::undefined) continue;
    const ArgSpec& spec = schema.inputs[std::min(i, schema.inputs.size() - 1)];
    const DataType t = inputs[i].dtype;
    const auto c = std::find_if(schema.types.begin(), schema.types.end(),
                                [&](const TypeConstraint& tc) { return tc.name == spec.type; });
    if (c == schema.types.end()) {
      const DataType want = parse_data_type(spec.type);
      if (t != want)
        pre.fail(Errc::type_mismatch, pre.input_name(i) + " is " + std::string(to_string(t)) + "; expected " +
                                          std::string(to_string(want)));
      continue;
    }
    if (!c->allowed.contains(t))
      pre.fail(Errc::type_mismatch, pre.input_name(i) + " is " + std::string(to_string(t)) + "; expected one of " +
                                        c->allowed.to_string());
    if (spec.heterogeneous) continue;
    const auto [it, fresh] = bound.emplace(spec.type, i);
    if (!fresh && inputs[it->second].dtype != t)
      pre.fail(Errc::type_mismatch, pre.input_name(i) + " is " + std::string(to_string(t)) + " but " +
                                        pre.input_name(it->second) + " is " +
                                        std::string(to_string(inputs[it->second].dtype)) + "; expected one type " +
                                        spec.type + " for both");
  }

}

// The number of outputs asked for (0: the required ones, or all of a variadic op's), checked
// against the `given` ones the rule made.
std::size_t outputs_wanted(const OpSchema& schema, std::size_t num_outputs, std::size_t given, const InferContext& pre) {
  const bool variadic_out = !schema.outputs.empty() && schema.outputs.back().variadic;
  std::size_t want = num_outputs;
  if (want == 0) {
    if (variadic_out) {
      want = given;
    } else {
      for (const ArgSpec& a : schema.outputs)
        if (!a.optional) ++want;
    }
  }
  if (want > given)
    pre.fail(Errc::bad_op_inputs, "asks for " + std::to_string(want) + " output(s); the op gives " +
                                      std::to_string(given) + " here");
  // Only trailing optional outputs may be left out (a kernel writes every required one).
  std::size_t required_out = 0;
  for (const ArgSpec& a : schema.outputs)
    if (!a.optional && !a.variadic) ++required_out;
  if (want < required_out)
    pre.fail(Errc::bad_op_inputs, "asks for " + std::to_string(want) + " output(s); the op has " +
                                      std::to_string(required_out) + " required ones");
  return want;
}

}  // namespace

std::vector<TensorDesc> infer_outputs(const OpSchema& schema, std::string_view node, std::span<const TensorDesc> inputs,
                                      std::span<const Tensor* const> constants, const Attributes& attrs,
                                      std::size_t num_outputs) {
  Attributes resolved;
  const InferContext pre(schema, node, inputs, constants, resolved, num_outputs);
  resolve_attrs(schema, attrs, pre, resolved);
  check_input_count(schema, inputs, pre);
  check_input_types(schema, inputs, pre);
  std::vector<TensorDesc> out;
  try {
    out = schema.infer(pre);
  } catch (const Error& e) {
    // An extent the shape algebra computed left int64: name the node it happened at.
    if (e.code() != Errc::int_overflow || std::string_view(e.what()).starts_with("[ge.ops]")) throw;
    pre.fail(Errc::int_overflow, e.what());
  }
  out.resize(outputs_wanted(schema, num_outputs, out.size(), pre));
  return out;
}

// ---- helpers of src/ops/common.hpp ---------------------------------------------------

namespace ops {

Check one_of(std::vector<std::string> allowed) {
  return [allowed = std::move(allowed)](const Attribute& a) -> std::string {
    if (std::find(allowed.begin(), allowed.end(), a.as_string()) != allowed.end()) return {};
    std::string s = "one of ";
    for (std::size_t i = 0; i < allowed.size(); ++i) s += (i ? ", " : "") + allowed[i];
    return s;
  };
}
Check int_at_least(std::int64_t lo) {
  return [lo](const Attribute& a) -> std::string {
    return a.as_int() >= lo ? std::string() : "a value >= " + std::to_string(lo);
  };
}
Check int_in(std::int64_t lo, std::int64_t hi) {
  return [lo, hi](const Attribute& a) -> std::string {
    return a.as_int() >= lo && a.as_int() <= hi ? std::string()
                                                 : "a value in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  };
}
Check ints_at_least(std::int64_t lo) {
  return [lo](const Attribute& a) -> std::string {
    for (std::int64_t x : a.as_ints())
      if (x < lo || x > max_attr) return "values in [" + std::to_string(lo) + ", 2^31]";
    return {};
  };
}
Check float_at_least(double lo, bool strict) {
  return [lo, strict](const Attribute& a) -> std::string {
    const double v = a.as_float();
    if (strict ? v > lo : v >= lo) return {};
    return std::string(strict ? "a value > " : "a value >= ") + std::to_string(lo);
  };
}

OpSchema schema(std::string name, std::string doc, std::vector<ArgSpec> in, std::vector<ArgSpec> out,
                std::vector<TypeConstraint> types, std::vector<AttrSpec> attrs, InferFn f) {
  OpSchema s;
  s.name = std::move(name);
  s.doc = std::move(doc);
  s.inputs = std::move(in);
  s.outputs = std::move(out);
  s.types = std::move(types);
  s.attrs = std::move(attrs);
  s.infer = std::move(f);
  return s;
}


std::int64_t norm_axis(const InferContext& c, std::int64_t axis, std::int64_t rank, const std::string& what) {
  if (axis < -rank || axis >= rank)
    c.fail(Errc::bad_attribute, what + " " + std::to_string(axis) + " is outside [" + std::to_string(-rank) + ", " +
                                    std::to_string(rank - 1) + "] for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

Dim merge_dims(const InferContext& c, const Dim& a, const Dim& b, const std::string& what) {
  if (!compatible(a, b))
    c.fail(Errc::bad_op_inputs, what + ": '" + a.to_string() + "' vs '" + b.to_string() + "'; expected equal dims");
  return merge(a, b);
}

Shape broadcast_shapes(const InferContext& c, const Shape& a, const Shape& b) {
  try {
    return broadcast(a, b);
  } catch (const Error& e) {
    c.fail(Errc::incompatible_shapes, "inputs do not broadcast: " + std::string(e.what()));
  }
}

Shape unknown_dims(std::size_t rank) {
  if (rank > static_cast<std::size_t>(max_rank))
    raise(Errc::bad_op_inputs, "[ge.ops] an inferred rank of " + std::to_string(rank) + " is above the limit of " +
                                   std::to_string(max_rank));
  return Shape(std::vector<Dim>(rank, Dim::unknown()));
}

void require_rank(const InferContext& c, std::size_t i, std::size_t lo, std::size_t hi) {
  const Shape& s = c.shape(i);
  if (!s.rank_known()) return;
  const std::size_t r = s.rank();
  if (r >= lo && r <= hi) return;
  std::string want = lo == hi ? "rank " + std::to_string(lo)
                     : hi == static_cast<std::size_t>(-1) ? "rank >= " + std::to_string(lo)
                                                          : "rank " + std::to_string(lo) + " to " + std::to_string(hi);
  c.fail(Errc::bad_op_inputs, c.input_name(i) + " has shape [" + s.to_string() + "] of rank " + std::to_string(r) +
                                  "; expected " + want);
}

std::optional<std::vector<std::int64_t>> const_ints(const InferContext& c, std::size_t i) {
  const Tensor* t = c.has_input(i) ? c.constant(i) : nullptr;
  if (t == nullptr) return std::nullopt;
  return t->to_int64s();
}

std::optional<std::int64_t> static_length(const InferContext& c, std::size_t i) {
  const Shape& s = c.shape(i);
  if (!s.rank_known()) return std::nullopt;
  if (s.rank() == 0) return 1;
  if (s.rank() == 1 && s[0].is_static()) {
    // The length becomes a rank or a count of axes: refuse sizes no tensor can have
    // before anything allocates for them.
    if (s[0].lo() > max_rank)
      c.fail(Errc::bad_op_inputs, c.input_name(i) + " has " + std::to_string(s[0].lo()) +
                                      " elements; a shape or axes list longer than " + std::to_string(max_rank) +
                                      " is not supported");
    return s[0].lo();
  }
  return std::nullopt;
}

std::string ints_text(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace ops
}  // namespace ge
