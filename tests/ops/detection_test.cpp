// Shape inference of NonMaxSuppression, RoiAlign and GridSample and their attribute checks.
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

TEST_CASE("NonMaxSuppression: a run-time count of (batch, class, box) rows; attribute and input checks") {
  CHECK(shape0("NonMaxSuppression", {t("f32", "2,5,4"), t("f32", "2,3,5"), t("i64", "1"), t("f32", "1"), t("f32", "")}) ==
        "0~30,3");
  CHECK(shape0("NonMaxSuppression", {t("f32", "1,6,4"), t("f32", "1,1,6")}) == "0~6,3");
  check_infer_error("NonMaxSuppression", {t("f32", "1,6,4"), t("f32", "1,1,6")}, {{"center_point_box", 2}},
                    Errc::bad_attribute, "'center_point_box'");
  check_infer_error("NonMaxSuppression", {t("f32", "1,6,5"), t("f32", "1,1,6")}, {}, Errc::bad_op_inputs, "boxes");
  check_infer_error("NonMaxSuppression", {t("f32", "1,6,4"), t("f32", "1,1,7")}, {}, Errc::bad_op_inputs, "box count");
  check_infer_error("NonMaxSuppression", {t("f32", "1,6,4"), t("f32", "1,1,6"), t("i64", "2")}, {}, Errc::bad_op_inputs,
                    "max_output_boxes_per_class");
}

TEST_CASE("RoiAlign and GridSample: shapes and attribute checks") {
  CHECK(shape0("RoiAlign", {t("f32", "1,3,10,10"), t("f32", "5,4"), t("i64", "5")},
               {{"output_height", 2}, {"output_width", 3}}) == "5,3,2,3");
  check_infer_error("RoiAlign", {t("f32", "1,3,10,10"), t("f32", "5,4"), t("i64", "5")}, {{"mode", std::string("sum")}},
                    Errc::bad_attribute, "'mode'");
  check_infer_error("RoiAlign", {t("f32", "1,3,10,10"), t("f32", "5,4"), t("i64", "5")},
                    {{"coordinate_transformation_mode", std::string("asymmetric")}}, Errc::bad_attribute,
                    "'coordinate_transformation_mode'");
  check_infer_error("RoiAlign", {t("f32", "1,3,10,10"), t("f32", "5,4"), t("i64", "5")}, {{"output_height", 0}},
                    Errc::bad_attribute, "'output_height'");
  check_infer_error("RoiAlign", {t("f32", "1,3,10,10"), t("f32", "5,4"), t("i64", "5")}, {{"sampling_ratio", -1}},
                    Errc::bad_attribute, "'sampling_ratio'");
  check_infer_error("RoiAlign", {t("f32", "1,3,10,10"), t("f32", "5,4"), t("i64", "4")}, {}, Errc::bad_op_inputs,
                    "batch_indices");
  CHECK(shape0("GridSample", {t("f32", "2,3,10,10"), t("f32", "2,4,5,2")}) == "2,3,4,5");
  check_infer_error("GridSample", {t("f32", "2,3,10,10"), t("f32", "2,4,5,2")}, {{"mode", std::string("area")}},
                    Errc::bad_attribute, "'mode'");
  check_infer_error("GridSample", {t("f32", "2,3,10,10"), t("f32", "2,4,5,2")}, {{"padding_mode", std::string("wrap")}},
                    Errc::bad_attribute, "'padding_mode'");
  check_infer_error("GridSample", {t("f32", "2,3,10,10"), t("f32", "2,4,5,2")}, {{"align_corners", 2}},
                    Errc::bad_attribute, "'align_corners'");
  check_infer_error("GridSample", {t("f32", "2,3,10,10"), t("f32", "2,4,5,3")}, {}, Errc::bad_op_inputs, "grid");
}
