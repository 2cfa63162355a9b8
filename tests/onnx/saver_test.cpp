// ge::onnx::save / save_bytes: the example models round-trip through ONNX (same nodes,
// attributes and weights; the same outputs when compiled and run), the opset chosen,
// the attribute spellings of each opset, and the refusals.
#include <doctest/doctest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "../../examples/models/bert_encoder.hpp"
#include "../../examples/models/mobilenet_v2.hpp"
#include "../../examples/models/resnet50.hpp"
#include "ge/compile/compile.hpp"
#include "ge/core/error.hpp"
#include "ge/graph/builder.hpp"
#include "ge/onnx.hpp"
#include "ge/runtime/session.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using ge::test::expect_error;
using ge::test::TempDir;

::onnx::ModelProto parse(const std::vector<std::byte>& bytes) {
  ::onnx::ModelProto m;
  REQUIRE(m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  return m;
}

std::int64_t opset_of(const ::onnx::ModelProto& m) {
  REQUIRE(m.opset_import_size() == 1);
  CHECK(m.opset_import(0).domain().empty());
  return m.opset_import(0).version();
}

// Loads saved bytes back, at the opset they were saved at (13, 17 or 20).
ge::Graph load_back(const std::vector<std::byte>& bytes) { return ge::onnx::load_bytes(bytes); }

// ONNX attributes are float32: floats compare after narrowing.
bool same_attr(const ge::Attribute& a, const ge::Attribute& b) {
  if (a.kind() == ge::AttrKind::floating && b.kind() == ge::AttrKind::floating)
    return static_cast<float>(a.as_float()) == static_cast<float>(b.as_float());
  if (a.kind() == ge::AttrKind::floats && b.kind() == ge::AttrKind::floats) {
    if (a.as_floats().size() != b.as_floats().size()) return false;
    for (std::size_t i = 0; i < a.as_floats().size(); ++i)
      if (static_cast<float>(a.as_floats()[i]) != static_cast<float>(b.as_floats()[i])) return false;
    return true;
  }
  return a == b;
}

// The shape a saved input reads back as: fixed dims stay, ranges become unknown.
ge::Shape saved_shape(const ge::Shape& s) {
  if (!s.rank_known()) return s;
  std::vector<ge::Dim> dims;
  for (const ge::Dim& d : s.dims()) dims.push_back(d.is_static() ? d : ge::Dim::unknown());
  return ge::Shape(std::move(dims));
}

std::vector<std::string> names(const ge::Graph& g, const std::vector<ge::ValueId>& ids) {
  std::vector<std::string> out;
  for (const ge::ValueId v : ids) out.push_back(v == ge::no_value ? std::string() : g.value(v).name);
  return out;
}

// Same inputs, constants (names and bytes), nodes (names, ops, inputs, outputs,
// attributes) and outputs.
void check_same_graph(const ge::Graph& a, const ge::Graph& b) {
  REQUIRE(a.inputs().size() == b.inputs().size());
  for (std::size_t i = 0; i < a.inputs().size(); ++i) {
    CHECK(a.inputs()[i].name == b.inputs()[i].name);
    CHECK(a.inputs()[i].dtype == b.inputs()[i].dtype);
    CHECK(saved_shape(a.inputs()[i].shape) == b.inputs()[i].shape);
  }
  REQUIRE(a.constants().size() == b.constants().size());
  std::map<std::string, const ge::Tensor*> constants;
  for (const auto& c : b.constants()) constants[c.name] = &c.tensor;
  for (const auto& c : a.constants()) {
    INFO("constant " << c.name);
    REQUIRE(constants.contains(c.name));
    CHECK(*constants[c.name] == c.tensor);
  }
  REQUIRE(a.nodes().size() == b.nodes().size());
  for (std::size_t i = 0; i < a.nodes().size(); ++i) {
    const ge::Node& x = a.nodes()[i];
    const ge::Node& y = b.nodes()[i];
    INFO("node " << x.name);
    CHECK(x.name == y.name);
    CHECK(x.op == y.op);
    CHECK(names(a, x.inputs) == names(b, y.inputs));
    CHECK(names(a, x.outputs) == names(b, y.outputs));
    REQUIRE(x.attrs.size() == y.attrs.size());
    for (const auto& attr : x.attrs) {
      const std::string& name = attr.first;  // no structured binding: clang 14 cannot capture one in INFO
      const ge::Attribute& value = attr.second;
      INFO("attribute " << name << " = " << value.to_string());
      REQUIRE(y.attrs.contains(name));
      CHECK(same_attr(value, y.attrs.at(name)));
    }
  }
  CHECK(names(a, a.outputs()) == names(b, b.outputs()));
  for (std::size_t i = 0; i < a.outputs().size(); ++i)
    CHECK(a.value(a.outputs()[i]).desc.dtype == b.value(b.outputs()[i]).desc.dtype);
}

// `g` with every float attribute narrowed to float32, as an ONNX file holds it: what a
// saved graph must run exactly like.
ge::Graph narrowed(const ge::Graph& g) {
  ge::Graph out;
  const auto id = [&](ge::ValueId v) { return v == ge::no_value ? v : *out.find_value(g.value(v).name); };
  for (const auto& in : g.inputs()) (void)out.add_input(in.name, in.dtype, in.shape, in.format);
  for (const auto& c : g.constants()) (void)out.add_constant(c.name, c.tensor);
  for (const std::size_t i : g.topological_order()) {
    const ge::Node& n = g.nodes()[i];
    std::vector<ge::ValueId> inputs, outputs;
    for (const ge::ValueId v : n.inputs) inputs.push_back(id(v));
    for (const ge::ValueId v : n.outputs) outputs.push_back(out.declare_value(g.value(v).name, g.value(v).desc));
    ge::Attributes attrs;
    for (const auto& [name, a] : n.attrs) {
      if (a.kind() == ge::AttrKind::floating) {
        attrs.emplace(name, static_cast<double>(static_cast<float>(a.as_float())));
      } else if (a.kind() == ge::AttrKind::floats) {
        std::vector<double> v;
        for (const double x : a.as_floats()) v.push_back(static_cast<float>(x));
        attrs.emplace(name, std::move(v));
      } else {
        attrs.emplace(name, a);
      }
    }
    (void)out.add_node(n.name, n.op, std::move(inputs), std::move(outputs), std::move(attrs));
  }
  for (const ge::ValueId v : g.outputs()) out.add_output(id(v));
  out.validate();
  return out;
}

struct Input {
  ge::DataType dtype;
  std::vector<std::int64_t> dims;
  std::vector<std::byte> bytes;
};

Input random_f32(std::vector<std::int64_t> dims, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::int64_t n = 1;
  for (const auto d : dims) n *= d;
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) x = u(rng);
  Input in{ge::DataType::f32, std::move(dims), std::vector<std::byte>(v.size() * sizeof(float))};
  std::memcpy(in.bytes.data(), v.data(), in.bytes.size());
  return in;
}

