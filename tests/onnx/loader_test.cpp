// Tests of ge/onnx.hpp: models written here with ONNX's protobuf classes, loaded, checked,
// compiled and run; and every hostile case the importer must refuse cleanly.
#include <doctest/doctest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/core/error.hpp"
#include "ge/onnx.hpp"
#include "ge/runtime/session.hpp"
#include "support/expect_error.hpp"
#include "support/onnx_model.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

using ge::test::error_of;
using ge::test::expect_error;
using ge::test::Model;
using ge::test::set_int;
using ge::test::set_ints;
using ge::test::set_string;
using ge::test::TempDir;


ge::Graph load(const std::string& bytes, const fs::path& base = {}) {
  return ge::onnx::load_bytes(std::as_bytes(std::span(bytes.data(), bytes.size())), base);
}

void write(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// x[1,1,3,3] -> Conv(W 2x2, B) -> Relu -> y.
Model conv_relu() {
  Model m;
  m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{1, 1, 3, 3});
  m.f32("W", {1, 1, 2, 2}, {1, 0, 0, 1});
  m.f32("B", {1}, {0.5f});
  auto* c = m.node("Conv", {"x", "W", "B"}, {"c"}, "conv");
  set_ints(c, "kernel_shape", {2, 2});
  m.node("Relu", {"c"}, {"y"}, "relu");
  m.output("y");
  return m;
}

}  // namespace

TEST_CASE("onnx: Conv + Relu loads, compiles and runs") {
  const ge::Graph g = load(conv_relu().bytes());
  REQUIRE(g.inputs().size() == 1);
  CHECK(g.inputs()[0].name == "x");
  CHECK(g.inputs()[0].shape == ge::Shape{1, 1, 3, 3});
  CHECK(g.constants().size() == 2);
  REQUIRE(g.nodes().size() == 2);
  CHECK(g.nodes()[0].op == "Conv");
  CHECK(g.nodes()[0].name == "conv");
  CHECK(g.nodes()[0].attrs.at("kernel_shape").as_ints() == std::vector<std::int64_t>{2, 2});
  CHECK(g.value(g.outputs()[0]).name == "y");
  CHECK(g.value(g.outputs()[0]).desc.shape == ge::Shape{1, 1, 2, 2});

  auto model = ge::compile(g);
  ge::Session s(model, {.threads = 1});
  std::vector<float> x{-4, -3, -2, -1, 0, 1, 2, 3, 4};
  const std::int64_t dims[] = {1, 1, 3, 3};
  const auto r = s.run({ge::TensorView{x.data(), ge::DataType::f32, dims}});
  REQUIRE(r.outputs.size() == 1);
  CHECK(r.outputs[0].dims == std::vector<std::int64_t>{1, 1, 2, 2});
  // y[i][j] = relu(x[i][j] + x[i+1][j+1] + 0.5)
  const std::vector<float> want{0.f, 0.f, 2.5f, 4.5f};
  const auto got = r.outputs[0].values<float>();
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]));
}

TEST_CASE("onnx: file load, empty node names, input order") {
  TempDir dir("ge_onnx_test");
  Model m;
  m.input("b", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});
  m.input("a", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});
  m.node("Add", {"a", "b"}, {"s"});
  m.node("Relu", {"s"}, {"y"});
  m.output("y");
  write(dir.path / "m.onnx", m.bytes());
  const ge::Graph g = ge::onnx::load(dir.path / "m.onnx");
  REQUIRE(g.inputs().size() == 2);
  CHECK(g.inputs()[0].name == "b");
  CHECK(g.inputs()[1].name == "a");
  REQUIRE(g.nodes().size() == 2);
  CHECK(g.nodes()[0].name == "Add_0");
  CHECK(g.nodes()[1].name == "Relu_1");
  expect_error([&] { (void)ge::onnx::load(dir.path / "missing.onnx"); }, ge::Errc::bad_model, "missing.onnx");
  // Files are parsed as a stream: an empty or truncated one is refused all the same.
  write(dir.path / "empty.onnx", "");
  expect_error([&] { (void)ge::onnx::load(dir.path / "empty.onnx"); }, ge::Errc::bad_model, "empty.onnx", "is empty");
  const std::string bytes = conv_relu().bytes();
  write(dir.path / "cut.onnx", bytes.substr(0, bytes.size() - 7));
  expect_error([&] { (void)ge::onnx::load(dir.path / "cut.onnx"); }, ge::Errc::bad_model, "cut.onnx", "truncated");
  write(dir.path / "whole.onnx", bytes);
  CHECK(ge::onnx::load(dir.path / "whole.onnx").nodes().size() == 2);
}

