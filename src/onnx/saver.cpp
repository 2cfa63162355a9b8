// The ONNX exporter: ge::Graph -> ModelProto. See include/ge/onnx.hpp.
//
// Steps: check that every op is an ONNX op (its schema's origin says which domain, from
// which opset) and find the opset the graph needs (13, 17 or 20); write the inputs, the constants as initializers, the nodes in topological order
// with the attribute spellings of that opset, and the outputs; serialize.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <map>
#include <unordered_set>

#include "ge/core/detail/file_write.hpp"
#include "ge/core/detail/out_of_memory.hpp"
#include "ge/ops/registry.hpp"
#include "onnx/convert.hpp"

namespace ge::onnx {

using namespace detail;

namespace {

// The ONNX origin of `op` (its schema's): none for ge's own ops, for user ops that declare
// none, and for names the registry lacks.
const OpOrigin* onnx_origin(std::string_view op) {
  const OpSchema* s = OpRegistry::global().try_find(op);
  return s != nullptr && s->origin.kind == OpOrigin::Kind::onnx ? &s->origin : nullptr;
}

// Reduce ops whose axes are an attribute before opset 18 and an input from 18 on
// (ReduceSum moved at 13, so its axes are always an input here).
bool axes_input_from_18(std::string_view op) {
  return op.starts_with("Reduce") && op != "ReduceSum";
}

bool reduce_op(std::string_view op) { return op.starts_with("Reduce"); }

// The opsets we write, lowest first; a graph gets the first that covers what it needs.
constexpr std::int64_t written_opsets[] = {13, 17, 20};

// The IR version that goes with an opset (ONNX 1.8: IR 7 and opset 13; 1.12: 8 and 17;
// 1.15: 9 and 20).
std::int64_t ir_version(std::int64_t opset) { return opset <= 13 ? 7 : opset <= 17 ? 8 : 9; }

std::int32_t onnx_type(DataType t) {
  switch (t) {
    case DataType::f32: return ::onnx::TensorProto_DataType_FLOAT;
    case DataType::u8: return ::onnx::TensorProto_DataType_UINT8;
    case DataType::i8: return ::onnx::TensorProto_DataType_INT8;
    case DataType::u16: return ::onnx::TensorProto_DataType_UINT16;
    case DataType::i16: return ::onnx::TensorProto_DataType_INT16;
    case DataType::i32: return ::onnx::TensorProto_DataType_INT32;
    case DataType::i64: return ::onnx::TensorProto_DataType_INT64;
    case DataType::boolean: return ::onnx::TensorProto_DataType_BOOL;
    case DataType::f16: return ::onnx::TensorProto_DataType_FLOAT16;
    case DataType::f64: return ::onnx::TensorProto_DataType_DOUBLE;
    case DataType::u32: return ::onnx::TensorProto_DataType_UINT32;
    case DataType::u64: return ::onnx::TensorProto_DataType_UINT64;
    case DataType::bf16: return ::onnx::TensorProto_DataType_BFLOAT16;
    case DataType::undefined: break;
  }
  return ::onnx::TensorProto_DataType_UNDEFINED;
}

// The constant behind an optional input `k` of `n`, or null (absent or not a constant).
const Tensor* constant_input(const Graph& g, const Node& n, std::size_t k) {
  return k < n.inputs.size() && n.inputs[k] != no_value ? g.constant_of(n.inputs[k]) : nullptr;
}

bool has_input(const Node& n, std::size_t k) { return k < n.inputs.size() && n.inputs[k] != no_value; }

// The opset a node needs: its op's, raised by attributes and input forms of later opsets.
std::int64_t node_opset(const Graph& g, const Node& n, std::int64_t since) {
  std::int64_t v = since;
  const auto needs = [&](bool when, std::int64_t opset) {
    if (when) v = std::max(v, opset);
  };
  needs(n.op == "Reshape" && n.attrs.contains("allowzero"), 14);
  needs(n.op == "BatchNormalization" && n.attrs.contains("training_mode"), 14);
  needs(n.op == "Shape" && (n.attrs.contains("start") || n.attrs.contains("end")), 15);
  needs(n.op == "Split" && n.attrs.contains("num_outputs"), 18);
  needs(n.op == "AveragePool" && n.attrs.contains("dilations"), 19);
  if ((n.op == "ScatterND" || n.op == "ScatterElements") && n.attrs.contains("reduction") && n.attrs.at("reduction").kind() == AttrKind::string) {
    const std::string& r = n.attrs.at("reduction").as_string();
    needs(r == "add" || r == "mul", 16);
    needs(r == "max" || r == "min", 18);
  }
  needs(n.op == "Pad" && n.attrs.contains("mode") && n.attrs.at("mode").kind() == AttrKind::string &&
            n.attrs.at("mode").as_string() == "wrap",
        19);
  if (axes_input_from_18(n.op)) {
    needs(n.attrs.contains("noop_with_empty_axes"), 18);
    needs(has_input(n, 1) && constant_input(g, n, 1) == nullptr, 18);  // axes known only at run time
  }
  return v;
}

// What a graph and its subgraphs need of the model's opset imports.
struct Needs {
  std::int64_t opset = written_opsets[0];          // the default domain's
  std::string opset_by;                            // the node that needs it (when above the lowest)
  std::optional<std::int64_t> until;               // the lowest last opset of the default-domain ops used
  std::string until_by;                            // the node of that op
  std::map<std::string, std::int64_t> domains;     // the other domains' versions
  std::map<std::string, std::string> missing;      // op types ONNX lacks, with a first user
};

std::string node_text(const Node& n) { return quote(n.op) + " (node " + quote(n.name) + ")"; }

void graph_needs(const Graph& g, Needs& need) {
  for (const Node& n : g.nodes()) {
    for (const auto& [name, a] : n.attrs)
      if (a.kind() == AttrKind::graph) graph_needs(a.as_graph(), need);
    const OpOrigin* o = onnx_origin(n.op);
    if (o == nullptr) {
      need.missing.emplace(n.op, n.name);
    } else if (!o->domain.empty()) {
      std::int64_t& v = need.domains[o->domain];
      v = std::max(v, o->since);
    } else {
      if (const std::int64_t v = node_opset(g, n, o->since); v > need.opset) {
        need.opset = v;
        need.opset_by = node_text(n);
      }
      if (o->until && (!need.until || *o->until < *need.until)) {
        need.until = o->until;
        need.until_by = node_text(n);
      }
    }
  }
}

// The opset imports written for `g`: the default domain's opset (one of written_opsets)
// and the other domains' versions. Throws listing the op types ONNX lacks (with a first
// user), or naming an op that no written opset fits.
struct Imports {
  std::int64_t opset = 0;
  std::map<std::string, std::int64_t> domains;
};

Imports graph_imports(const Graph& g) {
  Needs need;
  graph_needs(g, need);
  if (!need.missing.empty()) {
    std::string text;
    for (const auto& [op, node] : need.missing) {
      text += (text.empty() ? "" : ", ") + quote(op) + " (node " + quote(node);
      const OpSchema* schema = OpRegistry::global().try_find(op);
      if (schema != nullptr && schema->origin.internal()) text += ", made by ge's fusion pass: save the graph before ge::compile";
      text += ")";
    }
    fail(Errc::unsupported_op, "cannot save the graph: " + std::to_string(need.missing.size()) +
                                   " op type(s) are not ONNX ops: " + text +
                                   "; expected ONNX ops only");
  }
  const auto* o = std::find_if(std::begin(written_opsets), std::end(written_opsets),
                               [&](std::int64_t w) { return need.opset <= w; });
  if (o == std::end(written_opsets))
    fail(Errc::unsupported_op, "cannot save the graph: " + need.opset_by + " needs opset " + std::to_string(need.opset) +
                                   "; ge writes opsets up to " + std::to_string(std::end(written_opsets)[-1]));
  if (need.until && *need.until < *o)
    fail(Errc::unsupported_op, "cannot save the graph: it needs opset " + std::to_string(*o) +
                                   (need.opset_by.empty() ? std::string() : " (for " + need.opset_by + ")") + ", but " +
                                   need.until_by + " is an op of opsets up to " + std::to_string(*need.until));
  return {*o, std::move(need.domains)};
}

void set_tensor(::onnx::TensorProto& t, const std::string& name, const Tensor& x) {
  t.set_name(name);
  t.set_data_type(onnx_type(x.dtype()));
  for (const std::int64_t d : x.dims()) t.add_dims(d);
  const auto bytes = x.bytes();
  t.set_raw_data(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

// Element type and dims; a dim that is not fixed gets the name `<value>_d<i>`.
void set_type(::onnx::ValueInfoProto& v, const std::string& name, const TensorDesc& d) {
  v.set_name(name);
  auto* tt = v.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx_type(d.dtype));
  if (!d.shape.rank_known()) return;
  auto* shape = tt->mutable_shape();
  bool all_static = true;
  for (std::size_t i = 0; i < d.shape.rank(); ++i) {
    const Dim& dim = d.shape.dims()[i];
    auto* out = shape->add_dim();
    if (dim.is_static()) {
      out->set_dim_value(dim.lo());
    } else {
      out->set_dim_param(name + "_d" + std::to_string(i));
      all_static = false;
    }
  }
  if (!all_static) v.set_doc_string("ge shape " + to_string(d));
}

void set_attribute(::onnx::AttributeProto& a, const std::string& name, const Attribute& v) {
  using A = ::onnx::AttributeProto;
  a.set_name(name);
  switch (v.kind()) {
    case AttrKind::integer:
      a.set_type(A::INT);
      a.set_i(v.as_int());
      break;
    case AttrKind::boolean:  // ONNX has no bool attributes: 0 or 1
      a.set_type(A::INT);
      a.set_i(v.as_bool() ? 1 : 0);
      break;
    case AttrKind::floating:  // ONNX attributes are float32
      a.set_type(A::FLOAT);
      a.set_f(static_cast<float>(v.as_float()));
      break;
    case AttrKind::string:
      a.set_type(A::STRING);
      a.set_s(v.as_string());
      break;
    case AttrKind::integers:
      a.set_type(A::INTS);
      for (const std::int64_t x : v.as_ints()) a.add_ints(x);
      break;
    case AttrKind::booleans:
      a.set_type(A::INTS);
      for (const bool x : v.as_bools()) a.add_ints(x ? 1 : 0);
      break;
    case AttrKind::floats:
      a.set_type(A::FLOATS);
      for (const double x : v.as_floats()) a.add_floats(static_cast<float>(x));
      break;
    case AttrKind::strings:
      a.set_type(A::STRINGS);
      for (const auto& x : v.as_strings()) a.add_strings(x);
      break;
    case AttrKind::tensor:
      a.set_type(A::TENSOR);
      set_tensor(*a.mutable_t(), "", v.as_tensor());
      break;
    case AttrKind::graph:  // the exporter writes subgraphs itself (Exporter::add_node)
      fail(Errc::internal, "graph attribute " + quote(name) + " reached set_attribute");
  }
}

class Exporter {
 public:
  explicit Exporter(const Graph& g) : g_(g) {
    for (const ValueInfo& v : g.values()) names_.insert(v.name);
  }

  // A subgraph's exporter: its last `captured` inputs, and its constants that the graphs
  // around it hold under the same name, are read from there by name, as ONNX does.
  Exporter(const Graph& g, const Exporter& outer, std::size_t captured)
      : g_(g), names_(outer.names_), outer_(&outer), captured_(captured) {
    for (const ValueInfo& v : g.values()) names_.insert(v.name);
  }

  void write_subgraph(::onnx::GraphProto& gp, std::int64_t opset) {
    gp_ = &gp;
    gp.set_name("ge_subgraph");
    const std::size_t own = g_.inputs().size() - std::min(captured_, g_.inputs().size());
    for (const GraphInput& in : g_.inputs())
      if (in.index < own) set_type(*gp.add_input(), in.name, g_.value(in.value).desc);
    for (const Constant& c : g_.constants())
      if (!outer_->holds_constant(c.name, c.tensor)) set_tensor(*gp.add_initializer(), c.name, c.tensor);
    for (const std::size_t i : g_.topological_order()) add_node(g_.nodes()[i], opset);
    for (const ValueId id : g_.outputs()) set_type(*gp.add_output(), g_.value(id).name, g_.value(id).desc);
  }

  ::onnx::ModelProto run() {
    const Imports imports = graph_imports(g_);
    const std::int64_t opset = imports.opset;
    ::onnx::ModelProto m;
    m.set_ir_version(ir_version(opset));
    m.set_producer_name("ge");
    auto* o = m.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    for (const auto& [domain, version] : imports.domains) {
      auto* d = m.add_opset_import();
      d->set_domain(domain);
      d->set_version(version);
    }
    gp_ = m.mutable_graph();
    gp_->set_name("ge");
    for (const GraphInput& in : g_.inputs()) set_type(*gp_->add_input(), in.name, g_.value(in.value).desc);
    for (const Constant& c : g_.constants()) set_tensor(*gp_->add_initializer(), c.name, c.tensor);
    for (const std::size_t i : g_.topological_order()) add_node(g_.nodes()[i], opset);
    for (const ValueId id : g_.outputs()) set_type(*gp_->add_output(), g_.value(id).name, g_.value(id).desc);
    return m;
  }

 private:
  // True when this graph or one around it has constant `name` with `t`'s data.
  bool holds_constant(const std::string& name, const Tensor& t) const {
    if (const auto v = g_.find_value(name))
      if (const Tensor* c = g_.constant_of(*v)) return c->dtype() == t.dtype() && c->dims() == t.dims() && (c->bytes().data() == t.bytes().data() || std::equal(c->bytes().begin(), c->bytes().end(), t.bytes().begin(), t.bytes().end()));
    return outer_ != nullptr && outer_->holds_constant(name, t);
  }

  // A value name no value or initializer has yet, based on `base`.
  std::string fresh(const std::string& base) {
    std::string name = base;
    for (std::size_t k = 1; names_.contains(name); ++k) name = base + "_" + std::to_string(k);
    names_.insert(name);
    return name;
  }

  void add_node(const Node& n, std::int64_t opset) {
    std::vector<std::string> inputs;
    for (const ValueId v : n.inputs) inputs.push_back(v == no_value ? std::string() : g_.value(v).name);
    Attributes attrs = n.attrs;
    if (n.op == "Cast" || n.op == "EyeLike") {
      // ge names the target type (`f32`); ONNX numbers it.
      const auto it = attrs.find(n.op == "Cast" ? "to" : "dtype");
      if (it != attrs.end() && it->second.kind() == AttrKind::string)
        it->second = Attribute(static_cast<std::int64_t>(onnx_type(parse_data_type(it->second.as_string()))));
    }
    if (reduce_op(n.op)) {
      const bool axes_as_input = !axes_input_from_18(n.op) || opset >= 18;
      const auto it = attrs.find("axes");
      if (axes_as_input && it != attrs.end() && it->second.kind() == AttrKind::integers) {
        // The attribute of older opsets becomes the constant input 1.
        const auto& axes = it->second.as_ints();
        const std::string name = fresh(n.name + "/axes");
        set_tensor(*gp_->add_initializer(), name,
                   Tensor::from<std::int64_t>({static_cast<std::int64_t>(axes.size())}, axes));
        inputs.resize(std::max<std::size_t>(inputs.size(), 2));
        inputs[1] = name;
        attrs.erase(it);
      } else if (!axes_as_input && inputs.size() > 1) {
        // A constant axes input (node_opset asked for 18 otherwise) becomes the attribute.
        if (const Tensor* axes = constant_input(g_, n, 1); axes != nullptr && axes->element_count() > 0)
          attrs.insert_or_assign("axes", Attribute(axes->to_int64s()));
        inputs.resize(1);
      }
    }
    // Control flow: the outer values the subgraphs read are named inside them, not inputs.
    std::size_t captured = 0;
    if (n.op == "If") {
      captured = inputs.size() - std::min<std::size_t>(inputs.size(), 1);
    } else if (const auto it = attrs.find("captured"); it != attrs.end()) {
      captured = static_cast<std::size_t>(std::max<std::int64_t>(it->second.as_int(), 0));
      attrs.erase(it);
    }
    if (captured > 0) inputs.resize(inputs.size() - std::min(captured, inputs.size()));
    if (n.op == "Split" && opset >= 18 && !has_input(n, 1) && !attrs.contains("num_outputs"))
      attrs.emplace("num_outputs", static_cast<std::int64_t>(n.outputs.size()));  // opset 18 wants one of them
    while (!inputs.empty() && inputs.back().empty()) inputs.pop_back();

    auto* p = gp_->add_node();
    p->set_name(n.name);
    p->set_op_type(n.op);
    for (const auto& in : inputs) p->add_input(in);
    for (const ValueId v : n.outputs) p->add_output(g_.value(v).name);
    for (const auto& [name, value] : attrs) {
      auto* a = p->add_attribute();
      if (value.kind() != AttrKind::graph) {
        set_attribute(*a, name, value);
        continue;
      }
      a->set_name(name);
      a->set_type(::onnx::AttributeProto::GRAPH);
      Exporter inner(value.as_graph(), *this, captured);
      inner.write_subgraph(*a->mutable_g(), opset);
    }
    if (const OpOrigin* origin = onnx_origin(n.op); origin != nullptr && !origin->domain.empty())
      p->set_domain(origin->domain);
  }

  const Graph& g_;
  ::onnx::GraphProto* gp_ = nullptr;
  std::unordered_set<std::string> names_;  // value and initializer names
  const Exporter* outer_ = nullptr;        // the graph around a subgraph
  std::size_t captured_ = 0;               // a subgraph's inputs that are outer values
};

}  // namespace

std::int64_t save_opset(const Graph& graph) { return graph_imports(graph).opset; }

namespace {
std::vector<std::byte> save_bytes_unguarded(const Graph& graph) {
  const ::onnx::ModelProto m = Exporter(graph).run();
  const std::size_t size = m.ByteSizeLong();
  if (size > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    fail(Errc::unsupported, "the model would take " + std::to_string(size) +
                                " bytes; protobuf writes under 2 GiB and ge does not write external data");
  std::vector<std::byte> bytes(size);
  if (size > 0 && !m.SerializeToArray(bytes.data(), static_cast<int>(size)))
    fail(Errc::internal, "serializing the model failed");
  return bytes;
}
}  // namespace

std::vector<std::byte> save_bytes(const Graph& graph) {
  return ge::detail::guard_memory("[ge.onnx] writing the graph as an ONNX model", [&] { return save_bytes_unguarded(graph); });
}

void save(const Graph& graph, const std::filesystem::path& path) {
  const auto bytes = save_bytes(graph);
  // To a temporary file renamed over `path`: a failed write leaves the old file as it was.
  if (const auto why = ge::detail::write_file_atomically(path, {std::span<const std::byte>(bytes)}))
    fail(Errc::invalid_argument, "cannot write the model to " + quote(path.string()) + ": " + *why +
                                     "; expected a writable file path");
}

}  // namespace ge::onnx
