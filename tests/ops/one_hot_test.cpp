// Shape inference of Hardmax, EyeLike, OneHot, Dropout, CastLike and GlobalMaxPool.
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

TEST_CASE("Hardmax, EyeLike and OneHot: shapes, types, axis and input checks") {
  CHECK(shape0("Hardmax", {t("f32", "2,1~4")}, {{"axis", 0}}) == "2,1~4");
  check_infer_error("Hardmax", {t("f32", "2,3")}, {{"axis", 2}}, Errc::bad_attribute, "axis 2");
  const auto eye = infer("EyeLike", {t("f32", "3,4")}, {{"dtype", std::string("i64")}, {"k", 1}});
  CHECK(eye[0].dtype == ge::DataType::i64);
  CHECK(infer("EyeLike", {t("i32", "3,4")})[0].dtype == ge::DataType::i32);
  check_infer_error("EyeLike", {t("f32", "3,4")}, {{"dtype", std::string("float128")}}, Errc::bad_attribute, "'dtype'");
  check_infer_error("EyeLike", {t("f32", "3,4,5")}, {}, Errc::bad_op_inputs, "rank");
  CHECK(shape0("OneHot", {t("i64", "2,3"), c(ge::Tensor::scalar(std::int64_t{5})), t("f32", "2")}) == "2,3,5");
  CHECK(shape0("OneHot", {t("i64", "2,3"), c(ge::Tensor::scalar(4.0f)), t("f32", "2")}, {{"axis", 0}}) == "4,2,3");
  CHECK(shape0("OneHot", {t("i64", "2,3"), t("i64", ""), t("f32", "2")}, {{"axis", -2}}) == "2,-1,3");
  check_infer_error("OneHot", {t("i64", "2,3"), t("i64", ""), t("f32", "2")}, {{"axis", 3}}, Errc::bad_attribute,
                    "axis 3");
  check_infer_error("OneHot", {t("i64", "2,3"), t("i64", ""), t("f32", "2")}, {{"axis", -4}}, Errc::bad_attribute,
                    "axis -4");
  check_infer_error("OneHot", {t("i64", "2"), c(ge::Tensor::scalar(std::int64_t{0})), t("f32", "2")}, {},
                    Errc::bad_op_inputs, "depth");
  check_infer_error("OneHot", {t("i64", "2"), t("i64", ""), t("f32", "3")}, {}, Errc::bad_op_inputs, "two elements");
}

TEST_CASE("Dropout, CastLike and GlobalMaxPool: shapes, types and attribute checks") {
  const auto d = infer("Dropout", {t("f32", "2,1~3")}, {}, 2);
  CHECK(d[0].shape.to_string() == "2,1~3");
  CHECK(d[1].dtype == ge::DataType::boolean);
  check_infer_error("Dropout", {t("f32", "2")}, {{"ratio", 1.5}}, Errc::bad_attribute, "'ratio'");
  check_infer_error("Dropout", {t("f32", "2"), t("f32", "2")}, {}, Errc::bad_op_inputs, "scalar");
  const auto cl = infer("CastLike", {t("f32", "2,3"), t("f16", "1")});
  CHECK(cl[0].dtype == ge::DataType::f16);
  CHECK(cl[0].shape.to_string() == "2,3");
  CHECK(shape0("GlobalMaxPool", {t("f32", "1~4,3,5,7")}) == "1~4,3,1,1");
  check_infer_error("GlobalMaxPool", {t("f32", "3,5")}, {}, Errc::bad_op_inputs, "rank");
}
