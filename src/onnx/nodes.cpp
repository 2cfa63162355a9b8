// The conversion of ONNX nodes into NodePlans (nodes.hpp).
#include "onnx/nodes.hpp"

#include <algorithm>
#include <limits>

#include "ge/ops/registry.hpp"
#include "onnx/upgrade.hpp"

namespace ge::onnx::detail {

namespace {

// The schema a node of `domain` typed `op` is read as: a registered op whose origin is
// that ONNX domain, or in the default domain a user op that declares no origin. None for
// ge's own ops (made by its passes: a file naming one is refused) and ops of other domains.
const OpSchema* onnx_schema(const std::string& domain, const std::string& op) {
  const OpSchema* s = OpRegistry::global().try_find(op);
  if (s == nullptr) return nullptr;
  const bool default_domain = domain.empty() || domain == "ai.onnx";
  if (s->origin.onnx_of(domain) || (default_domain && s->origin.kind == OpOrigin::Kind::unset)) return s;
  return nullptr;
}

// An attribute's kind: its declared type, or for old files without one, the field set.
int attr_type(const ::onnx::AttributeProto& a) {
  using A = ::onnx::AttributeProto;
  if (a.type() != A::UNDEFINED) return a.type();
  if (a.has_f()) return A::FLOAT;
  if (a.has_i()) return A::INT;
  if (a.has_s()) return A::STRING;
  if (a.has_t()) return A::TENSOR;
  if (a.has_g()) return A::GRAPH;
  if (a.floats_size() > 0) return A::FLOATS;
  if (a.ints_size() > 0) return A::INTS;
  if (a.strings_size() > 0) return A::STRINGS;
  return A::UNDEFINED;
}

std::string attr_type_name(int t) {
  if (::onnx::AttributeProto_AttributeType_IsValid(t))
    return ::onnx::AttributeProto_AttributeType_Name(static_cast<::onnx::AttributeProto_AttributeType>(t));
  return "type " + std::to_string(t);
}

}  // namespace

std::string node_label(const ::onnx::NodeProto& n, std::size_t index) {
  return n.name().empty() ? "node #" + std::to_string(index) : "node " + quote(n.name());
}

std::optional<NodePlan> NodeConverter::convert(const ::onnx::NodeProto& n, std::size_t index) {
  const std::string where = node_label(n, index);
  const std::string& op = n.op_type();
  const bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
  const bool constant = default_domain && op == "Constant";
  const OpSchema* schema = constant ? nullptr : onnx_schema(n.domain(), op);
  if (schema == nullptr && !constant) {
    std::string what = default_domain ? "op " + quote(op)
                                      : "op " + quote(n.domain() + ":" + op) + " of domain " + quote(n.domain());
    const OpSchema* other = default_domain ? OpRegistry::global().try_find(op) : nullptr;
    if (other != nullptr && other->origin.kind == OpOrigin::Kind::onnx)  // an op of another domain
      what += " of the default domain (ge reads it from domain " + quote(other->origin.domain) + ")";
    unsupported_.add(what, where);
    return std::nullopt;
  }
  if (schema != nullptr && default_domain && schema->origin.until && opset_ > *schema->origin.until) {
    unsupported_.add("op " + quote(op) + " of opset " + std::to_string(opset_) + " (ge reads it to opset " +
                         std::to_string(*schema->origin.until) + ")",
                     where);
    return std::nullopt;
  }
  if (schema != nullptr && default_domain && schema->origin.kind == OpOrigin::Kind::onnx) {
    if (const auto first = onnx_op_first_opset_above(op, opset_))
      fail(Errc::bad_model, where + " (" + op + "): the model imports opset " + std::to_string(opset_) +
                                " of the default domain, and ONNX brought " + quote(op) + " in at opset " +
                                std::to_string(*first));
  }
  NodePlan p;
  p.index = index;
  p.op = op;
  p.inputs.assign(n.input().begin(), n.input().end());
  p.outputs.assign(n.output().begin(), n.output().end());
  bool ok = true;
  for (int k = 0; k < n.attribute_size(); ++k) {
    const auto& a = n.attribute(k);
    if (attr_type(a) == ::onnx::AttributeProto::GRAPH && a.ref_attr_name().empty()) {
      const bool known = schema != nullptr && std::any_of(schema->attrs.begin(), schema->attrs.end(), [&](const AttrSpec& s) {
                           return s.name == a.name() && s.kind == AttrKind::graph;
                         });
      if (!known) {
        unsupported_.add(op + " attribute " + quote(a.name()) + " of type GRAPH", where);
        ok = false;
      } else if (std::any_of(p.graphs.begin(), p.graphs.end(), [&](const auto& g) { return g.first == a.name(); })) {
        fail(Errc::bad_model, where + " (" + op + ") sets attribute " + quote(a.name()) + " twice");
      } else {
        p.graphs.emplace_back(a.name(), k);
      }
      continue;
    }
    auto v = attribute(op, a, where);
    if (!v) {
      ok = false;
      continue;
    }
    if (!p.attrs.emplace(a.name(), std::move(*v)).second)
      fail(Errc::bad_model, where + " (" + op + ") sets attribute " + quote(a.name()) + " twice");
  }
  if (!ok) return std::nullopt;
  if (constant) return p;  // becomes a constant; see constant_value
  if (!legacy(p, where)) return std::nullopt;
  // Attribute names and values against the schema.
  for (const auto& [name, value] : p.attrs) {
    const auto spec = std::find_if(schema->attrs.begin(), schema->attrs.end(),
                                   [&n = name](const AttrSpec& s) { return s.name == n; });
    if (spec == schema->attrs.end()) {
      unsupported_.add(op + " attribute " + quote(name), where);
      ok = false;
      continue;
    }
    if (spec->check && value.kind() == spec->kind) {
      std::string expected;
      try {
        expected = spec->check(value);
      } catch (const Error&) {
        // A kind the check cannot read: the schema reports it when the node is added.
      }
      if (!expected.empty()) {
        unsupported_.add(op + " attribute " + name + "=" + value.to_string() + " (ge takes " + expected + ")", where);
        ok = false;
      }
    }
  }
  if (!ok) return std::nullopt;
  return p;
}

std::optional<Attribute> NodeConverter::attribute(const std::string& op, const ::onnx::AttributeProto& a,
                                                  const std::string& where) {
  using A = ::onnx::AttributeProto;
  if (!a.ref_attr_name().empty()) {
    unsupported_.add(op + " attribute " + quote(a.name()) + " referring to a function attribute", where);
    return std::nullopt;
  }
  const int t = attr_type(a);
  switch (t) {
    case A::FLOAT: return Attribute(static_cast<double>(a.f()));
    case A::INT: return Attribute(static_cast<std::int64_t>(a.i()));
    case A::STRING: return Attribute(a.s());
    case A::FLOATS: return Attribute(std::vector<double>(a.floats().begin(), a.floats().end()));
    case A::INTS: return Attribute(std::vector<std::int64_t>(a.ints().begin(), a.ints().end()));
    case A::STRINGS: return Attribute(std::vector<std::string>(a.strings().begin(), a.strings().end()));
    case A::TENSOR:
      if ((op == "ConstantOfShape" || op == "Constant") && a.name() == "value") {
        if (!map_type(a.t().data_type())) {
          unsupported_.add("data type " + type_name(a.t().data_type()), where + " attribute 'value'");
          return std::nullopt;
        }
        return Attribute(to_tensor(a.t(), where + " (" + op + ") attribute 'value'", base_dir_, options_));
      }
      [[fallthrough]];
    default:
      unsupported_.add(op + " attribute " + quote(a.name()) + " of type " + attr_type_name(t), where);
      return std::nullopt;
  }
}

bool NodeConverter::legacy(NodePlan& p, const std::string& where) {
  const auto move_to_input = [&](const char* attr, std::size_t position) {
    const auto it = p.attrs.find(attr);
    if (it == p.attrs.end()) return;
    if (it->second.kind() != AttrKind::integers)
      fail(Errc::bad_model, where + " (" + p.op + ") attribute " + quote(attr) + " is " + it->second.to_string() +
                                "; expected a list of ints");
    const auto& v = it->second.as_ints();
    p.extra.push_back({position, attr, Tensor::from<std::int64_t>({static_cast<std::int64_t>(v.size())}, v)});
    p.attrs.erase(it);
  };
  if ((p.op == "Squeeze" || p.op == "Unsqueeze") && opset_ < 13) move_to_input("axes", 1);
  if (p.op == "Split" && opset_ < 13) move_to_input("split", 1);
  if ((p.op == "Softmax" || p.op == "LogSoftmax" || p.op == "Hardmax") && opset_ < 13) {
    p.legacy_softmax = true;
    p.attrs.try_emplace("axis", std::int64_t{1});
  }
  // Opsets 18 to 20: attributes whose value is what ge does anyway are dropped; any
  // other value stays and is refused against the schema (the error names the opset).
  const auto drop_if = [&](const char* attr, const Attribute& value) {
    if (const auto it = p.attrs.find(attr); it != p.attrs.end() && it->second == value) p.attrs.erase(it);
  };
  if (p.op == "Resize" && opset_ >= 18) {
    drop_if("antialias", Attribute(std::int64_t{0}));
    drop_if("keep_aspect_ratio_policy", Attribute(std::string("stretch")));  // only read with sizes
  }
  // Cast's `saturate` (19) only acts on conversions to float 8 types, which ge has none of.
  if ((p.op == "Cast" || p.op == "CastLike") && opset_ >= 19) p.attrs.erase("saturate");
  // Cast's `to` and EyeLike's `dtype` number a type; ge names it.
  if (p.op == "Cast" || p.op == "EyeLike") {
    const auto it = p.attrs.find(p.op == "Cast" ? "to" : "dtype");
    if (it != p.attrs.end() && it->second.kind() == AttrKind::integer) {
      const std::int64_t to = it->second.as_int();
      const auto t = to >= 0 && to <= std::numeric_limits<std::int32_t>::max()
                         ? map_type(static_cast<std::int32_t>(to))
                         : std::nullopt;
      if (!t) {
        unsupported_.add(p.op + " to " + type_name(static_cast<std::int32_t>(std::clamp<std::int64_t>(to, -1, 1000))),
                         where);
        return false;
      }
      it->second = Attribute(std::string(to_string(*t)));
    }
  }
  // RoiAlign before opset 16 had no coordinate_transformation_mode: it did what
  // output_half_pixel names. GridSample from opset 20 names its modes linear and cubic.
  if (p.op == "RoiAlign" && opset_ < 16) p.attrs.try_emplace("coordinate_transformation_mode", std::string("output_half_pixel"));
  if (p.op == "GridSample" && opset_ >= 20)
    if (const auto it = p.attrs.find("mode"); it != p.attrs.end() && it->second.kind() == AttrKind::string) {
      if (it->second.as_string() == "linear") it->second = Attribute(std::string("bilinear"));
      if (it->second.as_string() == "cubic") it->second = Attribute(std::string("bicubic"));
    }
  return true;
}

Tensor constant_value(const NodePlan& p, const std::string& where) {
  if (p.attrs.size() != 1)
    fail(Errc::bad_model, where + " (Constant) has " + std::to_string(p.attrs.size()) +
                              " attributes; expected exactly one value");
  const auto& [name, a] = *p.attrs.begin();
  if (name == "value" && a.kind() == AttrKind::tensor) return a.as_tensor();
  if (name == "value_float" && a.kind() == AttrKind::floating) return Tensor::scalar(static_cast<float>(a.as_float()));
  if (name == "value_int" && a.kind() == AttrKind::integer) return Tensor::scalar(a.as_int());
  if (name == "value_floats" && a.kind() == AttrKind::floats) {
    std::vector<float> v(a.as_floats().begin(), a.as_floats().end());
    return Tensor::from<float>({static_cast<std::int64_t>(v.size())}, v);
  }
  if (name == "value_ints" && a.kind() == AttrKind::integers)
    return Tensor::from<std::int64_t>({static_cast<std::int64_t>(a.as_ints().size())}, a.as_ints());
  fail(Errc::bad_model, where + " (Constant) has attribute " + quote(name) + " of kind " +
                            std::string(to_string(a.kind())) + "; expected value, value_float(s) or value_int(s)");
}

bool constant_supported(const ::onnx::NodeProto& n, const std::string& where, Unsupported& unsupported) {
  for (const auto& a : n.attribute())
    if (a.name() == "sparse_value" || a.name() == "value_string" || a.name() == "value_strings") {
      unsupported.add("Constant attribute " + quote(a.name()), where);
      return false;
    }
  return true;
}

}  // namespace ge::onnx::detail