std::vector<std::vector<std::byte>> run(const ge::Graph& g, const ge::BuildOptions& options, std::vector<Input>& inputs) {
  auto model = ge::compile(g, options);
  ge::Session s(model, {.threads = 2});
  std::vector<ge::TensorView> views;
  for (auto& in : inputs) views.push_back({in.bytes.data(), in.dtype, in.dims});
  const auto r = s.run(views);
  std::vector<std::vector<std::byte>> out;
  for (const auto& o : r.outputs) {
    const auto* p = static_cast<const std::byte*>(o.data);
    out.emplace_back(p, p + o.bytes);
  }
  return out;
}

// Saves `g`, checks the opset, loads it back, compares the graphs, and the outputs of
// both compiled with `options` on `inputs`: bit for bit against `g` with its float
// attributes narrowed to float32 (ONNX's), and close to `g` itself (an epsilon of 1e-5
// and its float32 neighbour may round one last bit apart after a few dozen layers).
void round_trip(const ge::Graph& g, std::int64_t opset, const ge::BuildOptions& options, std::vector<Input> inputs) {
  const auto bytes = ge::onnx::save_bytes(g);
  CHECK(ge::onnx::save_opset(g) == opset);
  CHECK(opset_of(parse(bytes)) == opset);
  const ge::Graph back = load_back(bytes);
  check_same_graph(g, back);
  const auto got = run(back, options, inputs);
  const auto want = run(narrowed(g), options, inputs);
  REQUIRE(want.size() == got.size());
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(want[i] == got[i]);  // bit for bit
  const auto original = run(g, options, inputs);
  for (std::size_t i = 0; i < original.size(); ++i) {
    REQUIRE(original[i].size() == got[i].size());
    const std::size_t n = got[i].size() / sizeof(float);
    std::vector<float> a(n), b(n);
    std::memcpy(a.data(), original[i].data(), n * sizeof(float));
    std::memcpy(b.data(), got[i].data(), n * sizeof(float));
    float scale = 0;
    for (const float x : a) scale = std::max(scale, std::abs(x));
    for (std::size_t k = 0; k < n; ++k) REQUIRE(std::abs(a[k] - b[k]) <= 1e-6f * scale + 1e-6f);
  }
}

