// The ONNX importer: ModelProto -> ge::Graph. See include/ge/onnx.hpp.
//
// Steps: parse; check the opsets; convert every node (collecting everything unsupported
// into one error); add inputs and constants; check names (dangling, produced twice); sort
// the nodes so that producers come first (naming a cycle); add each node with its
// outputs declared from the schema's inference; mark the outputs; validate.
#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ge/core/detail/out_of_memory.hpp"
#include "ge/ops/registry.hpp"
#include "onnx/convert.hpp"
#include "onnx/nodes.hpp"
#include "onnx/subgraph.hpp"
#include "onnx/upgrade.hpp"

#if defined(__GLIBC__)
#include <malloc.h>  // malloc_trim
#endif

namespace ge::onnx {

using namespace detail;

namespace {

class Importer {
 public:
  // `m` loses its tensors' data as they are converted (so that the weights are not held
  // twice): a model is imported once.
  Importer(::onnx::ModelProto& m, const std::filesystem::path& base_dir, const LoadOptions& options)
      : m_(m), base_dir_(base_dir), options_(options) {}

  Graph run() {
    if (!m_.has_graph()) fail(Errc::bad_model, "the model has no graph; expected an ONNX ModelProto");
    const std::optional<std::int64_t> opset = default_opset();  // may convert the model to a newer opset
    opset_ = opset.value_or(max_opset);
    gp_ = m_.mutable_graph();
    return build(opset);
  }

 private:
  // A subgraph's importer (subgraph.cpp's Scope says what it reads from outside).
  Importer(::onnx::ModelProto& m, ::onnx::GraphProto& gp, const Importer& outer, Scope scope)
      : m_(m), gp_(&gp), base_dir_(outer.base_dir_), options_(outer.options_), opset_(outer.opset_),
        scope_(std::move(scope)), depth_(outer.depth_ + 1), source_opset_(outer.source_opset_) {}

  Graph build(std::optional<std::int64_t> opset) {
    // Data types of inputs and initializers, and every node, before anything is built.
    Unsupported unsupported;
    const std::unordered_set<std::string> initializer_names = check_types(unsupported);
    std::vector<std::optional<NodePlan>> plans = convert_nodes(unsupported);
    unsupported.raise_if_any(opset);
    if (!opset && depth_ == 0 && !training_only())
      fail(Errc::bad_model, "the model imports no opset of the default ONNX domain");

    add_inputs(initializer_names);
    add_scope();
    add_initializers();
    const std::vector<std::size_t> compute = add_constant_nodes(plans);
    check_reads(compute, plans);
    for (std::size_t i : order(compute, plans)) add_node(*plans[i]);
    add_outputs();
    g_.validate();
    return std::move(g_);
  }

  // Records the data types of the inputs and initializers this build lacks; returns the
  // initializers' names (an input listed among them is no graph input).
  std::unordered_set<std::string> check_types(Unsupported& unsupported) const {
    const ::onnx::GraphProto& gp = *gp_;
    std::unordered_set<std::string> initializer_names;
    for (const auto& t : gp.initializer()) {
      initializer_names.insert(t.name());
      if (!map_type(t.data_type())) unsupported.add("data type " + type_name(t.data_type()), "initializer " + quote(t.name()));
    }
    if (gp.sparse_initializer_size() > 0) unsupported.add("sparse initializers", "graph");
    for (int k = 0; k < gp.input_size(); ++k) {
      const auto& in = gp.input(k);
      if (initializer_names.contains(in.name())) continue;
      if (!in.type().has_tensor_type() && static_cast<std::size_t>(k) < scope_.formal.size()) continue;  // the node's
      if (!in.type().has_tensor_type()) {
        unsupported.add("graph inputs that are not tensors", "input " + quote(in.name()));
        continue;
      }
      const auto et = in.type().tensor_type().elem_type();
      if (!map_type(et)) unsupported.add("data type " + type_name(et), "input " + quote(in.name()));
    }
    return initializer_names;
  }

