// GraphBuilder's control flow: If and Loop with bodies built by the caller on builders
// of their own (ge/graph/builder.hpp).
#include <algorithm>
#include <memory>

#include "ge/graph/builder.hpp"
#include "ge/ops/registry.hpp"

namespace ge {

namespace {
[[noreturn]] void fail(Errc code, const std::string& what) { raise(code, "[ge.graph] " + what); }
}  // namespace

Graph GraphBuilder::subgraph(std::string scope, const std::vector<TensorDesc>& inputs,
                             const std::vector<std::string>& names, Body body) const {
  GraphBuilder sub(registry_);
  sub.scope_ = std::move(scope);
  std::vector<Value> in;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    in.push_back(sub.input(names[k], inputs[k].dtype, inputs[k].shape));
  }
  const std::vector<Value> out = body(sub, in);
  if (out.empty()) fail(Errc::bad_graph, "subgraph '" + sub.scope_ + "' gives no output; expected at least one");
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (!out[k].valid() || &out[k].builder() != &sub)
      fail(Errc::invalid_argument, "output " + std::to_string(k) + " of subgraph '" + sub.scope_ +
                                       "' is not a value of the builder the body was given");
    const auto& given = sub.graph_.outputs();
    // A value given twice (a Loop's carried value that is also a scan output): a copy.
    const bool again = std::find(given.begin(), given.end(), out[k].id()) != given.end();
    sub.graph_.add_output(again ? sub.op("Identity", {out[k]}).id() : out[k].id());
  }
  return sub.build();
}

std::vector<Value> GraphBuilder::if_(Value cond, const std::vector<Value>& inputs, Body then_branch, Body else_branch,
                                     std::string_view name) {
  const std::string node = node_name("If", name);
  std::vector<TensorDesc> descs;
  std::vector<std::string> names;
  for (const Value& v : inputs) {
    check_handle(v, "an input of node '" + node + "'");
    descs.push_back(v.desc());
    names.push_back(v.name());  // an outer value keeps its name inside (as ONNX reads it)
  }
  Attributes attrs;
  attrs.emplace("then_branch", std::make_shared<const Graph>(subgraph(node + "/then/", descs, names, then_branch)));
  attrs.emplace("else_branch", std::make_shared<const Graph>(subgraph(node + "/else/", descs, names, else_branch)));
  std::vector<Value> all{cond};
  all.insert(all.end(), inputs.begin(), inputs.end());
  return op_n("If", all, std::move(attrs), 0, node);
}

std::vector<Value> GraphBuilder::loop(Value trip_count, Value cond, const std::vector<Value>& carried,
                                      const std::vector<Value>& inputs, Body body, std::string_view name) {
  const std::string node = node_name("Loop", name);
  std::vector<TensorDesc> sub_inputs{{DataType::i64, Shape{}}, {DataType::boolean, Shape{}}};
  std::vector<std::string> names{node + "/iteration", node + "/cond"};
  for (std::size_t k = 0; k < carried.size(); ++k) {
    check_handle(carried[k], "carried value " + std::to_string(k) + " of node '" + node + "'");
    // Its dims may change from one iteration to the next: the body takes any of its rank.
    const Shape& s = carried[k].shape();
    sub_inputs.push_back({carried[k].dtype(), s.rank_known() ? Shape(std::vector<Dim>(s.rank(), Dim::unknown()))
                                                            : Shape::unknown_rank()});
    names.push_back(node + "/carried_" + std::to_string(k));
  }
  for (const Value& v : inputs) {
    check_handle(v, "an input of node '" + node + "'");
    sub_inputs.push_back(v.desc());
    names.push_back(v.name());
  }
  Attributes attrs;
  attrs.emplace("body", std::make_shared<const Graph>(subgraph(node + "/body/", sub_inputs, names, body)));
  attrs.emplace("captured", static_cast<std::int64_t>(inputs.size()));
  std::vector<Value> all{trip_count, cond};
  all.insert(all.end(), carried.begin(), carried.end());
  all.insert(all.end(), inputs.begin(), inputs.end());
  return op_n("Loop", all, std::move(attrs), 0, node);
}

}  // namespace ge