const ::onnx::NodeProto& node_named(const ::onnx::ModelProto& m, const std::string& name) {
  for (const auto& n : m.graph().node())
    if (n.name() == name) return n;
  FAIL("no node " << name);
  throw;
}

const ::onnx::AttributeProto* attribute(const ::onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

const ::onnx::TensorProto* initializer(const ::onnx::ModelProto& m, const std::string& name) {
  for (const auto& t : m.graph().initializer())
    if (t.name() == name) return &t;
  return nullptr;
}

}  // namespace

TEST_CASE("onnx save: ResNet-50 round-trips (opset 13)") {
  round_trip(ge::models::resnet50("1~4,3,64,64"), 13, {{"ge.inputShape", "data:2,3,64,64"}},
             {random_f32({2, 3, 64, 64}, 1)});
}

TEST_CASE("onnx save: MobileNetV2 round-trips (opset 13)") {
  round_trip(ge::models::mobilenet_v2("-1,3,64,64"), 13, {{"ge.inputShape", "data:2,3,64,64"}},
             {random_f32({2, 3, 64, 64}, 2)});
}

TEST_CASE("onnx save: the BERT-style encoder round-trips (opset 20: Gelu)") {
  Input mask{ge::DataType::i64, {2, 16}, std::vector<std::byte>(2 * 16 * sizeof(std::int64_t))};
  for (std::int64_t i = 0; i < 32; ++i) {
    const std::int64_t v = i < 16 || i % 16 < 11 ? 1 : 0;  // padding in row 2
    std::memcpy(mask.bytes.data() + i * 8, &v, 8);
  }
  round_trip(ge::models::bert_encoder("-1", "16"), 20,
             {{"ge.inputShape", "hidden_states:2,16,256;attention_mask:2,16"}},
             {random_f32({2, 16, 256}, 3), mask});
}

