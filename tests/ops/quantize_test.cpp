// Shape inference of the linear quantization ops and their attribute and input checks.
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

TEST_CASE("QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear: types, shapes, per-axis checks") {
  const auto q = infer("QuantizeLinear", {t("f32", "2,3"), t("f32", ""), t("i8", "")});
  CHECK(q[0].dtype == ge::DataType::i8);
  CHECK(q[0].shape.to_string() == "2,3");
  CHECK(infer("QuantizeLinear", {t("f32", "2,3"), t("f32", "")})[0].dtype == ge::DataType::u8);
  CHECK(shape0("QuantizeLinear", {t("f32", "2,3"), t("f32", "3"), t("u8", "3")}) == "2,3");
  CHECK(shape0("QuantizeLinear", {t("f32", "2,3"), t("f32", "2")}, {{"axis", 0}}) == "2,3");
  check_infer_error("QuantizeLinear", {t("f32", "2,3"), t("f32", "3")}, {{"axis", 2}}, Errc::bad_attribute, "axis 2");
  check_infer_error("QuantizeLinear", {t("f32", "2,3"), t("f32", "4")}, {}, Errc::bad_op_inputs, "y_scale");
  check_infer_error("QuantizeLinear", {t("f32", "2,3"), t("f32", "2,3")}, {}, Errc::bad_op_inputs, "y_scale");
  check_infer_error("QuantizeLinear", {t("f32", "2,3"), t("f32", ""), t("i32", "")}, {}, Errc::type_mismatch,
                    "y_zero_point");
  CHECK(infer("DequantizeLinear", {t("u8", "4"), t("f32", "")})[0].dtype == ge::DataType::f32);
  check_infer_error("DequantizeLinear", {t("i8", "2,3"), t("f32", "2"), t("i8", "2")}, {{"axis", -3}},
                    Errc::bad_attribute, "axis -3");
  check_infer_error("DequantizeLinear", {t("i8", "2,3"), t("f32", ""), t("u8", "")}, {}, Errc::type_mismatch, "");
  const auto d = infer("DynamicQuantizeLinear", {t("f32", "2,3")}, {}, 3);
  CHECK(d[0].dtype == ge::DataType::u8);
  CHECK(d[1].shape.to_string().empty());
}

TEST_CASE("MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv: MatMul's and Conv's shape rules") {
  CHECK(shape0("MatMulInteger", {t("u8", "2,3,4"), t("i8", "4,5")}) == "2,3,5");
  CHECK(infer("MatMulInteger", {t("u8", "3,4"), t("u8", "4,5")})[0].dtype == ge::DataType::i32);
  check_infer_error("MatMulInteger", {t("u8", "3,4"), t("u8", "3,5")}, {}, Errc::bad_op_inputs, "");
  const auto qm = infer("QLinearMatMul", {t("u8", "2,4"), t("f32", ""), t("u8", ""), t("i8", "4,3"), t("f32", ""),
                                          t("i8", ""), t("f32", ""), t("i8", "")});
  CHECK(qm[0].dtype == ge::DataType::i8);
  CHECK(qm[0].shape.to_string() == "2,3");
  check_infer_error("QLinearMatMul", {t("u8", "2,4"), t("f32", ""), t("u8", ""), t("u8", "4,3"), t("f32", ""),
                                      t("u8", ""), t("f32", "3"), t("u8", "")},
                    {}, Errc::bad_op_inputs, "y_scale");
  CHECK(shape0("ConvInteger", {t("u8", "1,1,3,3"), t("u8", "1,1,2,2")}) == "1,1,2,2");
  CHECK(shape0("ConvInteger", {t("u8", "1,1,3,3"), t("u8", "1,1,2,2")}, {{"pads", std::vector<std::int64_t>{1, 1, 1, 1}}}) ==
        "1,1,4,4");
  check_infer_error("ConvInteger", {t("u8", "1,1,3,3"), t("u8", "1,1,2,2")}, {{"auto_pad", std::string("SAME")}},
                    Errc::bad_attribute, "'auto_pad'");
  check_infer_error("ConvInteger", {t("u8", "1,2,3,3"), t("u8", "2,1,2,2")}, {{"group", 0}}, Errc::bad_attribute,
                    "'group'");
  check_infer_error("ConvInteger", {t("u8", "1,1,3,3"), t("u8", "1,1,2,2"), t("u8", "2")}, {}, Errc::bad_op_inputs,
                    "x_zero_point");
  const auto qc = infer("QLinearConv", {t("u8", "1,1,7,7"), t("f32", ""), t("u8", ""), t("u8", "1,1,1,1"), t("f32", "1"),
                                        t("u8", "1"), t("f32", ""), t("u8", "")});
  CHECK(qc[0].dtype == ge::DataType::u8);
  CHECK(qc[0].shape.to_string() == "1,1,7,7");
  check_infer_error("QLinearConv", {t("u8", "1,1,7,7"), t("f32", ""), t("u8", ""), t("u8", "1,1,1,1"), t("f32", ""),
                                    t("u8", ""), t("f32", ""), t("u8", "")},
                    {{"strides", std::vector<std::int64_t>{0, 1}}}, Errc::bad_attribute, "'strides'");
}
