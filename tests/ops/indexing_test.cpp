// Shape inference of GatherElements, ScatterElements and Size.
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

TEST_CASE("GatherElements, ScatterElements and Size: shapes, axis and reduction checks") {
  CHECK(shape0("GatherElements", {t("f32", "3,4"), t("i64", "2,4")}, {{"axis", 0}}) == "2,4");
  CHECK(shape0("GatherElements", {t("i32", "3,4"), t("i32", "3,1~9")}, {{"axis", -1}}) == "3,1~9");
  check_infer_error("GatherElements", {t("f32", "3,4"), t("i64", "3,4")}, {{"axis", 2}}, Errc::bad_attribute,
                    "axis 2");
  check_infer_error("GatherElements", {t("f32", "3,4"), t("i64", "3")}, {}, Errc::bad_op_inputs, "equal ranks");
  CHECK(shape0("ScatterElements", {t("f32", "3,4"), t("i64", "2,2"), t("f32", "2,2")}, {{"axis", 1}}) == "3,4");
  check_infer_error("ScatterElements", {t("f32", "3,4"), t("i64", "2,2"), t("f32", "2,2")}, {{"axis", -3}},
                    Errc::bad_attribute, "axis -3");
  check_infer_error("ScatterElements", {t("f32", "3,4"), t("i64", "2,2"), t("f32", "2,2")},
                    {{"reduction", std::string("sum")}}, Errc::bad_attribute, "'reduction'");
  check_infer_error("ScatterElements", {t("f32", "3,4"), t("i64", "2,2"), t("f32", "2,3")}, {}, Errc::bad_op_inputs, "updates dim 1");
  const auto out = infer("Size", {t("f32", "2,1~5")});
  CHECK(out[0].dtype == ge::DataType::i64);
  CHECK(out[0].shape.to_string() == "");
}
