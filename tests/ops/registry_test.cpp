// ge::OpRegistry, user ops, ops_table, and the generic checks of infer_outputs.
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

TEST_CASE("the global registry holds every op the issue lists") {
  const auto& r = ge::OpRegistry::global();
  for (const char* op :
       {"Conv", "ConvTranspose", "MatMul", "Gemm", "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Exp", "Log", "Neg", "Abs",
        "Erf", "Tanh", "Sigmoid", "Relu", "Clip", "LeakyRelu", "Gelu", "HardSwish", "Softmax", "LogSoftmax",
        "LayerNormalization", "BatchNormalization", "MaxPool", "AveragePool", "GlobalAveragePool", "ReduceMean",
        "ReduceSum", "ReduceMax", "Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze", "Concat", "Split", "Slice",
        "Gather", "Expand", "Where", "Equal", "Less", "Greater", "Cast", "Shape", "ConstantOfShape", "Identity", "Pad",
        "Resize", "NonZero", "TopK", "ArgMax", "Range", "HardSigmoid", "Not", "Mod", "Min", "Max",
        "InstanceNormalization", "Trilu", "Einsum",
        // issue #17's element-wise and activation family
        "Sum", "Mean", "BitShift", "And", "Or", "Xor", "IsNaN", "IsInf", "Sign", "Round", "Floor", "Ceil", "Reciprocal",
        "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Softplus", "Softsign",
        "Elu", "Selu", "Celu", "ThresholdedRelu", "PRelu", "Mish", "Shrink", "LessOrEqual", "GreaterOrEqual",
        // issue #17's reductions
        "ReduceMin", "ReduceProd", "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ArgMin",
        "CumSum",
        // issue #17's data movement
        "GatherElements", "ScatterElements", "Size", "Tile", "DepthToSpace", "SpaceToDepth",
        // issue #17's losses
        "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss",
        // issue #17's one-hot and pass-through ops
        "Hardmax", "EyeLike", "OneHot", "Dropout", "CastLike", "GlobalMaxPool",
        // issue #17's tuple indexing and selection
        "GatherND", "ScatterND", "Compress", "ReverseSequence", "Unique",
        // issue #17's further network ops
        "LRN", "MeanVarianceNormalization", "BlackmanWindow", "HammingWindow", "HannWindow", "Det", "MaxUnpool",
        // issue #17's quantization
        "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "MatMulInteger", "QLinearMatMul", "ConvInteger",
        "QLinearConv",
        // issue #17's detection ops
        "NonMaxSuppression", "RoiAlign", "GridSample",
        // issue #37's control flow
        "If", "Loop", "Scan"}) {
    CAPTURE(op);
    const ge::OpSchema* s = r.try_find(op);
    REQUIRE(s != nullptr);
    CHECK(s->name == op);
    CHECK_FALSE(s->doc.empty());
  }
  const auto names = r.names();
  for (const std::string& op : names) CHECK_MESSAGE(!r.find(op).doc.empty(), op);  // ge's own ops too
  CHECK(names.size() == 163);
  CHECK(std::is_sorted(names.begin(), names.end()));
}

TEST_CASE("unknown ops get the nearest name") {
  const auto& r = ge::OpRegistry::global();
  expect_error([&] { (void)r.find("Softmx"); }, Errc::unknown_op, "'Softmx'", "did you mean 'Softmax'");
  expect_error([&] { (void)r.find("conv"); }, Errc::unknown_op, "did you mean 'Conv'");
  expect_error([&] { (void)r.find("CompletelyDifferentThing"); }, Errc::unknown_op, "gec ops");
  CHECK(r.try_find("Nope") == nullptr);
}

TEST_CASE("engines and in-place flags") {
  const auto& r = ge::OpRegistry::global();
  CHECK(r.find("Conv").engines.to_string() == "vector");
  CHECK(r.find("TopK").engines.to_string() == "host");
  CHECK(r.find("Shape").engines.to_string() == "vector|host");
  REQUIRE(r.find("Relu").in_place.size() == 1);
  CHECK(r.find("Add").in_place.size() == 2);
  CHECK(r.find("Conv").in_place.empty());
}

