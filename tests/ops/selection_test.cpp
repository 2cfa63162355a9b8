// Shape inference of GatherND, ScatterND, Compress, ReverseSequence and Unique.
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

TEST_CASE("GatherND and ScatterND: shapes, batch_dims, tuple length and reduction checks") {
  CHECK(shape0("GatherND", {t("f32", "2,3,4"), t("i64", "5,2")}) == "5,4");
  CHECK(shape0("GatherND", {t("f32", "2,3,4"), t("i64", "2,1")}, {{"batch_dims", 1}}) == "2,4");
  check_infer_error("GatherND", {t("f32", "2,3"), t("i64", "5,3")}, {}, Errc::bad_op_inputs, "tuple length");
  check_infer_error("GatherND", {t("f32", "2,3"), t("i64", "2,1")}, {{"batch_dims", 2}}, Errc::bad_attribute,
                    "'batch_dims'");
  check_infer_error("GatherND", {t("f32", "2,3"), t("i64", "2,1")}, {{"batch_dims", -1}}, Errc::bad_attribute,
                    "'batch_dims'");
  CHECK(shape0("ScatterND", {t("f32", "4,3"), t("i64", "2,1"), t("f32", "2,3")}) == "4,3");
  check_infer_error("ScatterND", {t("f32", "4,3"), t("i64", "2,1"), t("f32", "2,3")},
                    {{"reduction", std::string("sum")}}, Errc::bad_attribute, "'reduction'");
  check_infer_error("ScatterND", {t("f32", "4,3"), t("i64", "2,1"), t("f32", "2")}, {}, Errc::bad_op_inputs, "updates");
}

TEST_CASE("Compress, ReverseSequence and Unique: shapes, axis and attribute checks") {
  CHECK(shape0("Compress", {t("f32", "3,4"), t("bool", "2")}, {{"axis", 1}}) == "3,0~2");
  CHECK(shape0("Compress", {t("f32", "3,4"), t("bool", "5")}) == "0~5");
  check_infer_error("Compress", {t("f32", "3,4"), t("bool", "2")}, {{"axis", 2}}, Errc::bad_attribute, "axis 2");
  CHECK(shape0("ReverseSequence", {t("f32", "5,3,2"), t("i64", "3")}) == "5,3,2");
  check_infer_error("ReverseSequence", {t("f32", "5,3"), t("i64", "3")}, {{"time_axis", 1}}, Errc::bad_attribute,
                    "'time_axis' and 'batch_axis'");
  check_infer_error("ReverseSequence", {t("f32", "5,3"), t("i64", "3")}, {{"batch_axis", 2}}, Errc::bad_attribute,
                    "'batch_axis'");
  check_infer_error("ReverseSequence", {t("f32", "5,3"), t("i64", "4")}, {}, Errc::bad_op_inputs, "sequence_lens");
  const auto u = infer("Unique", {t("f32", "2,3")}, {{"axis", 1}}, 4);
  CHECK(u[0].shape.to_string() == "2,0~3");
  CHECK(u[2].shape.to_string() == "3");
  CHECK(shape0("Unique", {t("f32", "2,3")}) == "0~6");
  check_infer_error("Unique", {t("f32", "2,3")}, {{"axis", -3}}, Errc::bad_attribute, "axis -3");
  check_infer_error("Unique", {t("f32", "2,3")}, {{"sorted", 2}}, Errc::bad_attribute, "'sorted'");
}