TEST_CASE("onnx: dim_param and missing dims are -1, no shape is unknown rank; INPUT_SHAPE overrides") {
  Model m;
  m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{-1, 3});
  m.input("z", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{-2, 3});
  m.input("u", ::onnx::TensorProto_DataType_INT64, std::nullopt);
  m.node("Relu", {"x"}, {"y"}, "relu");
  m.node("Add", {"x", "z"}, {"w"}, "add");
  m.node("Identity", {"u"}, {"v"}, "id");
  m.output("y");
  m.output("w");
  m.output("v");
  const ge::Graph g = load(m.bytes());
  REQUIRE(g.inputs().size() == 3);
  CHECK(g.inputs()[0].shape == ge::Shape::parse("-1,3"));
  CHECK(g.inputs()[1].shape == ge::Shape::parse("-1,3"));
  CHECK(g.inputs()[2].dtype == ge::DataType::i64);
  CHECK_FALSE(g.inputs()[2].shape.rank_known());
  CHECK(g.value(g.outputs()[0]).desc.shape == ge::Shape::parse("-1,3"));

  // Only the Relu branch, fixed by INPUT_SHAPE.
  Model r;
  r.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{-1, 3});
  r.node("Relu", {"x"}, {"y"}, "relu");
  r.output("y");
  auto model = ge::compile(load(r.bytes()), {{"ge.inputShape", "x:2,3"}});
  CHECK(model->inputs()[0].shape == ge::Shape{2, 3});
  ge::Session s(model, {.threads = 1});
  std::vector<float> x{-1, 2, -3, 4, -5, 6};
  const std::int64_t dims[] = {2, 3};
  const auto out = s.run({ge::TensorView{x.data(), ge::DataType::f32, dims}});
  CHECK(out.outputs[0].dims == std::vector<std::int64_t>{2, 3});
  const auto y = out.outputs[0].values<float>();
  CHECK(std::vector<float>(y.begin(), y.end()) == std::vector<float>{0, 2, 0, 4, 0, 6});
}

TEST_CASE("onnx: initializers (typed fields), inputs that are initializers, Constant nodes") {
  Model m;
  m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});
  m.input("w", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});  // also an initializer
  auto* w = m.g->add_initializer();
  w->set_name("w");
  w->set_data_type(::onnx::TensorProto_DataType_FLOAT);
  w->add_dims(2);
  w->add_float_data(1.5f);
  w->add_float_data(-2.f);
  auto* shape = m.g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(::onnx::TensorProto_DataType_INT64);
  shape->add_dims(2);
  shape->add_int64_data(1);
  shape->add_int64_data(2);
  auto* d = m.g->add_initializer();
  d->set_name("d");
  d->set_data_type(::onnx::TensorProto_DataType_DOUBLE);
  d->add_double_data(0.25);
  auto* c = m.node("Constant", {}, {"k"}, "k");
  auto* a = c->add_attribute();
  a->set_name("value");
  a->set_type(::onnx::AttributeProto_AttributeType_TENSOR);
  a->mutable_t()->set_data_type(::onnx::TensorProto_DataType_INT32);
  a->mutable_t()->add_dims(3);
  for (int v : {7, 8, 9}) a->mutable_t()->add_int32_data(v);
  auto* ci = m.node("Constant", {}, {"ki"}, "ki");
  set_ints(ci, "value_ints", {4, 5});
  m.node("Mul", {"x", "w"}, {"p"}, "mul");
  m.node("Reshape", {"p", "shape"}, {"y"}, "reshape");
  m.output("y");
  const ge::Graph g = load(m.bytes());
  REQUIRE(g.inputs().size() == 1);
  CHECK(g.inputs()[0].name == "x");
  CHECK(g.constants().size() == 5);
  CHECK(g.constant_of(*g.find_value("w"))->to_doubles() == std::vector<double>{1.5, -2.0});
  CHECK(g.constant_of(*g.find_value("shape"))->to_int64s() == std::vector<std::int64_t>{1, 2});
  CHECK(g.constant_of(*g.find_value("d"))->dtype() == ge::DataType::f64);
  CHECK(g.constant_of(*g.find_value("d"))->dims().empty());
  CHECK(g.constant_of(*g.find_value("k"))->dtype() == ge::DataType::i32);
  CHECK(g.constant_of(*g.find_value("k"))->to_int64s() == std::vector<std::int64_t>{7, 8, 9});
  CHECK(g.constant_of(*g.find_value("ki"))->to_int64s() == std::vector<std::int64_t>{4, 5});
  CHECK(g.value(g.outputs()[0]).desc.shape == ge::Shape{1, 2});
}

