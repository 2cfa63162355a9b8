#include "ge/ops/registry.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <shared_mutex>

#include "common.hpp"

namespace ge {

namespace detail {
std::string nearest_name(std::string_view name, const std::vector<std::string>& known);
}

struct OpRegistry::State {
  mutable std::shared_mutex mutex;
  std::map<std::string, std::unique_ptr<const OpSchema>, std::less<>> schemas;
};

OpRegistry::OpRegistry() : state_(std::make_unique<State>()) {}
OpRegistry::~OpRegistry() = default;

std::unique_ptr<OpRegistry> OpRegistry::with_builtin_ops() {
  auto r = std::make_unique<OpRegistry>();
  ops::add_elementwise_ops(*r);
  ops::add_elementwise_math_ops(*r);
  ops::add_nn_ops(*r);
  ops::add_shape_ops(*r);
  ops::add_reduce_ops(*r);
  ops::add_indexing_ops(*r);
  ops::add_rearrange_ops(*r);
  ops::add_loss_ops(*r);
  ops::add_passthrough_ops(*r);
  ops::add_one_hot_ops(*r);
  ops::add_nd_indexing_ops(*r);
  ops::add_selection_ops(*r);
  ops::add_host_ops(*r);
  ops::add_math_ops(*r);
  ops::add_fused_ops(*r);
  ops::add_recurrent_ops(*r);
  ops::add_optimizer_ops(*r);
  ops::add_nn_more_ops(*r);
  ops::add_spectral_ops(*r);
  ops::add_quantize_ops(*r);
  ops::add_detection_ops(*r);
  ops::add_control_flow_ops(*r);
  return r;
}

OpRegistry& OpRegistry::global() {
  static const std::unique_ptr<OpRegistry> registry = with_builtin_ops();
  return *registry;
}

namespace {
[[noreturn]] void malformed(const OpSchema& s, const std::string& what) {
  raise(Errc::invalid_argument, "[ge.ops] schema '" + s.name + "': " + what);
}

void check_args(const OpSchema& s, const std::vector<ArgSpec>& args, const char* kind) {
  bool seen_optional = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const ArgSpec& a = args[i];
    if (a.variadic && i + 1 != args.size()) malformed(s, std::string(kind) + " '" + a.name + "' is variadic but not last");
    if (!a.optional && seen_optional && !a.variadic)
      malformed(s, std::string(kind) + " '" + a.name + "' is required but follows an optional one");
    seen_optional = seen_optional || a.optional;
    const bool constraint = std::any_of(s.types.begin(), s.types.end(), [&](const TypeConstraint& t) { return t.name == a.type; });
    if (!constraint) {
      try {
        (void)parse_data_type(a.type);
      } catch (const Error&) {
        malformed(s, std::string(kind) + " '" + a.name + "' has type '" + a.type +
                         "', neither a type constraint of the schema nor a data type");
      }
    }
  }
}
void check_origin(const OpSchema& s) {
  const OpOrigin& o = s.origin;
  if (o.kind != OpOrigin::Kind::onnx) {
    if (!o.domain.empty() || o.since != 0 || o.until)
      malformed(s, "origin '" + o.to_string() + "' sets a domain or opsets; expected them on ONNX ops only");
    return;
  }
  if (o.domain == "ai.onnx") malformed(s, "origin domain 'ai.onnx'; expected \"\" for the default domain");
  if (o.since < 1) malformed(s, "origin '" + o.to_string() + "' starts at version " + std::to_string(o.since) + "; expected >= 1");
  if (o.until && *o.until < o.since)
    malformed(s, "origin '" + o.to_string() + "' ends before it starts; expected until >= since");
}
}  // namespace

void OpRegistry::add(OpSchema schema) {
  if (schema.name.empty()) malformed(schema, "empty op name");
  if (!schema.infer) malformed(schema, "no infer function");
  if (schema.outputs.empty()) malformed(schema, "no outputs");
  check_args(schema, schema.inputs, "input");
  check_args(schema, schema.outputs, "output");
  check_origin(schema);
  for (const AttrSpec& a : schema.attrs)
    if (a.default_value && a.default_value->kind() != a.kind)
      malformed(schema, "attribute '" + a.name + "' has a default of kind " + std::string(to_string(a.default_value->kind())) +
                            " but is declared " + std::string(to_string(a.kind)));
  for (const InPlace& p : schema.in_place)
    if ((p.input >= schema.inputs.size() && (schema.inputs.empty() || !schema.inputs.back().variadic)) ||
        p.output >= schema.outputs.size())
      malformed(schema, "in-place pair (output " + std::to_string(p.output) + ", input " + std::to_string(p.input) +
                            ") names an argument the op does not have");
  std::unique_lock lock(state_->mutex);
  if (state_->schemas.find(schema.name) != state_->schemas.end())
    raise(Errc::duplicate_name, "[ge.ops] op '" + schema.name + "' is already registered; expected a new op name");
  std::string name = schema.name;
  state_->schemas.emplace(std::move(name), std::make_unique<const OpSchema>(std::move(schema)));
}

const OpSchema* OpRegistry::try_find(std::string_view name) const noexcept {
  std::shared_lock lock(state_->mutex);
  const auto it = state_->schemas.find(name);
  return it == state_->schemas.end() ? nullptr : it->second.get();
}

const OpSchema& OpRegistry::find(std::string_view name) const {
  if (const OpSchema* s = try_find(name)) return *s;
  const std::string near = detail::nearest_name(name, names());
  raise(Errc::unknown_op, "[ge.ops] unknown op '" + std::string(name) + "'" +
                              (near.empty() ? std::string("; expected a registered op (see `gec ops`)")
                                            : "; did you mean '" + near + "'?"));
}

std::vector<std::string> OpRegistry::names() const {
  std::shared_lock lock(state_->mutex);
  std::vector<std::string> out;
  out.reserve(state_->schemas.size());
  for (const auto& [name, schema] : state_->schemas) out.push_back(name);
  return out;
}

std::vector<OpInfo> ops_table(const OpRegistry& registry) {
  std::vector<OpInfo> table;
  for (const std::string& name : registry.names()) {
    const OpSchema& s = registry.find(name);
    OpInfo info;
    info.name = s.name;
    info.doc = s.doc;
    const auto arg_text = [](const ArgSpec& a) {
      return a.name + (a.optional ? "?" : "") + (a.variadic ? "..." : "") + ": " + a.type;
    };
    for (const ArgSpec& a : s.inputs) info.inputs.push_back(arg_text(a));
    for (const ArgSpec& a : s.outputs) info.outputs.push_back(arg_text(a));
    for (const TypeConstraint& t : s.types) info.types.push_back(t.name + ": " + t.allowed.to_string());
    for (const AttrSpec& a : s.attrs)
      info.attrs.push_back(OpAttrInfo{a.name, std::string(to_string(a.kind)),
                                      a.default_value ? a.default_value->to_string() : std::string(), a.required});
    info.engines = s.engines.to_string();
    info.origin = s.origin.to_string();
    for (const InPlace& p : s.in_place) {
      const std::size_t last = s.inputs.size() - 1;  // past it: a repeat of the variadic last input
      const std::string input = p.input < last || (p.input == last && !s.inputs[last].variadic)
                                    ? s.inputs[p.input].name
                                    : s.inputs[last].name + "[" + std::to_string(p.input - last) + "]";
      info.in_place.push_back(s.outputs[p.output].name + " <- " + input);
    }
    table.push_back(std::move(info));
  }
  return table;
}

}  // namespace ge