TEST_CASE("onnx save: inputs, outputs and initializers as ONNX writes them") {
  const auto m = parse(ge::onnx::save_bytes(ge::models::bert_encoder("1~8", "128")));
  CHECK(m.ir_version() == 9);
  CHECK(m.producer_name() == "ge");
  const auto& g = m.graph();
  REQUIRE(g.input_size() == 2);
  const auto& x = g.input(0);
  CHECK(x.name() == "hidden_states");
  CHECK(x.type().tensor_type().elem_type() == ::onnx::TensorProto_DataType_FLOAT);
  REQUIRE(x.type().tensor_type().shape().dim_size() == 3);
  CHECK(x.type().tensor_type().shape().dim(0).dim_param() == "hidden_states_d0");
  CHECK(x.type().tensor_type().shape().dim(1).dim_value() == 128);
  CHECK(x.type().tensor_type().shape().dim(2).dim_value() == 256);
  CHECK(x.doc_string() == "ge shape f32[1~8,128,256]");
  CHECK(g.input(1).type().tensor_type().elem_type() == ::onnx::TensorProto_DataType_INT64);
  REQUIRE(g.output_size() == 1);
  CHECK(g.output(0).type().tensor_type().shape().dim(0).has_dim_param());
  const auto* w = initializer(m, "attention.query.weight");
  REQUIRE(w != nullptr);
  CHECK(w->data_type() == ::onnx::TensorProto_DataType_FLOAT);
  CHECK(std::vector<std::int64_t>(w->dims().begin(), w->dims().end()) == std::vector<std::int64_t>{256, 256});
  CHECK(w->raw_data().size() == 256 * 256 * 4);
  // Initializers are not graph inputs (IR >= 4).
  for (const auto& in : g.input()) CHECK(initializer(m, in.name()) == nullptr);

  // Unknown rank: no shape.
  ge::Graph u;
  const auto a = u.add_input("a", ge::DataType::f32, ge::Shape::unknown_rank());
  const auto y = u.declare_value("y", {ge::DataType::f32, ge::Shape::unknown_rank()});
  (void)u.add_node("relu", "Relu", {a}, {y});
  u.add_output(y);
  const auto mu = parse(ge::onnx::save_bytes(u));
  CHECK(opset_of(mu) == 13);
  CHECK(mu.ir_version() == 7);
  CHECK_FALSE(mu.graph().input(0).type().tensor_type().has_shape());
  CHECK_FALSE(ge::onnx::load_bytes(ge::onnx::save_bytes(u)).inputs()[0].shape.rank_known());
}

TEST_CASE("onnx save: the opset follows the ops, and attributes take its spelling") {
  ge::GraphBuilder b;
  const auto x = b.input("x", ge::DataType::f32, "2,3,4");
  const auto mean = x.reduce_mean({1}, true, "mean");
  const auto sum = x.reduce_sum({2}, false, "sum");
  const auto cast = sum.cast(ge::DataType::f64, "cast");
  b.output(mean);
  b.output(cast);
  const ge::Graph g13 = b.build();
  const auto m13 = parse(ge::onnx::save_bytes(g13));
  CHECK(opset_of(m13) == 13);
  // ReduceMean keeps axes as an attribute before 18; ReduceSum reads them as input 1.
  CHECK(attribute(node_named(m13, "mean"), "axes") != nullptr);
  const auto& s = node_named(m13, "sum");
  CHECK(attribute(s, "axes") == nullptr);
  REQUIRE(s.input_size() == 2);
  const auto* axes = initializer(m13, s.input(1));
  REQUIRE(axes != nullptr);
  CHECK(axes->data_type() == ::onnx::TensorProto_DataType_INT64);
  // Cast's `to` is the ONNX type number.
  const auto* to = attribute(node_named(m13, "cast"), "to");
  REQUIRE(to != nullptr);
  CHECK(to->type() == ::onnx::AttributeProto_AttributeType_INT);
  CHECK(to->i() == ::onnx::TensorProto_DataType_DOUBLE);
  // ... and everything reads back the same, running the same.
  const ge::Graph back = ge::onnx::load_bytes(ge::onnx::save_bytes(g13));
  CHECK(back.nodes()[2].attrs.at("to").as_string() == "f64");
  std::vector<Input> in{random_f32({2, 3, 4}, 4)};
  CHECK(run(g13, {}, in) == run(back, {}, in));

  // HardSwish needs 14: written as 17. Gelu needs 20; so does ReduceMean then read its
  // axes from an input.
  ge::GraphBuilder h;
  h.output(h.input("x", ge::DataType::f32, "4").hard_swish());
  CHECK(ge::onnx::save_opset(h.build()) == 17);
  ge::GraphBuilder e;
  const auto ex = e.input("x", ge::DataType::f32, "2,3");
  e.output(ex.reduce_mean({1}, true, "mean"));
  e.output(ex.gelu("tanh", "gelu"));
  const auto m20 = parse(ge::onnx::save_bytes(e.build()));
  CHECK(opset_of(m20) == 20);
  CHECK(m20.ir_version() == 9);
  const auto& mean20 = node_named(m20, "mean");
  CHECK(attribute(mean20, "axes") == nullptr);
  REQUIRE(mean20.input_size() == 2);
  CHECK(initializer(m20, mean20.input(1)) != nullptr);
  CHECK(attribute(node_named(m20, "gelu"), "approximate")->s() == "tanh");
  // ... and reads back at opset 20 (ReduceMean's axes as input 1), running the same.
  const ge::Graph g20 = e.build();
  const ge::Graph back20 = load_back(ge::onnx::save_bytes(g20));
  const ge::Node& mean_back = back20.nodes()[0];
  CHECK(mean_back.op == "ReduceMean");
  REQUIRE(mean_back.inputs.size() == 2);
  REQUIRE(back20.constant_of(mean_back.inputs[1]) != nullptr);
  CHECK(back20.constant_of(mean_back.inputs[1])->to_int64s() == std::vector<std::int64_t>{1});
  std::vector<Input> in20{random_f32({2, 3}, 5)};
  CHECK(run(narrowed(g20), {}, in20) == run(back20, {}, in20));
}