TEST_CASE("onnx: older opsets: attributes that became inputs, Cast's to, Softmax before 13") {
  SUBCASE("Unsqueeze, Squeeze, Split at opset 11") {
    Model m(11);
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{4, 6});
    set_ints(m.node("Unsqueeze", {"x"}, {"u"}, "unsq"), "axes", {0});
    set_ints(m.node("Squeeze", {"u"}, {"s"}, "sq"), "axes", {0});
    auto* sp = m.node("Split", {"s"}, {"a", "b"}, "split");
    set_int(sp, "axis", 1);
    set_ints(sp, "split", {2, 4});
    m.output("a");
    m.output("b");
    const ge::Graph g = load(m.bytes());
    REQUIRE(g.nodes().size() == 3);
    CHECK(g.nodes()[0].inputs.size() == 2);
    CHECK(g.nodes()[0].attrs.empty());
    CHECK(g.constant_of(g.nodes()[0].inputs[1])->to_int64s() == std::vector<std::int64_t>{0});
    CHECK(g.value(g.nodes()[0].outputs[0]).desc.shape == ge::Shape{1, 4, 6});
    CHECK(g.value(g.nodes()[1].outputs[0]).desc.shape == ge::Shape{4, 6});
    CHECK(g.value(*g.find_value("a")).desc.shape == ge::Shape{4, 2});
    CHECK(g.value(*g.find_value("b")).desc.shape == ge::Shape{4, 4});
  }
  SUBCASE("Cast to an ONNX type number") {
    Model m;
    m.input("x", ::onnx::TensorProto_DataType_INT64, std::vector<std::int64_t>{3});
    set_int(m.node("Cast", {"x"}, {"y"}, "cast"), "to", ::onnx::TensorProto_DataType_FLOAT);
    m.output("y");
    const ge::Graph g = load(m.bytes());
    CHECK(g.nodes()[0].attrs.at("to").as_string() == "f32");
    CHECK(g.value(g.outputs()[0]).desc.dtype == ge::DataType::f32);
  }
  SUBCASE("Softmax at opset 11 normalizes over the flattened dims from axis") {
    Model m(11);
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2, 2, 3});
    m.node("Softmax", {"x"}, {"y"}, "sm");  // axis 1 by default
    m.output("y");
    const ge::Graph g = load(m.bytes());
    CHECK(g.value(g.outputs()[0]).desc.shape == ge::Shape{2, 2, 3});
    ge::Session s(ge::compile(g), {.threads = 1});
    std::vector<float> x(12);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 5) * 0.5f;
    const std::int64_t dims[] = {2, 2, 3};
    const auto r = s.run({ge::TensorView{x.data(), ge::DataType::f32, dims}});
    const auto y = r.outputs[0].values<float>();
    REQUIRE(y.size() == 12);
    for (std::size_t b = 0; b < 2; ++b) {
      double sum = 0;
      for (std::size_t k = 0; k < 6; ++k) sum += std::exp(static_cast<double>(x[b * 6 + k]));
      for (std::size_t k = 0; k < 6; ++k)
        CHECK(y[b * 6 + k] == doctest::Approx(std::exp(static_cast<double>(x[b * 6 + k])) / sum).epsilon(1e-5));
    }
  }
  SUBCASE("Softmax at opset 11 over the last axis stays one node") {
    Model m(11);
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2, 3});
    m.node("Softmax", {"x"}, {"y"}, "sm");
    m.output("y");
    const ge::Graph g = load(m.bytes());
    REQUIRE(g.nodes().size() == 1);
    CHECK(g.nodes()[0].op == "Softmax");
  }
}

