// Shape and type inference of the ops of src/ops/elementwise_math.cpp and of Sum and Mean,
// with every refusal of a bad attribute or input.
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::DataType;
using ge::Errc;

TEST_CASE("the math and activation maps keep the shape and type; they take floats") {
  for (const char* op : {"Reciprocal", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh",
                         "Atanh", "Softplus", "Softsign", "Mish", "Round", "Floor", "Ceil", "Elu", "Selu", "Celu",
                         "ThresholdedRelu", "Shrink", "Sign"}) {
    CAPTURE(op);
    CHECK(shape0(op, {t("f32", "1~8,3,-1")}) == "1~8,3,-1");
    CHECK(shape0(op, {t("f64", "")}) == "");
    CHECK(infer(op, {t("f16", "4")})[0].dtype == DataType::f16);
    check_infer_error(op, {t("bool", "3")}, {}, Errc::type_mismatch, "input 0 (X) is bool");
  }
  CHECK(infer("Sign", {t("i32", "2")})[0].dtype == DataType::i32);
  check_infer_error("Floor", {t("i64", "3")}, {}, Errc::type_mismatch, "input 0 (X) is i64");
}

TEST_CASE("the activations' attributes are checked") {
  CHECK(shape0("Elu", {t("f32", "3")}, {{"alpha", 0.5}}) == "3");
  CHECK(shape0("Selu", {t("f32", "3")}, {{"alpha", 1.5}, {"gamma", 2.0}}) == "3");
  CHECK(shape0("Shrink", {t("f32", "3")}, {{"lambd", 1.0}, {"bias", 0.5}}) == "3");
  check_infer_error("Celu", {t("f32", "3")}, {{"alpha", 0.0}}, Errc::bad_attribute, "'alpha'", "non-zero");
  check_infer_error("Elu", {t("f32", "3")}, {{"gamma", 1.0}}, Errc::bad_attribute, "'gamma'");
  check_infer_error("Selu", {t("f32", "3")}, {{"alpha", "x"}}, Errc::bad_attribute, "'alpha'", "float");
  check_infer_error("ThresholdedRelu", {t("f32", "3")}, {{"alpah", 1.0}}, Errc::bad_attribute, "'alpha'");
  check_infer_error("Shrink", {t("f32", "3")}, {{"lambda", 1.0}}, Errc::bad_attribute, "'lambda'");
}

TEST_CASE("IsNaN and IsInf give bool of X's shape; IsInf's detect flags are 0 or 1") {
  for (const char* op : {"IsNaN", "IsInf"}) {
    const auto y = infer(op, {t("f32", "2,1~4")});
    CHECK(y[0].dtype == DataType::boolean);
    CHECK(y[0].shape.to_string() == "2,1~4");
    check_infer_error(op, {t("i32", "3")}, {}, Errc::type_mismatch, "is i32");
  }
  CHECK(shape0("IsInf", {t("f64", "3")}, {{"detect_negative", 0}, {"detect_positive", 1}}) == "3");
  check_infer_error("IsInf", {t("f32", "3")}, {{"detect_negative", 2}}, Errc::bad_attribute, "'detect_negative'",
                    "[0, 1]");
  check_infer_error("IsInf", {t("f32", "3")}, {{"detect_positive", -1}}, Errc::bad_attribute, "'detect_positive'");
}

TEST_CASE("PRelu: the slope broadcasts to X one way only") {
  CHECK(shape0("PRelu", {t("f32", "2,3,4,5"), t("f32", "3,1,1")}) == "2,3,4,5");
  CHECK(shape0("PRelu", {t("f32", "2,3"), t("f32", "")}) == "2,3");
  CHECK(shape0("PRelu", {t("f32", "-1,3"), t("f32", "3")}) == "-1,3");
  check_infer_error("PRelu", {t("f32", "2,1"), t("f32", "2,4")}, {}, Errc::incompatible_shapes, "slope [2,4]",
                    "X [2,1]");
  check_infer_error("PRelu", {t("f32", "3"), t("f32", "2,3")}, {}, Errc::incompatible_shapes, "slope [2,3]");
  check_infer_error("PRelu", {t("f32", "2,3,4"), t("f32", "3")}, {}, Errc::incompatible_shapes, "broadcast");
  check_infer_error("PRelu", {t("f32", "3"), t("f64", "3")}, {}, Errc::type_mismatch, "input 1 (slope) is f64");
}

TEST_CASE("And, Or, Xor take bool; the ordered comparisons numbers; all give bool, broadcast") {
  for (const char* op : {"And", "Or", "Xor"}) {
    CAPTURE(op);
    const auto y = infer(op, {t("bool", "2,1"), t("bool", "1~3")});
    CHECK(y[0].dtype == DataType::boolean);
    CHECK(y[0].shape.to_string() == "2,1~3");
    check_infer_error(op, {t("f32", "2"), t("f32", "2")}, {}, Errc::type_mismatch, "is f32");
    check_infer_error(op, {t("bool", "2"), t("bool", "3")}, {}, Errc::incompatible_shapes, "broadcast");
  }
  for (const char* op : {"LessOrEqual", "GreaterOrEqual"}) {
    CAPTURE(op);
    CHECK(infer(op, {t("i64", "4,1"), t("i64", "5")})[0].shape.to_string() == "4,5");
    CHECK(infer(op, {t("f32", "2"), t("f32", "2")})[0].dtype == DataType::boolean);
    check_infer_error(op, {t("bool", "2"), t("bool", "2")}, {}, Errc::type_mismatch, "is bool");
  }
}

TEST_CASE("BitShift: unsigned integers, direction LEFT or RIGHT and nothing else") {
  const auto y = infer("BitShift", {t("u8", "3,1"), t("u8", "4")}, {{"direction", "LEFT"}});
  CHECK(y[0].dtype == DataType::u8);
  CHECK(y[0].shape.to_string() == "3,4");
  CHECK(shape0("BitShift", {t("u64", "2"), t("u64", "")}, {{"direction", "RIGHT"}}) == "2");
  check_infer_error("BitShift", {t("u8", "3"), t("u8", "3")}, {{"direction", "UP"}}, Errc::bad_attribute,
                    "'direction'", "\"UP\"", "LEFT, RIGHT");
  check_infer_error("BitShift", {t("u8", "3"), t("u8", "3")}, {{"direction", "left"}}, Errc::bad_attribute,
                    "'direction'");
  check_infer_error("BitShift", {t("u8", "3"), t("u8", "3")}, {}, Errc::bad_attribute, "'direction'");
  check_infer_error("BitShift", {t("i32", "3"), t("i32", "3")}, {{"direction", "LEFT"}}, Errc::type_mismatch,
                    "is i32");
}

TEST_CASE("Sum and Mean take 1 to N float inputs and broadcast all of them") {
  for (const char* op : {"Sum", "Mean"}) {
    CAPTURE(op);
    CHECK(shape0(op, {t("f32", "2,3")}) == "2,3");
    CHECK(shape0(op, {t("f32", "2,1"), t("f32", "3"), t("f32", "1~4,1,1")}) == "1~4,2,3");
    check_infer_error(op, {}, {}, Errc::bad_op_inputs, "input");
    check_infer_error(op, {t("f32", "2"), t("f32", "3")}, {}, Errc::incompatible_shapes, "broadcast");
    check_infer_error(op, {t("i64", "2")}, {}, Errc::type_mismatch, "is i64");
  }
}