  // Every node as a plan; nullopt where something is unsupported (recorded).
  std::vector<std::optional<NodePlan>> convert_nodes(Unsupported& unsupported) {
    const ::onnx::GraphProto& gp = *gp_;
    NodeConverter converter(opset_, base_dir_, options_, unsupported);
    std::vector<std::optional<NodePlan>> plans;
    plans.reserve(static_cast<std::size_t>(gp.node_size()));
    for (int i = 0; i < gp.node_size(); ++i) {
      const auto& n = gp.node(i);
      const std::string where = node_label(n, static_cast<std::size_t>(i));
      if (n.op_type() == "Constant" && (n.domain().empty() || n.domain() == "ai.onnx") &&
          !constant_supported(n, where, unsupported)) {
        plans.emplace_back();
        continue;
      }
      if (n.op_type() == "Scan" && source_opset_ < 9) {  // Scan-8: a batch axis and sequence_lens first
        unsupported.add("Scan of opset 8 (batched, with sequence_lens)", where);
        plans.emplace_back();
        continue;
      }
      plans.push_back(converter.convert(n, static_cast<std::size_t>(i)));
      if (plans.back())
        for (const auto& [name, k] : plans.back()->graphs)
          for (auto& r : outer_reads(n.attribute(k).g()))
            if (std::find(plans.back()->implicit.begin(), plans.back()->implicit.end(), r) == plans.back()->implicit.end())
              plans.back()->implicit.push_back(std::move(r));
      // A converted tensor attribute (Constant's value) is a ge::Tensor now.
      if (plans.back())
        for (auto& a : *gp_->mutable_node(i)->mutable_attribute())
          if (a.has_t()) release(*a.mutable_t());
    }
    return plans;
  }

  // The graph inputs, in order, initializers excluded.
  void add_inputs(const std::unordered_set<std::string>& initializer_names) {
    std::unordered_set<std::string> input_names;
    for (int k = 0; k < gp_->input_size(); ++k) {
      const auto& in = gp_->input(k);
      if (initializer_names.contains(in.name())) continue;
      if (in.name().empty()) fail(Errc::bad_model, "a graph input has an empty name");
      if (!input_names.insert(in.name()).second)
        fail(Errc::bad_model, "graph input " + quote(in.name()) + " is listed twice; expected unique input names");
      if (static_cast<std::size_t>(k) < scope_.formal.size()) {
        // A Loop's or Scan's body input: what the node gives it. The file's dims are not
        // taken (exporters write the first iteration's, [0,...] for a value that grows).
        const TensorDesc& d = scope_.formal[static_cast<std::size_t>(k)];
        const DataType t = in.type().has_tensor_type() ? map_type(in.type().tensor_type().elem_type()).value_or(d.dtype)
                                                       : d.dtype;
        produce(in.name(), "graph input");
        (void)g_.add_input(in.name(), t, d.shape);
        continue;
      }
      const auto& tt = in.type().tensor_type();
      Shape shape = Shape::unknown_rank();
      if (tt.has_shape()) {
        std::vector<Dim> dims;
        for (const auto& d : tt.shape().dim()) {
          if (d.has_dim_value()) {
            if (d.dim_value() < 0)
              fail(Errc::bad_model, "graph input " + quote(in.name()) + " has a negative dim " +
                                        std::to_string(d.dim_value()));
            dims.emplace_back(d.dim_value());
          } else {
            dims.push_back(Dim::unknown());
          }
        }
        shape = Shape(std::move(dims));
      }
      produce(in.name(), "graph input");
      (void)g_.add_input(in.name(), *map_type(tt.elem_type()), std::move(shape));
    }
  }

  // A subgraph's reads from outside: the captured values as its last inputs, the outer
  // constants as its own.
  void add_scope() {
    for (const auto& [name, desc] : scope_.captured) {
      produce(name, "graph around it");
      (void)g_.add_input(name, desc.dtype, desc.shape);
    }
    for (const auto& [name, tensor] : scope_.constants) {
      produce(name, "graph around it");
      (void)g_.add_constant(name, tensor);
    }
  }