TEST_CASE("users register their own ops; malformed schemas are refused") {
  ge::OpRegistry r;
  CHECK(r.names().empty());
  ge::OpSchema s;
  s.name = "Swish";
  s.doc = "Y = X * sigmoid(beta * X)";
  s.inputs = {{"X", "T"}};
  s.outputs = {{"Y", "T"}};
  s.types = {{"T", ge::TypeSet::floats()}};
  s.attrs = {{.name = "beta", .kind = ge::AttrKind::floating, .default_value = 1.0}};
  s.in_place = {{0, 0}};
  s.infer = [](const ge::InferContext& c) {
    CHECK(c.f("beta") == 1.0);  // the default is filled in
    return std::vector{c.input(0)};
  };
  r.add(s);
  const std::vector<ge::TensorDesc> in{{ge::DataType::f32, ge::Shape::parse("1~4,8")}};
  CHECK(ge::infer_outputs(r.find("Swish"), "sw", in, {}, {})[0].shape.to_string() == "1~4,8");
  expect_error([&] { r.add(s); }, Errc::duplicate_name, "'Swish'", "already registered");

  auto bad = s;
  bad.name = "";
  expect_error([&] { r.add(bad); }, Errc::invalid_argument, "empty op name");
  bad = s;
  bad.name = "NoInfer";
  bad.infer = nullptr;
  expect_error([&] { r.add(bad); }, Errc::invalid_argument, "'NoInfer'", "no infer");
  bad = s;
  bad.name = "BadType";
  bad.inputs = {{"X", "Q"}};
  expect_error([&] { r.add(bad); }, Errc::invalid_argument, "'Q'");
  bad = s;
  bad.name = "BadOrder";
  bad.inputs = {{"X", "T", true}, {"Y", "T"}};
  expect_error([&] { r.add(bad); }, Errc::invalid_argument, "'Y'", "follows an optional");
  bad = s;
  bad.name = "BadVariadic";
  bad.inputs = {{"X", "T", false, true}, {"Y", "T"}};
  expect_error([&] { r.add(bad); }, Errc::invalid_argument, "variadic but not last");
  bad = s;
  bad.name = "BadDefault";
  bad.attrs = {{.name = "k", .kind = ge::AttrKind::integer, .default_value = "x"}};
  expect_error([&] { r.add(bad); }, Errc::invalid_argument, "'k'", "string");
  bad = s;
  bad.name = "BadInPlace";
  bad.in_place = {{0, 3}};
  expect_error([&] { r.add(bad); }, Errc::invalid_argument, "in-place");
  bad = s;
  bad.name = "NoOutputs";
  bad.outputs = {};
  expect_error([&] { r.add(bad); }, Errc::invalid_argument, "no outputs");
  CHECK(r.names() == std::vector<std::string>{"Swish"});
}

TEST_CASE("an op's origin: ONNX (domain, opsets) or ge's own; malformed ones are refused") {
  CHECK(ge::OpRegistry::global().find("Conv").origin == ge::onnx_op(13));
  CHECK(ge::OpRegistry::global().find("Gelu").origin.to_string() == "onnx 20");
  CHECK(ge::OpRegistry::global().find("Adam").origin.to_string() == "onnx ai.onnx.preview.training 1");
  CHECK(ge::OpRegistry::global().find("FusedConv").origin.internal());
  CHECK(ge::onnx_op(13, 17).to_string() == "onnx 13..17");
  CHECK(ge::OpOrigin{}.to_string() == "unset");
  CHECK(ge::onnx_op(13).onnx_of("ai.onnx"));
  CHECK_FALSE(ge::onnx_op(ge::onnx_training_domain, 1).onnx_of(""));

  ge::OpRegistry r;
  ge::OpSchema s;
  s.name = "Swish";
  s.doc = "Y = X * sigmoid(X)";
  s.inputs = {{"X", "T"}};
  s.outputs = {{"Y", "T"}};
  s.types = {{"T", ge::TypeSet::floats()}};
  s.infer = [](const ge::InferContext& c) { return std::vector{c.input(0)}; };
  const auto refused = [&](const ge::OpOrigin& o, const char* why) {
    CAPTURE(o.to_string());
    auto bad = s;
    bad.origin = o;
    expect_error([&] { r.add(bad); }, Errc::invalid_argument, "'Swish'", why);
  };
  refused(ge::onnx_op(0), "starts at version 0; expected >= 1");
  refused(ge::onnx_op(17, 13), "ends before it starts");
  refused(ge::onnx_op("ai.onnx", 13), "expected \"\" for the default domain");
  refused({.kind = ge::OpOrigin::Kind::internal, .since = 13}, "expected them on ONNX ops only");
  refused({.kind = ge::OpOrigin::Kind::unset, .domain = "com.example"}, "expected them on ONNX ops only");
  CHECK(r.names().empty());
  s.origin = ge::onnx_op(13, 17);
  r.add(s);
  CHECK(r.find("Swish").origin.until == 17);
}