TEST_CASE("onnx: external data") {
  TempDir dir("ge_onnx_test");
  const std::vector<float> w{1.f, 2.f, 3.f, 4.f};
  std::string blob(8, '\x7f');  // 8 bytes before the data
  blob.append(reinterpret_cast<const char*>(w.data()), w.size() * sizeof(float));
  write(dir.path / "weights.bin", blob);
  const auto model = [](const std::string& location, std::optional<std::string> length) {
    Model m;
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{4});
    auto* t = m.g->add_initializer();
    t->set_name("w");
    t->set_data_type(::onnx::TensorProto_DataType_FLOAT);
    t->add_dims(4);
    t->set_data_location(::onnx::TensorProto_DataLocation_EXTERNAL);
    auto* e = t->add_external_data();
    e->set_key("location");
    e->set_value(location);
    e = t->add_external_data();
    e->set_key("offset");
    e->set_value("8");
    if (length) {
      e = t->add_external_data();
      e->set_key("length");
      e->set_value(*length);
    }
    m.node("Add", {"x", "w"}, {"y"}, "add");
    m.output("y");
    return m.bytes();
  };
  SUBCASE("read with offset and length, from a file and from bytes with a base_dir") {
    write(dir.path / "m.onnx", model("weights.bin", "16"));
    const ge::Graph g = ge::onnx::load(dir.path / "m.onnx");
    CHECK(g.constant_of(*g.find_value("w"))->to_doubles() == std::vector<double>{1, 2, 3, 4});
    const ge::Graph h = load(model("weights.bin", std::nullopt), dir.path);
    CHECK(h.constant_of(*h.find_value("w"))->to_doubles() == std::vector<double>{1, 2, 3, 4});
  }
  SUBCASE("hostile or broken references") {
    expect_error([&] { (void)load(model("weights.bin", "16")); }, ge::Errc::bad_model, "no model directory");
    expect_error([&] { (void)load(model("../weights.bin", "16"), dir.path); }, ge::Errc::bad_model,
                 "outside the model's directory");
    expect_error([&] { (void)load(model("/etc/passwd", "16"), dir.path); }, ge::Errc::bad_model,
                 "outside the model's directory");
    expect_error([&] { (void)load(model("weights.bin", "12"), dir.path); }, ge::Errc::bad_model, "needs 16");
    expect_error([&] { (void)load(model("weights.bin", "-3"), dir.path); }, ge::Errc::bad_model, "length");
    expect_error([&] { (void)load(model("nothing.bin", "16"), dir.path); }, ge::Errc::bad_model, "nothing.bin");
    blob.resize(20);  // shorter than offset + length
    write(dir.path / "short.bin", blob);
    expect_error([&] { (void)load(model("short.bin", "16"), dir.path); }, ge::Errc::bad_model, "holds 12 bytes");
  }
}

TEST_CASE("onnx: hostile bytes") {
  const std::string good = conv_relu().bytes();
  SUBCASE("truncated") {
    for (std::size_t n : {good.size() / 2, good.size() - 1, std::size_t{3}})
      expect_error([&] { (void)load(good.substr(0, n)); }, ge::Errc::bad_model);
    // Every prefix: a ge::Error or (cut at a field boundary) a graph, never anything else.
    for (std::size_t n = 0; n < good.size(); ++n) (void)error_of([&] { (void)load(good.substr(0, n)); });
  }
  SUBCASE("garbage and empty") {
    expect_error([&] { (void)load(std::string("\x89PNG\r\n\x1a\n not a model at all", 26)); }, ge::Errc::bad_model);
    expect_error([&] { (void)load(std::string()); }, ge::Errc::bad_model, "empty");
    std::mt19937 rng(7);
    for (int k = 0; k < 2000; ++k) {
      std::string s = good;
      for (int j = 0; j < 4; ++j) s[rng() % s.size()] = static_cast<char>(rng());
      (void)error_of([&] { (void)load(s); });  // a flip may leave a valid model
    }
  }
  SUBCASE("a model without a graph") {
    ::onnx::ModelProto m;
    m.set_ir_version(8);
    expect_error([&] { (void)load(m.SerializeAsString()); }, ge::Errc::bad_model, "no graph");
  }
}