  // If, Loop, Scan: each graph attribute imported with what it reads from this graph's
  // scope (the same for all of a node's graphs, so that If's branches take the same
  // inputs); the outer values among those follow the node's own inputs.
  void add_control_flow(const NodePlan& p, std::vector<ValueId> inputs) {
    Scope scope;
    for (const std::string& name : p.implicit) {
      const ValueId v = *g_.find_value(name);
      if (const Tensor* t = g_.constant_of(v); t != nullptr && t->has_data())
        scope.constants.emplace_back(name, *t);
      else
        scope.captured.emplace_back(name, g_.value(v).desc);
    }
    std::vector<TensorDesc> given;
    for (const ValueId v : inputs) given.push_back(v == no_value ? TensorDesc{} : g_.value(v).desc);
    scope.formal = formal_inputs(p.op, p.attrs, given);
    Attributes attrs = p.attrs;
    for (const auto& [name, k] : p.graphs) {
      ::onnx::GraphProto& sub = *gp_->mutable_node(static_cast<int>(p.index))->mutable_attribute(k)->mutable_g();
      try {
        Importer inner(m_, sub, *this, scope);
        attrs.insert_or_assign(name, Attribute(std::make_shared<const Graph>(inner.build(opset_))));
      } catch (const Error& e) {
        raise(e.code(), "node " + quote(p.name) + " (" + p.op + ") attribute " + quote(name) + ": " + e.what());
      }
    }
    if (p.op == "If" && inputs.size() != 1)
      fail(Errc::bad_model, "node " + quote(p.name) + " (If) has " + std::to_string(inputs.size()) +
                                " inputs; expected one (cond)");
    for (const auto& [name, desc] : scope.captured) inputs.push_back(*g_.find_value(name));
    if (p.op != "If") attrs.insert_or_assign("captured", static_cast<std::int64_t>(scope.captured.size()));
    (void)emit(p.name, p.op, inputs, p.outputs, attrs);
  }

  // The initializers as constants, each message's data freed once converted.
  void add_initializers() {
    for (auto& t : *gp_->mutable_initializer()) {
      const std::string what = "initializer " + quote(t.name());
      if (t.name().empty()) fail(Errc::bad_model, "an initializer has an empty name");
      produce(t.name(), what);
      (void)g_.add_constant(t.name(), to_tensor(t, what, base_dir_, options_));
      release(t);
    }
  }

  // Names the nodes (made unique) and records what they produce; Constant nodes become
  // constants. Returns the indices of the other nodes.
  std::vector<std::size_t> add_constant_nodes(std::vector<std::optional<NodePlan>>& plans) {
    const ::onnx::GraphProto& gp = *gp_;
    std::vector<std::size_t> compute;
    for (std::size_t i = 0; i < plans.size(); ++i) {
      NodePlan& p = *plans[i];
      const auto& n = gp.node(static_cast<int>(i));
      p.name = n.name().empty() ? n.op_type() + "_" + std::to_string(i) : n.name();
      const std::string base = p.name;
      for (std::size_t k = 1; !node_names_.insert(p.name).second; ++k) p.name = base + "_" + std::to_string(k);
      const std::string where = node_label(n, i) + " (" + n.op_type() + ")";
      for (const auto& o : p.outputs)
        if (!o.empty()) produce(o, "output of " + where);
      if (p.op == "Constant") {
        if (p.outputs.size() != 1 || p.outputs[0].empty())
          fail(Errc::bad_model, where + " has " + std::to_string(p.outputs.size()) + " outputs; expected one");
        if (!p.inputs.empty()) fail(Errc::bad_model, where + " has inputs; expected none");
        (void)g_.add_constant(p.outputs[0], constant_value(p, where));
      } else {
        compute.push_back(i);
      }
    }
    return compute;
  }

