#pragma once
// Test support: a node-by-node evaluator of graphs (one compile_op + execute_op per node)
// and the checks built on it: a rewritten graph validates, keeps the interface and
// computes what the original computes.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "ge/compile/op_compile.hpp"
#include "ge/runtime/execute_op.hpp"
#include "ge/core/error.hpp"
#include "ge/graph/graph.hpp"

namespace ge::test {

// ---- a tiny evaluator: one compile_op + execute_op per node ---------------------------

struct Buffer {
  DataType dtype = DataType::undefined;
  std::vector<std::int64_t> dims;
  std::vector<std::byte> bytes;
  TensorView view() { return TensorView{bytes.data(), dtype, dims}; }
};

inline Buffer buffer_of(const Tensor& t) {
  Buffer b;
  b.dtype = t.dtype();
  b.dims = t.dims();
  b.bytes.assign(t.bytes().begin(), t.bytes().end());
  return b;
}

inline Tensor tensor_of(const Buffer& b) { return Tensor(b.dtype, b.dims, b.bytes); }

// Runs `g` on `inputs` (by input name) node by node in topological order; returns the
// outputs in order.
inline std::vector<Tensor> run(const Graph& g, const std::map<std::string, Tensor>& inputs) {
  std::map<ge::ValueId, Buffer> values;
  for (const ge::GraphInput& in : g.inputs()) values[in.value] = buffer_of(inputs.at(in.name));
  for (const ge::Constant& c : g.constants()) values[c.value] = buffer_of(c.tensor);
  for (const std::size_t index : g.topological_order()) {
    const ge::Node& n = g.nodes()[index];
    std::vector<OpTensor> ins;
    std::vector<TensorView> in_views;
    for (const ge::ValueId v : n.inputs) {
      if (v == ge::no_value) {
        ins.push_back(OpTensor::undefined());
        in_views.push_back(TensorView{});
        continue;
      }
      Buffer& b = values.at(v);
      if (const Tensor* t = g.constant_of(v)) ins.push_back(OpTensor::constant_of(*t));
      else ins.push_back(OpTensor{b.dtype, Shape(std::vector<ge::Dim>(b.dims.begin(), b.dims.end()))});
      in_views.push_back(b.view());
    }
    std::vector<OpTensor> outs;
    for (const ge::ValueId v : n.outputs) outs.push_back(OpTensor{g.value(v).desc.dtype, g.value(v).desc.shape});
    const auto op = ge::compile_op(n.op, ins, outs, n.attrs);
    std::vector<Buffer> out(n.outputs.size());
    std::vector<TensorView> out_views;
    for (std::size_t k = 0; k < out.size(); ++k) {
      out[k].dtype = op->outputs[k].dtype;
      out[k].dims = ge::upper_bound(op->outputs[k].shape).values();
      std::int64_t count = 1;
      for (const auto d : out[k].dims) count *= d;
      out[k].bytes.resize(static_cast<std::size_t>(count * ge::size_of(out[k].dtype)));
      out_views.push_back(out[k].view());
    }
    const auto dims = ge::execute_op(*op, in_views, out_views);
    for (std::size_t k = 0; k < out.size(); ++k) {
      out[k].dims = dims[k];
      std::int64_t count = 1;
      for (const auto d : dims[k]) count *= d;
      out[k].bytes.resize(static_cast<std::size_t>(count * ge::size_of(out[k].dtype)));
      values[n.outputs[k]] = std::move(out[k]);
    }
  }
  std::vector<Tensor> result;
  for (const ge::ValueId v : g.outputs()) result.push_back(tensor_of(values.at(v)));
  return result;
}

// Seeded random values for every graph input (f32 only here), at its shape's upper end.
inline std::map<std::string, Tensor> random_inputs(const Graph& g, std::uint64_t seed = 7) {
  std::map<std::string, Tensor> m;
  for (const ge::GraphInput& in : g.inputs())
    m.emplace(in.name, Tensor::random(in.dtype, ge::upper_bound(in.shape).values(), seed++));
  return m;
}

// The largest |a - b| over the largest |b|, across all outputs.
inline double relative_error(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  REQUIRE(a.size() == b.size());
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    REQUIRE(a[i].dims() == b[i].dims());
    const auto x = a[i].to_doubles(), y = b[i].to_doubles();
    for (std::size_t k = 0; k < x.size(); ++k) {
      diff = std::max(diff, std::fabs(x[k] - y[k]));
      scale = std::max(scale, std::fabs(y[k]));
    }
  }
  return diff / std::max(scale, 1e-30);
}

// `after` validates, keeps the interface of `before`, and computes the same outputs.
inline void check_same(const Graph& before, const Graph& after, double tolerance = 1e-5) {
  after.validate();
  REQUIRE(after.inputs().size() == before.inputs().size());
  for (std::size_t i = 0; i < before.inputs().size(); ++i) {
    CHECK(after.inputs()[i].name == before.inputs()[i].name);
    CHECK(after.inputs()[i].shape == before.inputs()[i].shape);
  }
  REQUIRE(after.outputs().size() == before.outputs().size());
  for (std::size_t i = 0; i < before.outputs().size(); ++i)
    CHECK(after.value(after.outputs()[i]).name == before.value(before.outputs()[i]).name);
  const auto in = random_inputs(before);
  CHECK(relative_error(run(after, in), run(before, in)) <= tolerance);
}

inline std::size_t count(const Graph& g, std::string_view op) {
  return static_cast<std::size_t>(
      std::count_if(g.nodes().begin(), g.nodes().end(), [&](const ge::Node& n) { return n.op == op; }));
}

inline const ge::Node& node(const Graph& g, std::string_view name) {
  const auto i = g.find_node(name);
  REQUIRE(i.has_value());
  return g.nodes()[*i];
}

// Same nodes (names and ops, in order) and constants.
inline void check_unchanged(const Graph& before, const Graph& after) {
  after.validate();
  REQUIRE(after.nodes().size() == before.nodes().size());
  for (std::size_t i = 0; i < before.nodes().size(); ++i) {
    CHECK(after.nodes()[i].name == before.nodes()[i].name);
    CHECK(after.nodes()[i].op == before.nodes()[i].op);
  }
  CHECK(after.constants().size() == before.constants().size());
}

}  // namespace ge::test
