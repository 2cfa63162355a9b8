// Shape inference of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

TEST_CASE("NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: shapes, reduction and target checks") {
  CHECK(shape0("NegativeLogLikelihoodLoss", {t("f32", "3,5,2"), t("i64", "3,2")}) == "");
  CHECK(shape0("NegativeLogLikelihoodLoss", {t("f32", "1~4,5,2"), t("i64", "3,2"), t("f32", "5")},
               {{"reduction", std::string("none")}}) == "3,2");
  const auto sce = infer("SoftmaxCrossEntropyLoss", {t("f32", "3,5"), t("i32", "3")},
                         {{"reduction", std::string("none")}}, 2);
  CHECK(sce[0].shape.to_string() == "3");
  CHECK(sce[1].shape.to_string() == "3,5");
  check_infer_error("NegativeLogLikelihoodLoss", {t("f32", "3,5"), t("i64", "3")}, {{"reduction", std::string("avg")}},
                    Errc::bad_attribute, "'reduction'");
  check_infer_error("SoftmaxCrossEntropyLoss", {t("f32", "3,5"), t("i64", "3")}, {{"reduction", std::string("max")}},
                    Errc::bad_attribute, "'reduction'");
  check_infer_error("NegativeLogLikelihoodLoss", {t("f32", "3,5,2"), t("i64", "3")}, {}, Errc::bad_op_inputs, "rank");
  check_infer_error("NegativeLogLikelihoodLoss", {t("f32", "3,5"), t("i64", "4")}, {}, Errc::bad_op_inputs, "dim 0");
  check_infer_error("SoftmaxCrossEntropyLoss", {t("f32", "3,5"), t("i64", "3"), t("f32", "4")}, {},
                    Errc::bad_op_inputs, "weight");
}
