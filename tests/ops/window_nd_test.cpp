// Shape inference of Conv, ConvTranspose, MaxPool and AveragePool over three spatial dims
// with every window attribute, and their attribute errors in 3-D.
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

TEST_CASE("3-D windows: Conv, ConvTranspose, MaxPool, AveragePool take rank-5 inputs with all attributes") {
  CHECK(shape0("Conv", {t("f32", "2,4,5,6,7"), t("f32", "6,2,3,3,3")},
               {{"group", 2}, {"strides", {1, 2, 2}}, {"dilations", {1, 1, 2}}, {"pads", {1, 1, 1, 1, 1, 1}}}) ==
        "2,6,5,3,3");
  CHECK(shape0("Conv", {t("f32", "1,1,5,5,5"), t("f32", "1,1,3,3,3")}, {{"auto_pad", "SAME_LOWER"}, {"strides", {2, 2, 2}}}) ==
        "1,1,3,3,3");
  CHECK(shape0("ConvTranspose", {t("f32", "1,1,3,4,5"), t("f32", "1,2,3,3,3")}) == "1,2,5,6,7");
  CHECK(shape0("ConvTranspose", {t("f32", "1,1,3,4,5"), t("f32", "1,2,3,3,3")},
               {{"strides", {2, 2, 2}}, {"output_padding", {1, 0, 1}}, {"pads", {1, 1, 1, 1, 1, 1}}}) == "1,2,6,7,10");
  CHECK(shape0("MaxPool", {t("u8", "1,3,8,8,8")},
               {{"kernel_shape", {2, 2, 2}}, {"strides", {2, 2, 2}}, {"ceil_mode", 1}, {"storage_order", 1}}) ==
        "1,3,4,4,4");
  CHECK(shape0("AveragePool", {t("f32", "2,3,5,5,5")},
               {{"kernel_shape", {3, 3, 3}}, {"pads", {1, 1, 1, 1, 1, 1}}, {"count_include_pad", 1}}) == "2,3,5,5,5");
  const auto idx = infer("MaxPool", {t("f32", "1,2,4,4,4")}, {{"kernel_shape", {2, 2, 2}}}, 2);
  CHECK(idx[1].shape.to_string() == "1,2,3,3,3");
  // Bad attributes in 3-D.
  check_infer_error("Conv", {t("f32", "1,1,5,5,5"), t("f32", "1,1,3,3,3")}, {{"strides", {1, 1}}}, Errc::bad_attribute,
                    "'strides'");
  check_infer_error("Conv", {t("f32", "1,1,5,5,5"), t("f32", "1,1,3,3,3")}, {{"auto_pad", "SAME"}}, Errc::bad_attribute,
                    "'auto_pad'");
  check_infer_error("ConvTranspose", {t("f32", "1,1,3,4,5"), t("f32", "1,2,3,3,3")}, {{"output_padding", {1, 1, 1}}},
                    Errc::bad_attribute, "'output_padding'");
  check_infer_error("MaxPool", {t("f32", "1,2,4,4,4")}, {{"kernel_shape", {2, 2, 2}}, {"dilations", {1, 1}}},
                    Errc::bad_attribute, "'dilations'");
  check_infer_error("MaxPool", {t("f32", "1,2,4,4,4")}, {{"kernel_shape", {2, 2, 2}}, {"storage_order", 2}},
                    Errc::bad_attribute, "'storage_order'");
  check_infer_error("AveragePool", {t("f32", "1,2,4,4,4")}, {{"kernel_shape", {2, 2, 2}}, {"pads", {0, 0, 2, 0, 0, 0}}},
                    Errc::bad_attribute, "below its kernel");
  check_infer_error("AveragePool", {t("f32", "1,2,4,4,4")}, {{"kernel_shape", {2, 2, 2}}, {"ceil_mode", 2}},
                    Errc::bad_attribute, "'ceil_mode'");
}