TEST_CASE("onnx: hostile graphs") {
  SUBCASE("cycle") {
    Model m;
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});
    m.node("Add", {"x", "b"}, {"a"}, "first");
    m.node("Relu", {"a"}, {"b"}, "second");
    m.output("b");
    expect_error([&] { (void)load(m.bytes()); }, ge::Errc::bad_model, "cycle", "'first'", "'second'");
  }
  SUBCASE("a name nothing produces") {
    Model m;
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});
    m.node("Add", {"x", "nowhere"}, {"y"}, "add");
    m.output("y");
    expect_error([&] { (void)load(m.bytes()); }, ge::Errc::bad_model, "'add'", "'nowhere'");
    Model o;
    o.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});
    o.node("Relu", {"x"}, {"y"}, "relu");
    o.output("zz");
    expect_error([&] { (void)load(o.bytes()); }, ge::Errc::bad_model, "'zz'");
  }
  SUBCASE("a value produced twice") {
    Model m;
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});
    m.f32("w", {2}, {1, 2});
    m.f32("w", {2}, {3, 4});
    m.node("Add", {"x", "w"}, {"y"}, "add");
    m.output("y");
    expect_error([&] { (void)load(m.bytes()); }, ge::Errc::bad_model, "'w'", "twice");
    Model n;
    n.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});
    n.node("Relu", {"x"}, {"y"}, "a");
    n.node("Relu", {"x"}, {"y"}, "b");
    n.output("y");
    expect_error([&] { (void)load(n.bytes()); }, ge::Errc::bad_model, "'y'", "twice");
    Model i;
    i.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});
    i.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});
    i.node("Relu", {"x"}, {"y"}, "a");
    i.output("y");
    expect_error([&] { (void)load(i.bytes()); }, ge::Errc::bad_model, "'x'", "twice");
  }
  SUBCASE("huge dims") {
    Model m;
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});
    auto* t = m.f32("w", {std::int64_t{1} << 40, std::int64_t{1} << 40}, {1, 2});
    m.node("Add", {"x", "w"}, {"y"}, "add");
    m.output("y");
    expect_error([&] { (void)load(m.bytes()); }, ge::Errc::bad_model, "'w'", "overflows");
    t->clear_dims();
    t->add_dims(std::int64_t{1} << 20);
    t->add_dims(std::int64_t{1} << 20);
    expect_error([&] { (void)load(m.bytes()); }, ge::Errc::bad_model, "'w'", "limit");
    t->clear_raw_data();  // the typed field, empty: no data for a million elements
    t->clear_dims();
    t->add_dims(std::int64_t{1} << 20);
    expect_error([&] { (void)load(m.bytes()); }, ge::Errc::bad_model, "'w'", "0 values", "1048576");
  }
  SUBCASE("negative dims") {
    Model m;
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});
    m.f32("w", {-2}, {1, 2});
    m.node("Add", {"x", "w"}, {"y"}, "add");
    m.output("y");
    expect_error([&] { (void)load(m.bytes()); }, ge::Errc::bad_model, "'w'", "negative");
    Model n;
    n.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});
    n.m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_value(-5);
    n.node("Relu", {"x"}, {"y"}, "relu");
    n.output("y");
    expect_error([&] { (void)load(n.bytes()); }, ge::Errc::bad_model, "'x'", "negative");
  }
  SUBCASE("raw data shorter or longer than the shape") {
    Model m;
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{4});
    m.f32("w", {4}, {1, 2});
    m.node("Add", {"x", "w"}, {"y"}, "add");
    m.output("y");
    expect_error([&] { (void)load(m.bytes()); }, ge::Errc::bad_model, "'w'", "8 bytes", "needs 16");
    Model n;
    n.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{1});
    n.f32("w", {1}, {1, 2});
    n.node("Add", {"x", "w"}, {"y"}, "add");
    n.output("y");
    expect_error([&] { (void)load(n.bytes()); }, ge::Errc::bad_model, "'w'", "8 bytes", "needs 4");
  }
  SUBCASE("a node that breaks its schema names the node") {
    Model m;
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2, 3});
    m.input("z", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{4, 5});
    m.node("Add", {"x", "z"}, {"y"}, "bad_add");
    m.output("y");
    CHECK(std::string(error_of([&] { (void)load(m.bytes()); }).what()).find("bad_add") != std::string::npos);
  }
}