TEST_CASE("onnx save: files") {
  TempDir dir("ge_onnx_save_test");
  const ge::Graph g = ge::models::mobilenet_v2("1,3,32,32");
  const auto file = dir.path / "m.onnx";
  ge::onnx::save(g, file);
  CHECK(fs::file_size(file) == ge::onnx::save_bytes(g).size());
  check_same_graph(g, ge::onnx::load(file));
  ge::onnx::save(ge::models::resnet50("1,3,32,32"), file);  // replaces it
  CHECK(ge::onnx::load(file).nodes().size() == ge::models::resnet50("1,3,32,32").nodes().size());

  expect_error([&] { ge::onnx::save(g, dir.path / "no such dir" / "m.onnx"); }, ge::Errc::invalid_argument,
               "[ge.onnx] cannot write", "no such dir", "writable");
  expect_error([&] { ge::onnx::save(g, dir.path); }, ge::Errc::invalid_argument, "cannot write");
}

TEST_CASE("onnx save: ops that are not ONNX ops are refused, each named once") {
  ge::Graph g;
  const auto x = g.add_input("x", ge::DataType::f32, ge::Shape{1, 1, 4, 4});
  const auto w = g.add_constant("w", ge::Tensor::random(ge::DataType::f32, {1, 1, 3, 3}, 1));
  const auto y = g.declare_value("y", {ge::DataType::f32, ge::Shape{1, 1, 2, 2}});
  const auto z = g.declare_value("z", {ge::DataType::f32, ge::Shape{1, 1, 2, 2}});
  (void)g.add_node("conv.fused", "FusedConv", {x, w}, {y}, {{"activation", "Relu"}, {"kernel_shape", {3, 3}}});
  (void)g.add_node("conv.fused2", "FusedConv", {y, w}, {z}, {{"kernel_shape", {1, 1}}});
  g.add_output(z);
  for (int i = 0; i < 2; ++i)
    expect_error(
        [&] {
          if (i == 0)
            (void)ge::onnx::save_bytes(g);
          else
            (void)ge::onnx::save_opset(g);
        },
        ge::Errc::unsupported_op, "[ge.onnx] cannot save the graph: 1 op type(s)", "'FusedConv' (node 'conv.fused',",
        "before ge::compile");
  TempDir dir("ge_onnx_save_test");
  expect_error([&] { ge::onnx::save(g, dir.path / "f.onnx"); }, ge::Errc::unsupported_op, "FusedConv");
  CHECK_FALSE(fs::exists(dir.path / "f.onnx"));  // nothing written
}