TEST_CASE("ops_table lists every op as data") {
  const auto table = ge::ops_table();
  CHECK(table.size() == ge::OpRegistry::global().names().size());
  const auto conv = std::find_if(table.begin(), table.end(), [](const ge::OpInfo& i) { return i.name == "Conv"; });
  REQUIRE(conv != table.end());
  CHECK(conv->inputs == std::vector<std::string>{"X: T", "W: T", "B?: T"});
  CHECK(conv->outputs == std::vector<std::string>{"Y: T"});
  CHECK(conv->types == std::vector<std::string>{"T: f32|f16|bf16|f64"});
  CHECK(conv->engines == "vector");
  const auto group = std::find_if(conv->attrs.begin(), conv->attrs.end(), [](const ge::OpAttrInfo& a) { return a.name == "group"; });
  REQUIRE(group != conv->attrs.end());
  CHECK(group->kind == "int");
  CHECK(group->default_value == "1");
  const auto concat = std::find_if(table.begin(), table.end(), [](const ge::OpInfo& i) { return i.name == "Concat"; });
  CHECK(concat->inputs == std::vector<std::string>{"inputs...: T"});
  CHECK(concat->attrs.at(0).required);
  const auto relu = std::find_if(table.begin(), table.end(), [](const ge::OpInfo& i) { return i.name == "Relu"; });
  CHECK(relu->in_place == std::vector<std::string>{"Y <- X"});
  // A variadic input's repeats are named by their place.
  const auto max = std::find_if(table.begin(), table.end(), [](const ge::OpInfo& i) { return i.name == "Max"; });
  CHECK(max->in_place == std::vector<std::string>{"max <- data_0[0]", "max <- data_0[1]"});
}

TEST_CASE("infer_outputs: required inputs, attribute kinds, output counts") {
  check_infer_error("Gemm", {t("f32", "2,3"), none()}, {}, Errc::bad_op_inputs, "input 1 (B) is required but omitted");
  check_infer_error("Conv", {t("f32", "1,3,8,8"), t("f32", "4,3,3,3")}, {{"group", 1.5}}, Errc::bad_attribute,
                    "'group' is float", "expected int");
  check_infer_error("Conv", {t("f32", "1,3,8,8"), t("f32", "4,3,3,3")}, {{"strides", "2"}}, Errc::bad_attribute,
                    "'strides'", "expected ints");
  expect_error([] { (void)infer("Relu", {t("f32", "2")}, {}, 2); }, Errc::bad_op_inputs, "asks for 2 output(s)");
  CHECK(infer("TopK", {t("f32", "2,9"), ints({3})}).size() == 2);
  CHECK(infer("MaxPool", {t("f32", "1,1,4,4")}, {{"kernel_shape", {2, 2}}}).size() == 1);  // optional output left out
  // Floats attributes take ints; bool-like ints convert.
  CHECK(ge::TypeSet::floats().to_string() == "f32|f16|bf16|f64");
  CHECK(ge::TypeSet::indices().contains(ge::DataType::i32));
  CHECK_FALSE(ge::TypeSet::indices().contains(ge::DataType::f32));
}

TEST_CASE("every op refuses unknown attributes and attributes of the wrong kind, naming the node") {
  const auto& r = ge::OpRegistry::global();
  for (const std::string& name : r.names()) {
    CAPTURE(name);
    check_infer_error(name, {}, {{"bogus_attr", 1}}, Errc::bad_attribute, "unknown attribute 'bogus_attr'", name);
    for (const ge::AttrSpec& a : r.find(name).attrs) {
      CAPTURE(a.name);
      const ge::Attribute wrong = a.kind == ge::AttrKind::tensor ? ge::Attribute("text") : ge::Attribute(ge::Tensor());
      check_infer_error(name, {}, {{a.name, wrong}}, Errc::bad_attribute, "attribute '" + a.name + "'",
                        "expected " + std::string(ge::to_string(a.kind)));
    }
  }
}