  // Every name a node or the graph's outputs read is produced.
  void check_reads(const std::vector<std::size_t>& compute, const std::vector<std::optional<NodePlan>>& plans) const {
    const ::onnx::GraphProto& gp = *gp_;
    for (std::size_t i : compute)
      for (std::size_t k = 0; k < plans[i]->inputs.size(); ++k) {
        const std::string& name = plans[i]->inputs[k];
        if (!name.empty() && !producers_.contains(name))
          fail(Errc::bad_model, node_label(gp.node(static_cast<int>(i)), i) + " (" + plans[i]->op + ") input " +
                                    std::to_string(k) + " reads " + quote(name) +
                                    ", which no graph input, initializer or node produces");
      }
    for (std::size_t i : compute)
      for (const std::string& name : plans[i]->implicit)
        if (!producers_.contains(name))
          fail(Errc::bad_model, node_label(gp.node(static_cast<int>(i)), i) + " (" + plans[i]->op +
                                    ") has a subgraph that reads " + quote(name) +
                                    ", which no input, initializer or node of it or of a graph around it produces");
    for (const auto& o : gp.output())
      if (!producers_.contains(o.name()))
        fail(Errc::bad_model, "graph output " + quote(o.name()) + " is produced by no input, initializer or node");
  }

  // Marks the graph outputs, each listed once.
  void add_outputs() {
    const ::onnx::GraphProto& gp = *gp_;
    if (gp.output_size() == 0) fail(Errc::bad_model, "the graph has no outputs");
    std::unordered_set<std::string> outs;
    for (const auto& o : gp.output()) {
      if (!outs.insert(o.name()).second) fail(Errc::bad_model, "graph output " + quote(o.name()) + " is listed twice");
      g_.add_output(*g_.find_value(o.name()));
    }
  }

  // Frees the data of a tensor that has been converted (clearing a field keeps its
  // memory; a swap with an empty message hands it to a temporary). Keeps the name.
  static void release(::onnx::TensorProto& t) {
    ::onnx::TensorProto data;
    data.Swap(&t);
    t.set_name(data.name());
  }

  // The default domain's opset; nullopt when not imported (then only nodes of other
  // domains, which are unsupported, may appear). A model of an older opset is converted
  // to `min_opset` first (src/onnx/upgrade.cpp).
  std::optional<std::int64_t> default_opset() {
    std::optional<std::int64_t> version;
    for (const auto& o : m_.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx") {
        if (version && *version != o.version())
          fail(Errc::bad_model, "the model imports the default domain twice (opsets " + std::to_string(*version) +
                                    " and " + std::to_string(o.version()) + ")");
        version = o.version();
      }
    if (!version) return std::nullopt;
    if (*version < min_opset) {
      source_opset_ = *version;
      upgrade_opset(m_, *version);
      return min_opset;
    }
    if (*version > max_opset)
      fail(Errc::unsupported_op, "the model uses opset " + std::to_string(*version) +
                                     " of the default domain; ge reads opsets " + std::to_string(min_opset) + " to " +
                                     std::to_string(max_opset));
    return version;
  }

  // True when the model imports the training domain and every node is of it: then it
  // needs no default-domain opset.
  bool training_only() const {
    const auto& ops = m_.opset_import();
    if (std::none_of(ops.begin(), ops.end(), [](const auto& o) { return o.domain() == training_domain; })) return false;
    const auto& nodes = gp_->node();
    return std::all_of(nodes.begin(), nodes.end(), [](const auto& n) { return n.domain() == training_domain; });
  }

  void produce(const std::string& name, const std::string& by) {
    const auto [it, fresh] = producers_.emplace(name, by);
    if (!fresh)
      fail(Errc::bad_model, "value " + quote(name) + " is produced twice: by the " + it->second + " and by the " + by +
                                "; expected unique value names");
  }