TEST_CASE("onnx: everything unsupported is listed in one error") {
  Model m;
  m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});
  m.input("s", ::onnx::TensorProto_DataType_STRING, std::vector<std::int64_t>{2});
  m.node("Relu", {"x"}, {"a"}, "relu");
  m.node("Bernoulli", {"a"}, {"b"}, "hm_first");
  m.node("Bernoulli", {"b"}, {"c"}, "hm_second");
  m.node("StringNormalizer", {"c"}, {"d"}, "strnorm");
  m.node("FusedConv", {"d"}, {"e"}, "fused");
  auto* ms = m.node("FusedMatMul", {"e"}, {"f"}, "ms");
  ms->set_domain("com.microsoft");
  set_string(m.node("Resize", {"f", "", "", ""}, {"g"}, "resize"), "mode", "area");
  set_int(m.node("Relu", {"g"}, {"h"}, "relu2"), "bogus", 1);
  set_int(m.node("Cast", {"h"}, {"i"}, "cast"), "to", ::onnx::TensorProto_DataType_STRING);
  m.output("i");
  expect_error([&] { (void)load(m.bytes()); }, ge::Errc::unsupported_op, "'Bernoulli' (node 'hm_first')",
               "'StringNormalizer' (node 'strnorm')", "'FusedConv'", "com.microsoft:FusedMatMul", "mode=\"area\"",
               "Relu attribute 'bogus' (node 'relu2')", "Cast to STRING", "STRING (input 's')");
  // Each op once.
  CHECK(std::string(error_of([&] { (void)load(m.bytes()); }).what()).find("hm_second") == std::string::npos);
}

TEST_CASE("onnx: opsets") {
  for (std::int64_t v : {21, 99}) {
    Model m(v);
    m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});
    m.node("Relu", {"x"}, {"y"}, "relu");
    m.output("y");
    expect_error([&] { (void)load(m.bytes()); }, ge::Errc::unsupported_op, "opset " + std::to_string(v), "11 to 20");
  }
  Model m;
  m.m.mutable_opset_import(0)->set_domain("ai.onnx.ml");
  m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});
  m.node("Relu", {"x"}, {"y"}, "relu");
  m.output("y");
  expect_error([&] { (void)load(m.bytes()); }, ge::Errc::bad_model, "default ONNX domain");
  for (std::int64_t v : {11, 17, 18, 19, 20}) {
    Model ok(v);
    ok.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2});
    ok.node("Relu", {"x"}, {"y"}, "relu");
    ok.output("y");
    CHECK(load(ok.bytes()).nodes().size() == 1);
  }
}

TEST_CASE("onnx: load_tensor_bytes reads a TensorProto") {
  ::onnx::TensorProto t;
  t.set_name("t");
  t.set_data_type(::onnx::TensorProto_DataType_BOOL);
  t.add_dims(3);
  for (int v : {1, 0, 1}) t.add_int32_data(v);
  const std::string s = t.SerializeAsString();
  const ge::Tensor x = ge::onnx::load_tensor_bytes(std::as_bytes(std::span(s.data(), s.size())));
  CHECK(x.dtype() == ge::DataType::boolean);
  CHECK(x.to_int64s() == std::vector<std::int64_t>{1, 0, 1});
  t.set_data_type(::onnx::TensorProto_DataType_COMPLEX64);
  const std::string c = t.SerializeAsString();
  expect_error([&] { (void)ge::onnx::load_tensor_bytes(std::as_bytes(std::span(c.data(), c.size()))); },
               ge::Errc::unsupported_op, "COMPLEX64");
}

