#pragma once
// Test support: an ONNX model under construction with ONNX's protobuf classes (the
// importer's tests write their models with it).

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ge/onnx.hpp"

namespace ge::test {

// Attributes of a node.
inline void set_int(::onnx::NodeProto* n, const std::string& name, std::int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto_AttributeType_INT);
  a->set_i(v);
}
inline void set_ints(::onnx::NodeProto* n, const std::string& name, const std::vector<std::int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto_AttributeType_INTS);
  for (const auto x : v) a->add_ints(x);
}
inline void set_float(::onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto_AttributeType_FLOAT);
  a->set_f(v);
}
inline void set_string(::onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto_AttributeType_STRING);
  a->set_s(v);
}

struct Model {
  ::onnx::ModelProto m;
  ::onnx::GraphProto* g = nullptr;

  explicit Model(std::int64_t opset = 13) {
    m.set_ir_version(8);
    m.set_producer_name("ge-tests");
    auto* o = m.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    g = m.mutable_graph();
    g->set_name("test");
  }
  // dims: nullopt: no shape; a dim of -1: dim_param "N"; -2: a dim with neither field.
  void input(const std::string& name, int elem, std::optional<std::vector<std::int64_t>> dims) {
    auto* v = g->add_input();
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    if (!dims) return;
    auto* s = tt->mutable_shape();
    for (std::int64_t d : *dims) {
      auto* dim = s->add_dim();
      if (d == -1) dim->set_dim_param("N");
      else if (d >= 0) dim->set_dim_value(d);
    }
  }
  // Static dims (`{}`: a scalar).
  void input(const std::string& name, int elem, std::initializer_list<std::int64_t> dims) {
    input(name, elem, std::optional<std::vector<std::int64_t>>(std::vector<std::int64_t>(dims)));
  }
  void output(const std::string& name) { g->add_output()->set_name(name); }
  ::onnx::NodeProto* node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
                          const std::string& name = "") {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto& s : in) n->add_input(s);
    for (auto& s : out) n->add_output(s);
    return n;
  }
  ::onnx::TensorProto* f32(const std::string& name, std::vector<std::int64_t> dims, const std::vector<float>& v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto_DataType_FLOAT);
    for (auto d : dims) t->add_dims(d);
    t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
    return t;
  }
  ::onnx::TensorProto* i64(const std::string& name, std::vector<std::int64_t> dims, const std::vector<std::int64_t>& v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto_DataType_INT64);
    for (auto d : dims) t->add_dims(d);
    for (const auto x : v) t->add_int64_data(x);
    return t;
  }
  [[nodiscard]] std::string bytes() const { return m.SerializeAsString(); }
  // The model read back by the importer.
  [[nodiscard]] ge::Graph load() const {
    const std::string b = bytes();
    return ge::onnx::load_bytes(std::as_bytes(std::span(b.data(), b.size())));
  }
};

}  // namespace ge::test
