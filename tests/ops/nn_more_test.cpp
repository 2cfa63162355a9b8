// Shape inference and attribute checks of the further network ops: BatchNormalization in
// training mode, LRN, MeanVarianceNormalization, the window functions, Det, MaxUnpool.
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

TEST_CASE("BatchNormalization training_mode: running statistics per channel; a bad training_mode is refused") {
  const auto bn = infer("BatchNormalization",
                        {t("f32", "2,3,4,5"), t("f32", "3"), t("f32", "3"), t("f32", "3"), t("f32", "3")},
                        {{"training_mode", 1}}, 3);
  CHECK(bn[0].shape.to_string() == "2,3,4,5");
  CHECK(bn[1].shape.to_string() == "3");
  CHECK(bn[2].shape.to_string() == "3");
  check_infer_error("BatchNormalization",
                    {t("f32", "2,3,4,5"), t("f32", "3"), t("f32", "3"), t("f32", "3"), t("f32", "3")},
                    {{"training_mode", 2}}, Errc::bad_attribute, "'training_mode'");
  check_infer_error("BatchNormalization",
                    {t("f32", "2,3,4,5"), t("f32", "3"), t("f32", "3"), t("f32", "3"), t("f32", "3")},
                    {{"epsilon", -1.0}}, Errc::bad_attribute, "'epsilon'");
}

TEST_CASE("LRN, MeanVarianceNormalization, the window functions, Det, MaxUnpool: shapes and attribute checks") {
  CHECK(shape0("LRN", {t("f32", "1,5,3,3")}, {{"size", 3}}) == "1,5,3,3");
  check_infer_error("LRN", {t("f32", "1,5,3,3")}, {}, Errc::bad_attribute, "'size' is required");
  check_infer_error("LRN", {t("f32", "1,5,3,3")}, {{"size", 0}}, Errc::bad_attribute, "'size'");
  check_infer_error("LRN", {t("f32", "5,3")}, {{"size", 3}}, Errc::bad_op_inputs, "rank");
  CHECK(shape0("MeanVarianceNormalization", {t("f32", "2,3,4,5")}) == "2,3,4,5");
  check_infer_error("MeanVarianceNormalization", {t("f32", "2,3,4")}, {{"axes", {0, 3}}}, Errc::bad_attribute,
                    "axes");
  check_infer_error("MeanVarianceNormalization", {t("f32", "2,3,4")}, {{"axes", {1, -2}}}, Errc::bad_attribute,
                    "each axis once");
  CHECK(shape0("HannWindow", {c(ge::Tensor::scalar(std::int64_t{7}))}) == "7");
  CHECK(infer("BlackmanWindow", {c(ge::Tensor::scalar(std::int64_t{4}))}, {{"output_datatype", 11}})[0].dtype == ge::DataType::f64);
  CHECK(shape0("HammingWindow", {t("i64", "")}) == "-1");
  check_infer_error("HannWindow", {c(ge::Tensor::scalar(std::int64_t{4}))}, {{"output_datatype", 7}}, Errc::bad_attribute, "'output_datatype'");
  check_infer_error("HannWindow", {c(ge::Tensor::scalar(std::int64_t{4}))}, {{"periodic", 2}}, Errc::bad_attribute, "'periodic'");
  check_infer_error("HannWindow", {c(ge::Tensor::scalar(std::int64_t{-4}))}, {}, Errc::bad_op_inputs, "size");
  CHECK(shape0("Det", {t("f32", "2,3,3")}) == "2");
  CHECK(shape0("Det", {t("f32", "4,4")}).empty());
  check_infer_error("Det", {t("f32", "2,3,4")}, {}, Errc::bad_op_inputs, "square");
  CHECK(shape0("MaxUnpool", {t("f32", "1,1,2,2"), t("i64", "1,1,2,2")}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}) ==
        "1,1,4,4");
  check_infer_error("MaxUnpool", {t("f32", "1,1,2,2"), t("i64", "1,1,2,2")}, {}, Errc::bad_attribute,
                    "'kernel_shape' is required");
  check_infer_error("MaxUnpool", {t("f32", "1,1,2,2"), t("i64", "1,1,2,2")}, {{"kernel_shape", {2, 2}}, {"strides", {2}}},
                    Errc::bad_attribute, "'strides'");
  check_infer_error("MaxUnpool", {t("f32", "1,1,2,2"), t("i64", "1,1,2,3")}, {{"kernel_shape", {2, 2}}},
                    Errc::bad_op_inputs, "equal shapes");
}

TEST_CASE("MaxUnpool: (x - 1) * stride + kernel - pads over intervals; an extent past int64 is an error") {
  // H: x in 1~3 at stride 2, kernel 3, pads 1+1: 1~5. W: unknown at stride 2, kernel 2: 0~inf.
  CHECK(shape0("MaxUnpool", {t("f32", "1,1,1~3,-1"), t("i64", "1,1,1~3,-1")},
               {{"kernel_shape", {3, 2}}, {"strides", {2, 2}}, {"pads", {1, 0, 1, 0}}}) == "1,1,1~5,-1");
  CHECK(shape0("MaxUnpool", {t("f32", "1,1,4~inf"), t("i64", "1,1,4~inf")}, {{"kernel_shape", {2}}, {"strides", {2}}}) ==
        "1,1,8~inf");
  // Pads past the extent clamp it at 0.
  CHECK(shape0("MaxUnpool", {t("f32", "1,1,1"), t("i64", "1,1,1")}, {{"kernel_shape", {2}}, {"pads", {1, 1}}}) ==
        "1,1,0");
  check_infer_error("MaxUnpool", {t("f32", "1,1,4611686018427387904"), t("i64", "1,1,4611686018427387904")},
                    {{"kernel_shape", {2}}, {"strides", {4}}}, Errc::int_overflow, "overflows int64");
}