namespace {


// Runs a one-input f32 graph; the outputs' values.
std::vector<std::vector<float>> run_f32(const ge::Graph& g, std::vector<float> x,
                                        const std::vector<std::int64_t>& dims) {
  auto model = ge::compile(g);
  ge::Session s(model, {.threads = 1});
  const auto r = s.run({ge::TensorView{x.data(), ge::DataType::f32, dims}});
  std::vector<std::vector<float>> out;
  for (const auto& o : r.outputs) {
    const auto v = o.values<float>();
    out.emplace_back(v.begin(), v.end());
  }
  return out;
}

}  // namespace

TEST_CASE("onnx: opset 18: Reduce axes as input 1, Split's num_outputs, Pad's axes, Resize's new attributes") {
  Model m(18);
  m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2, 3});
  m.i64("axes", {1}, {1});
  m.node("ReduceMean", {"x", "axes"}, {"mean"}, "mean");                      // keepdims: [2,1]
  set_int(m.node("ReduceMax", {"x", "axes"}, {"max"}, "max"), "keepdims", 0);  // [2]
  set_int(m.node("ReduceMean", {"x"}, {"all"}, "all"), "keepdims", 0);         // no axes: all of them
  set_int(m.node("Split", {"x"}, {"s0", "s1"}, "split"), "num_outputs", 2);    // along 0: [1,3] twice
  m.i64("pads", {2}, {1, 2});
  m.i64("pad_axes", {1}, {-1});
  m.node("Pad", {"x", "pads", "", "pad_axes"}, {"padded"}, "pad");  // [2, 1+3+2]
  m.output("mean");
  m.output("max");
  m.output("all");
  m.output("s1");
  m.output("padded");
  const ge::Graph g = load(m.bytes());
  CHECK(g.value(g.outputs()[0]).desc.shape == ge::Shape{2, 1});
  CHECK(g.value(g.outputs()[1]).desc.shape == ge::Shape{2});
  CHECK(g.value(g.outputs()[2]).desc.shape == ge::Shape{});
  CHECK(g.value(g.outputs()[3]).desc.shape == ge::Shape{1, 3});
  CHECK(g.value(g.outputs()[4]).desc.shape == ge::Shape{2, 6});
  const auto* pad = &g.nodes().back();
  for (const auto& n : g.nodes())
    if (n.name == "pad") pad = &n;
  REQUIRE(pad->inputs.size() == 2);  // pads for every axis; no axes input
  const ge::Tensor* full = g.constant_of(pad->inputs[1]);
  REQUIRE(full != nullptr);
  CHECK(full->to_int64s() == std::vector<std::int64_t>{0, 1, 0, 2});

  const auto out = run_f32(g, {1, 2, 3, 4, 5, 9}, {2, 3});
  REQUIRE(out.size() == 5);
  CHECK(out[0] == std::vector<float>{2, 6});
  CHECK(out[1] == std::vector<float>{3, 9});
  CHECK(out[2][0] == doctest::Approx(4));
  CHECK(out[3] == std::vector<float>{4, 5, 9});
  CHECK(out[4] == std::vector<float>{0, 1, 2, 3, 0, 0, 0, 4, 5, 9, 0, 0});

  // Resize: antialias=0 and keep_aspect_ratio_policy=stretch are what ge does; dropped.
  Model r(19);
  r.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{1, 1, 2, 2});
  r.f32("scales", {4}, {1, 1, 2, 2});
  auto* resize = r.node("Resize", {"x", "", "scales"}, {"y"}, "resize");
  set_int(resize, "antialias", 0);
  set_string(resize, "keep_aspect_ratio_policy", "stretch");
  auto* cast = r.node("Cast", {"y"}, {"z"}, "cast");
  set_int(cast, "to", ::onnx::TensorProto_DataType_FLOAT);
  set_int(cast, "saturate", 1);  // acts on float 8 only: dropped
  r.output("z");
  const ge::Graph rg = load(r.bytes());
  CHECK(rg.nodes()[0].attrs.count("antialias") == 0);
  CHECK(rg.nodes()[1].attrs.count("saturate") == 0);
  CHECK(rg.value(rg.outputs()[0]).desc.shape == ge::Shape{1, 1, 4, 4});
}

