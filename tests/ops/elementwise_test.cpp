// Shape and type inference of the elementwise ops.
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

TEST_CASE("unary ops keep the shape: fixed, ranged, unknown dims and unknown rank") {
  for (const char* op : {"Sqrt", "Exp", "Log", "Neg", "Abs", "Erf", "Tanh", "Sigmoid", "Relu", "HardSwish", "Identity",
                         "LeakyRelu", "Gelu"}) {
    CAPTURE(op);
    CHECK(shape0(op, {t("f32", "2,3")}) == "2,3");
    CHECK(shape0(op, {t("f32", "1~8,3,-1")}) == "1~8,3,-1");
    CHECK(shape0(op, {t("f32", "-2")}) == "-2");
    CHECK(shape0(op, {t("f32", "")}) == "");
    CHECK(infer(op, {t("f16", "4")})[0].dtype == ge::DataType::f16);
  }
}

TEST_CASE("unary ops check data types and attributes") {
  check_infer_error("Sqrt", {t("i64", "3")}, {}, Errc::type_mismatch, "input 0 (X) is i64", "f32");
  check_infer_error("Relu", {t("f32", "3")}, {{"alpha", 1.0}}, Errc::bad_attribute, "unknown attribute 'alpha'");
  check_infer_error("LeakyRelu", {t("f32", "3")}, {{"alpah", 0.2}}, Errc::bad_attribute, "did you mean 'alpha'");
  check_infer_error("LeakyRelu", {t("f32", "3")}, {{"alpha", "big"}}, Errc::bad_attribute, "'alpha'", "expected float");
  check_infer_error("Gelu", {t("f32", "3")}, {{"approximate", "fast"}}, Errc::bad_attribute, "'approximate'",
                    "none, tanh");
  check_infer_error("Exp", {t("f32", "3"), t("f32", "3")}, {}, Errc::bad_op_inputs, "at most 1 input");
  check_infer_error("Exp", {}, {}, Errc::bad_op_inputs, "takes 1 input");
  CHECK(shape0("Identity", {t("bool", "2")}) == "2");
  CHECK(infer("LeakyRelu", {t("f32", "3")}, {{"alpha", 1}})[0].shape.to_string() == "3");  // int widens to float
}

TEST_CASE("binary ops broadcast like numpy over ranges and unknown rank") {
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow"}) {
    CAPTURE(op);
    CHECK(shape0(op, {t("f32", "2,3"), t("f32", "2,3")}) == "2,3");
    CHECK(shape0(op, {t("f32", "1~8,1,5"), t("f32", "4,1")}) == "1~8,4,5");
    CHECK(shape0(op, {t("f32", "-1,3"), t("f32", "3")}) == "-1,3");
    CHECK(shape0(op, {t("f32", "-2"), t("f32", "3")}) == "-2");
    CHECK(shape0(op, {t("f32", ""), t("f32", "7")}) == "7");
  }
  check_infer_error("Add", {t("f32", "2,3"), t("f32", "4")}, {}, Errc::incompatible_shapes, "do not broadcast",
                    "'2,3'");
  check_infer_error("Add", {t("f32", "3"), t("i64", "3")}, {}, Errc::type_mismatch, "input 1 (B) is i64",
                    "input 0 (A) is f32");
  CHECK(infer("Pow", {t("f32", "3"), t("i64", "")})[0].dtype == ge::DataType::f32);  // exponent type T1
}

TEST_CASE("comparisons give bool; Where broadcasts all three") {
  for (const char* op : {"Equal", "Less", "Greater"}) {
    CAPTURE(op);
    const auto out = infer(op, {t("f32", "1~4,3"), t("f32", "3")});
    CHECK(out[0].dtype == ge::DataType::boolean);
    CHECK(out[0].shape.to_string() == "1~4,3");
  }
  CHECK(infer("Equal", {t("bool", "2"), t("bool", "2")})[0].dtype == ge::DataType::boolean);
  check_infer_error("Less", {t("bool", "2"), t("bool", "2")}, {}, Errc::type_mismatch, "is bool");
  const auto w = infer("Where", {t("bool", "-1,1,4"), t("f32", "3,1"), t("f32", "")});
  CHECK(w[0].dtype == ge::DataType::f32);
  CHECK(w[0].shape.to_string() == "-1,3,4");
  CHECK(shape0("Where", {t("bool", "-2"), t("f32", "3"), t("f32", "3")}) == "-2");
  check_infer_error("Where", {t("f32", "3"), t("f32", "3"), t("f32", "3")}, {}, Errc::type_mismatch,
                    "input 0 (condition) is f32", "expected bool");
  check_infer_error("Where", {t("bool", "2"), t("f32", "3"), t("f32", "3")}, {}, Errc::incompatible_shapes,
                    "broadcast");
}

TEST_CASE("Clip takes optional scalar bounds") {
  CHECK(shape0("Clip", {t("f32", "1~8,32,112,112")}) == "1~8,32,112,112");
  CHECK(shape0("Clip", {t("f32", "-2"), t("f32", ""), t("f32", "")}) == "-2");
  CHECK(shape0("Clip", {t("f32", "4"), ge_test::none(), t("f32", "1")}) == "4");
  check_infer_error("Clip", {t("f32", "4"), t("f32", "2")}, {}, Errc::bad_op_inputs, "input 1 (min)", "scalar");
  check_infer_error("Clip", {t("f32", "4"), t("f64", "")}, {}, Errc::type_mismatch, "input 1 (min) is f64");
}

TEST_CASE("Cast changes the type, keeps the shape") {
  const auto out = infer("Cast", {t("i64", "1~8,-1")}, {{"to", "f32"}});
  CHECK(out[0].dtype == ge::DataType::f32);
  CHECK(out[0].shape.to_string() == "1~8,-1");
  CHECK(infer("Cast", {t("f32", "-2")}, {{"to", "bool"}})[0].shape.to_string() == "-2");
  check_infer_error("Cast", {t("f32", "2")}, {}, Errc::bad_attribute, "'to' is required");
  check_infer_error("Cast", {t("f32", "2")}, {{"to", "float128"}}, Errc::bad_attribute, "\"float128\"",
                    "data type name");
}

TEST_CASE("Softmax and LogSoftmax check the axis against the rank") {
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    CAPTURE(op);
    CHECK(shape0(op, {t("f32", "1~8,4,-1,-1")}) == "1~8,4,-1,-1");
    CHECK(shape0(op, {t("f32", "2,3")}, {{"axis", -2}}) == "2,3");
    CHECK(shape0(op, {t("f32", "-2")}, {{"axis", 7}}) == "-2");  // rank unknown: checked later
    check_infer_error(op, {t("f32", "2,3")}, {{"axis", 2}}, Errc::bad_attribute, "axis 2", "[-2, 1]");
    check_infer_error(op, {t("f32", "")}, {}, Errc::bad_op_inputs, "rank 0", "rank >= 1");
  }
}