TEST_CASE("onnx save: EyeLike's dtype is the ONNX type number; ScatterND's reduction raises the opset") {
  ge::GraphBuilder b;
  const auto x = b.input("x", ge::DataType::f32, "3,4");
  b.output(b.op("EyeLike", {x}, {{"dtype", std::string("i32")}, {"k", std::int64_t{1}}}, "eye"));
  const ge::Graph g = b.build();
  const auto m = parse(ge::onnx::save_bytes(g));
  const auto* dtype = attribute(node_named(m, "eye"), "dtype");
  REQUIRE(dtype != nullptr);
  CHECK(dtype->type() == ::onnx::AttributeProto_AttributeType_INT);
  CHECK(dtype->i() == ::onnx::TensorProto_DataType_INT32);
  const ge::Graph back = ge::onnx::load_bytes(ge::onnx::save_bytes(g));
  CHECK(back.nodes()[0].attrs.at("dtype").as_string() == "i32");
  CHECK(back.value(back.outputs()[0]).desc.dtype == ge::DataType::i32);
  // ScatterND's add and mul need opset 16 (written as 17), max and min 18 (written as 20).
  for (const char* red : {"add", "max"}) {
    ge::GraphBuilder s;
    const auto data = s.input("data", ge::DataType::f32, "4,3");
    const auto idx = s.input("idx", ge::DataType::i64, "2,1");
    const auto upd = s.input("upd", ge::DataType::f32, "2,3");
    s.output(s.op("ScatterND", {data, idx, upd}, {{"reduction", std::string(red)}}));
    CHECK(ge::onnx::save_opset(s.build()) == (std::string(red) == "add" ? 17 : 20));
  }
}

TEST_CASE("onnx save: issue #17's ops are written and read back, running the same") {
  ge::GraphBuilder b;
  const auto x = b.input("x", ge::DataType::f32, "2,3");
  const auto tiled = b.op("Tile", {x, b.constant("reps", ge::Tensor::from<std::int64_t>({2}, {2, 1}))}, {}, "tile");
  const auto mish = b.op("Mish", {tiled}, {}, "mish");
  const auto sin = b.op("Sin", {mish}, {}, "sin");
  b.output(b.op("Trilu", {sin}, {{"upper", std::int64_t{0}}}, "trilu"));
  const ge::Graph g = b.build();
  CHECK(ge::onnx::save_opset(g) == 20);  // Mish needs 18
  const ge::Graph back = ge::onnx::load_bytes(ge::onnx::save_bytes(g));
  std::vector<Input> in{random_f32({2, 3}, 7)};
  CHECK(run(g, {}, in) == run(back, {}, in));
}

TEST_CASE("onnx save: LRN, MeanVarianceNormalization, Det and HannWindow are written and read back") {
  ge::GraphBuilder b;
  const auto x = b.input("x", ge::DataType::f32, "1,4,3,3");
  const auto lrn = b.op("LRN", {x}, {{"size", std::int64_t{3}}}, "lrn");
  b.output(b.op("MeanVarianceNormalization", {lrn}, {}, "mvn"));
  b.output(b.op("Det", {x}, {}, "det"));
  b.output(b.op("HannWindow", {b.constant("len", ge::Tensor::scalar(std::int64_t{5}))}, {}, "hann"));
  const ge::Graph g = b.build();
  CHECK(ge::onnx::save_opset(g) == 17);  // the window functions need 17
  const ge::Graph back = ge::onnx::load_bytes(ge::onnx::save_bytes(g));
  std::vector<Input> in{random_f32({1, 4, 3, 3}, 3)};
  CHECK(run(g, {}, in) == run(back, {}, in));
}

TEST_CASE("onnx save: the quantization ops are written and read back") {
  ge::GraphBuilder b;
  const auto x = b.input("x", ge::DataType::f32, "2,3");
  const auto scale = b.constant("scale", ge::Tensor::from<float>({3}, {0.5f, 0.25f, 0.1f}));
  const auto zp = b.constant("zp", ge::Tensor::from<std::int8_t>({3}, {1, -2, 3}));
  const auto q = b.op("QuantizeLinear", {x, scale, zp}, {{"axis", std::int64_t{1}}}, "q");
  b.output(b.op("DequantizeLinear", {q, scale, zp}, {{"axis", std::int64_t{1}}}, "dq"));
  const ge::Graph g = b.build();
  const ge::Graph back = ge::onnx::load_bytes(ge::onnx::save_bytes(g));
  CHECK(back.nodes()[0].op == "QuantizeLinear");
  CHECK(back.value(back.outputs()[0]).desc.dtype == ge::DataType::f32);
  std::vector<Input> in{random_f32({2, 3}, 7)};
  CHECK(run(g, {}, in) == run(back, {}, in));
}