  // The compute nodes, each after the producers of its inputs (stable). Throws on a cycle.
  std::vector<std::size_t> order(const std::vector<std::size_t>& compute, const std::vector<std::optional<NodePlan>>& plans) {
    std::unordered_map<std::string, std::size_t> producer;  // value -> node index
    for (std::size_t i : compute)
      for (const auto& o : plans[i]->outputs)
        if (!o.empty()) producer.emplace(o, i);
    std::map<std::size_t, std::size_t> waiting;
    std::unordered_map<std::size_t, std::vector<std::size_t>> readers;
    for (std::size_t i : compute) {
      waiting[i] = 0;
      std::vector<std::string> ins = plans[i]->inputs;
      ins.insert(ins.end(), plans[i]->implicit.begin(), plans[i]->implicit.end());
      for (const auto& in : ins)
        if (const auto it = producer.find(in); !in.empty() && it != producer.end()) {
          ++waiting[i];
          readers[it->second].push_back(i);
        }
    }
    std::set<std::size_t> ready;
    for (const auto& [i, w] : waiting)
      if (w == 0) ready.insert(i);
    std::vector<std::size_t> out;
    while (!ready.empty()) {
      const std::size_t i = *ready.begin();
      ready.erase(ready.begin());
      out.push_back(i);
      for (std::size_t r : readers[i])
        if (--waiting[r] == 0) ready.insert(r);
    }
    if (out.size() == compute.size()) return out;
    // Walk from a stuck node against the data flow until a node repeats.
    std::size_t at = 0;
    for (const auto& [i, w] : waiting)
      if (w != 0) {
        at = i;
        break;
      }
    std::vector<std::size_t> path;
    std::map<std::size_t, std::size_t> seen_at;
    while (!seen_at.contains(at)) {
      seen_at[at] = path.size();
      path.push_back(at);
      for (const auto& in : plans[at]->inputs)
        if (const auto it = producer.find(in); !in.empty() && it != producer.end() && waiting[it->second] != 0) {
          at = it->second;
          break;
        }
    }
    std::string cycle;
    for (std::size_t k = path.size(); k-- > seen_at[at];) cycle += quote(plans[path[k]]->name) + " -> ";
    cycle += quote(plans[path.back()]->name);
    fail(Errc::bad_model, "the nodes form a cycle: " + cycle + "; expected an acyclic graph");
  }

  // A fresh value or node name based on `base`.
  std::string fresh(const std::string& base) {
    std::string name = base;
    for (std::size_t k = 1; g_.find_value(name) || producers_.contains(name) || node_names_.contains(name); ++k)
      name = base + "_" + std::to_string(k);
    return name;
  }

  // Adds one node: inputs by id, outputs declared from the schema's inference.
  std::vector<ValueId> emit(const std::string& name, const std::string& op, const std::vector<ValueId>& inputs,
                            std::vector<std::string> outputs, const Attributes& attrs) {
    const OpSchema& schema = OpRegistry::global().find(op);
    while (!outputs.empty() && outputs.back().empty()) outputs.pop_back();
    std::vector<TensorDesc> in;
    std::vector<const Tensor*> consts;
    for (ValueId v : inputs) {
      in.push_back(v == no_value ? TensorDesc{} : g_.value(v).desc);
      consts.push_back(v == no_value ? nullptr : g_.constant_of(v));
    }
    const auto descs = infer_outputs(schema, name, in, consts, attrs, outputs.size());
    if (descs.size() < outputs.size())
      fail(Errc::bad_model, "node " + quote(name) + " (" + op + ") has " + std::to_string(outputs.size()) +
                                " outputs; the op has " + std::to_string(descs.size()));
    std::vector<ValueId> ids;
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      const std::string out = outputs[k].empty() ? fresh(name + "/unused_output_" + std::to_string(k)) : outputs[k];
      ids.push_back(g_.declare_value(out, descs[k]));
    }
    node_names_.insert(name);
    (void)g_.add_node(name, op, inputs, ids, attrs);
    return ids;
  }