TEST_CASE("onnx: opsets 18 to 20: what ge cannot express is refused naming the op and the opset") {
  Model m(18);
  m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{1, 1, 2, 2});
  m.f32("scales", {4}, {1, 1, 2, 2});
  set_int(m.node("Resize", {"x", "", "scales"}, {"y"}, "resize"), "antialias", 1);
  m.node("Col2Im", {"y"}, {"z"}, "col2im");
  m.output("z");
  expect_error([&] { (void)load(m.bytes()); }, ge::Errc::unsupported_op, "(opset 18)",
               "Resize attribute 'antialias' (node 'resize')", "'Col2Im' (node 'col2im')");

  Model w(19);
  w.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2, 3});
  w.i64("pads", {4}, {0, 1, 0, 1});
  set_string(w.node("Pad", {"x", "pads"}, {"y"}, "pad"), "mode", "wrap");
  w.output("y");
  expect_error([&] { (void)load(w.bytes()); }, ge::Errc::unsupported_op, "(opset 19)", "Pad attribute mode=\"wrap\"");

  // Pad axes only known at run time.
  Model p(18);
  p.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2, 3});
  p.input("axes", ::onnx::TensorProto_DataType_INT64, std::vector<std::int64_t>{1});
  p.i64("pads", {2}, {1, 1});
  p.node("Pad", {"x", "pads", "", "axes"}, {"y"}, "pad");
  p.output("y");
  expect_error([&] { (void)load(p.bytes()); }, ge::Errc::unsupported_op, "node 'pad' (Pad, opset 18)",
               "input 3 'axes'");
}

TEST_CASE("onnx: opset 20: Gelu") {
  Model m(20);
  m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{3});
  m.node("Gelu", {"x"}, {"exact"}, "exact");
  set_string(m.node("Gelu", {"x"}, {"tanh"}, "tanh"), "approximate", "tanh");
  m.output("exact");
  m.output("tanh");
  const ge::Graph g = load(m.bytes());
  REQUIRE(g.nodes().size() == 2);
  CHECK(g.nodes()[1].attrs.at("approximate").as_string() == "tanh");
  const auto out = run_f32(g, {-1, 0, 2}, {3});
  const auto gelu = [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); };
  for (std::size_t i = 0; i < 3; ++i) {
    const double x = std::vector<double>{-1, 0, 2}[i];
    CHECK(out[0][i] == doctest::Approx(gelu(x)).epsilon(1e-5));
    CHECK(out[1][i] == doctest::Approx(gelu(x)).epsilon(1e-3));
  }
}

TEST_CASE("onnx: RoiAlign before opset 16 is output_half_pixel; GridSample's opset-20 mode names") {
  Model m(11);
  m.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{1, 1, 4, 4});
  m.input("rois", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{2, 4});
  m.input("idx", ::onnx::TensorProto_DataType_INT64, std::vector<std::int64_t>{2});
  m.node("RoiAlign", {"x", "rois", "idx"}, {"y"}, "roi");
  m.output("y");
  const ge::Graph g = load(m.bytes());
  CHECK(g.nodes()[0].attrs.at("coordinate_transformation_mode").as_string() == "output_half_pixel");
  Model s(20);
  s.input("x", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{1, 1, 4, 4});
  s.input("grid", ::onnx::TensorProto_DataType_FLOAT, std::vector<std::int64_t>{1, 2, 3, 2});
  set_string(s.node("GridSample", {"x", "grid"}, {"y"}, "gs"), "mode", "cubic");
  s.output("y");
  const ge::Graph gs = load(s.bytes());
  CHECK(gs.nodes()[0].attrs.at("mode").as_string() == "bicubic");
  CHECK(gs.value(gs.outputs()[0]).desc.shape.to_string() == "1,1,2,3");
}
