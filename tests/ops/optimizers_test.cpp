// Shape inference of the training-domain optimizers: variadic tensors, and an error for
// each bad attribute and input count.
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

TEST_CASE("Adagrad, Momentum and Adam: one output per tensor and state") {
  const auto a = infer("Adagrad", {t("f32", ""), t("i64", ""), t("f32", "2"), t("f32", "3,1~4"), t("f32", "2"),
                                   t("f32", "3,2"), t("f32", "2"), t("f32", "-1,2")});
  REQUIRE(a.size() == 4);
  CHECK(a[1].shape.to_string() == "3,2");
  CHECK(a[3].shape.to_string() == "3,2");
  const auto adam = infer("Adam", {t("f32", ""), t("i64", ""), t("f64", "2"), t("f64", "2"), t("f64", "2"), t("f64", "2")});
  CHECK(adam.size() == 3);
  CHECK(adam[2].dtype == ge::DataType::f64);
}

TEST_CASE("Adagrad, Momentum and Adam: each bad attribute and input is a clear error") {
  const std::vector<In> one{t("f32", ""), t("i64", ""), t("f32", "2"), t("f32", "2"), t("f32", "2")};
  const ge::Attributes momentum{{"alpha", 0.9}, {"beta", 0.1}, {"norm_coefficient", 0.0}};
  auto mode = momentum;
  mode.emplace("mode", std::string("heavy"));
  check_infer_error("Momentum", one, mode, Errc::bad_attribute, "'mode'", "nesterov");
  check_infer_error("Momentum", one, momentum, Errc::bad_attribute, "'mode'", "required");
  check_infer_error("Adagrad", one, {{"decay_factor", -1.0}}, Errc::bad_attribute, "'decay_factor'");
  check_infer_error("Adagrad", one, {{"epsilon", -1e-6}}, Errc::bad_attribute, "'epsilon'");
  check_infer_error("Adam", one, {{"norm_coefficient_post", -0.5}}, Errc::bad_attribute, "'norm_coefficient_post'");
  check_infer_error("Adam", one, {}, Errc::bad_op_inputs, "expected 4 per optimized tensor");
  check_infer_error("Adagrad", {t("f32", ""), t("i64", ""), t("f32", "2"), t("f32", "3"), t("f32", "2")}, {},
                    Errc::bad_op_inputs, "expected X's");
  check_infer_error("Adagrad", {t("f32", "1"), t("i64", ""), t("f32", "2"), t("f32", "2"), t("f32", "2")}, {},
                    Errc::bad_op_inputs, "rank");
}