  // Pad's input 3 (`axes`, opset 18): the pads of the listed axes only. ge's Pad takes
  // pads for every axis: constant axes and pads on an input of known rank become one
  // constant of full pads; anything else is refused.
  void pad_axes(const NodePlan& p, std::vector<ValueId>& inputs) {
    const ValueId ax = inputs[3];
    inputs.resize(3);
    if (ax == no_value || inputs[0] == no_value) {
      while (inputs.size() > 1 && inputs.back() == no_value) inputs.pop_back();
      return;
    }
    const std::string where = "node " + quote(p.name) + " (Pad, opset " + std::to_string(opset_) + ")";
    const Tensor* axes = g_.constant_of(ax);
    const Tensor* pads = inputs[1] == no_value ? nullptr : g_.constant_of(inputs[1]);
    const Shape& x = g_.value(inputs[0]).desc.shape;
    if (axes == nullptr || pads == nullptr || !x.rank_known())
      fail(Errc::unsupported_op, where + " reads its axes from input 3 " + quote(g_.value(ax).name) +
                                     "; ge takes Pad axes only as constants, with constant pads and an input of known rank");
    const std::vector<std::int64_t> a = axes->to_int64s();
    const std::vector<std::int64_t> given = pads->to_int64s();
    const auto r = static_cast<std::int64_t>(x.rank());
    if (given.size() != 2 * a.size())
      fail(Errc::bad_model, where + " has " + std::to_string(given.size()) + " pads for " + std::to_string(a.size()) +
                                " axes; expected two per axis");
    std::vector<std::int64_t> full(static_cast<std::size_t>(2 * r), 0);
    std::vector<bool> seen(static_cast<std::size_t>(r), false);
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::int64_t k = a[i] < 0 ? a[i] + r : a[i];
      if (k < 0 || k >= r || seen[static_cast<std::size_t>(k)])
        fail(Errc::bad_model, where + " axes value " + std::to_string(a[i]) + " is out of range or repeated for rank " +
                                  std::to_string(r));
      seen[static_cast<std::size_t>(k)] = true;
      full[static_cast<std::size_t>(k)] = given[i];
      full[static_cast<std::size_t>(k + r)] = given[i + a.size()];
    }
    inputs[1] = g_.add_constant(fresh(p.name + "/pads"), Tensor::from<std::int64_t>({2 * r}, full));
    while (inputs.size() > 2 && inputs.back() == no_value) inputs.pop_back();
  }

  void add_node(const NodePlan& p) {
    std::vector<ValueId> inputs;
    for (const auto& name : p.inputs) inputs.push_back(name.empty() ? no_value : *g_.find_value(name));
    for (const auto& e : p.extra) {
      if (inputs.size() < e.position) inputs.resize(e.position, no_value);
      const ValueId c = g_.add_constant(fresh(p.name + "/" + e.name), e.data);
      inputs.insert(inputs.begin() + static_cast<std::ptrdiff_t>(e.position), c);
    }
    if (!p.graphs.empty()) return add_control_flow(p, std::move(inputs));
    if (p.op == "Pad" && inputs.size() > 3) pad_axes(p, inputs);
    if (p.legacy_softmax && !inputs.empty() && inputs[0] != no_value) {
      // Before opset 13, Softmax flattens the input to 2-D at `axis` and normalizes each
      // row. The same as ours when `axis` is the last dim; else flatten, softmax, reshape back.
      const Shape x = g_.value(inputs[0]).desc.shape;  // a copy: adding values moves them
      const std::int64_t axis = p.attrs.at("axis").kind() == AttrKind::integer ? p.attrs.at("axis").as_int() : 1;
      const bool last = x.rank_known() && (axis == -1 || axis == static_cast<std::int64_t>(x.rank()) - 1);
      if (!last && p.outputs.size() == 1) {
        const ValueId flat = emit(fresh(p.name + "/flatten"), "Flatten", {inputs[0]},
                                  {fresh(p.outputs[0] + "/2d")}, {{"axis", axis}})[0];
        const ValueId norm = emit(fresh(p.name + "/" + p.op), p.op, {flat}, {fresh(p.outputs[0] + "/2d_" + p.op)},
                                  {{"axis", std::int64_t{-1}}})[0];
        const ValueId shape =
            x.is_static() ? g_.add_constant(fresh(p.outputs[0] + "/shape"),
                                            Tensor::from<std::int64_t>({static_cast<std::int64_t>(x.rank())}, x.values()))
                          : emit(fresh(p.name + "/shape"), "Shape", {inputs[0]}, {fresh(p.outputs[0] + "/shape")}, {})[0];
        (void)emit(p.name, "Reshape", {norm, shape}, p.outputs, {});
        return;
      }
    }
    (void)emit(p.name, p.op, inputs, p.outputs, p.attrs);
  }

  ::onnx::ModelProto& m_;
  ::onnx::GraphProto* gp_ = nullptr;  // the graph this importer reads: the model's or a subgraph
  const std::filesystem::path& base_dir_;
  const LoadOptions& options_;
  std::int64_t opset_ = max_opset;
  Scope scope_;     // a subgraph's reads from outside
  int depth_ = 0;   // 0: the model's graph
  std::int64_t source_opset_ = max_opset;  // the file's opset, before any conversion
  Graph g_;
  std::unordered_map<std::string, std::string> producers_;  // value name -> what produces it
  std::unordered_set<std::string> node_names_;              // every node name, the model's and ours
};

// Parses the file at `path` straight from the stream: the file's bytes are never held
// whole next to the message (the weights would be in memory twice).
template <class Message>
void parse_file(Message& m, const std::filesystem::path& path, const char* what) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) fail(Errc::bad_model, "cannot read " + quote(path.string()) + ": " + ec.message());
  if (size > static_cast<std::uintmax_t>(std::numeric_limits<int>::max()))
    fail(Errc::bad_model, quote(path.string()) + " has " + std::to_string(size) +
                              " bytes; expected under 2 GiB (larger models keep weights as external data)");
  if (size == 0)
    fail(Errc::bad_model, quote(path.string()) + " is empty; expected a serialized ONNX " + std::string(what));
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(Errc::bad_model, "cannot read " + quote(path.string()));
  if (!m.ParseFromIstream(&in)) {
    if (in.bad()) fail(Errc::bad_model, "cannot read " + quote(path.string()));
    fail(Errc::bad_model, quote(path.string()) + " is not a valid ONNX " + std::string(what) +
                              " (malformed or truncated protobuf)");
  }
}

template <class Message>
void parse(Message& m, std::span<const std::byte> bytes, const char* what) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    fail(Errc::bad_model, std::string(what) + " of " + std::to_string(bytes.size()) + " bytes; expected under 2 GiB");
  if (bytes.empty()) fail(Errc::bad_model, std::string("an empty ") + what + "; expected a serialized ONNX " + what);
  if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    fail(Errc::bad_model, std::string("the bytes are not a valid ONNX ") + what +
                              " (malformed or truncated protobuf)");
}

}  // namespace

Graph load_bytes(std::span<const std::byte> bytes, const std::filesystem::path& base_dir, const LoadOptions& options) {
  return ge::detail::guard_memory("[ge.onnx] reading an ONNX model from memory", [&] {
    ::onnx::ModelProto m;
    parse(m, bytes, "model");
    return Importer(m, base_dir, options).run();
  });
}

Graph load(const std::filesystem::path& path, const LoadOptions& options) {
  return ge::detail::guard_memory("[ge.onnx] reading the ONNX model", [&] { return quote(path.string()); }, [&] {
    ::onnx::ModelProto m;
    parse_file(m, path, "model");
    const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    Graph g = Importer(m, dir, options).run();
    m.Clear();
#if defined(__GLIBC__)
    // The message's data was freed piece by piece while the tensors were made; glibc keeps
    // such freed heap pages in the process: give them back to the system.
    malloc_trim(0);
#endif
    return g;
  });
}

Tensor load_tensor_bytes(std::span<const std::byte> bytes, const std::filesystem::path& base_dir,
                         const LoadOptions& options) {
  return ge::detail::guard_memory("[ge.onnx] reading an ONNX tensor from memory", [&] {
    ::onnx::TensorProto t;
    parse(t, bytes, "tensor");
    return to_tensor(t, "tensor " + quote(t.name()), base_dir, options);
  });
}

Tensor load_tensor(const std::filesystem::path& path, const LoadOptions& options) {
  return ge::detail::guard_memory("[ge.onnx] reading the ONNX tensor", [&] { return quote(path.string()); }, [&] {
    ::onnx::TensorProto t;
    parse_file(t, path, "tensor");
    const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    return to_tensor(t, "tensor " + quote(t.name()), dir, options);
  });
}

}  // namespace ge::onnx