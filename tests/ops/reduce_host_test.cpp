// Shape inference of the reductions and of the host-engine ops (NonZero, TopK, ArgMax).
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

TEST_CASE("ReduceMean, ReduceSum, ReduceMax: axes as attribute or input, keepdims, noop") {
  for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax"}) {
    CAPTURE(op);
    CHECK(shape0(op, {t("f32", "1~8,128,256")}, {{"axes", {-1}}}) == "1~8,128,1");
    CHECK(shape0(op, {t("f32", "1~8,128,256")}, {{"axes", {1, 2}}, {"keepdims", 0}}) == "1~8");
    CHECK(shape0(op, {t("f32", "2,3,4"), ints({0})}) == "1,3,4");
    CHECK(shape0(op, {t("f32", "2,3,4")}) == "1,1,1");
    CHECK(shape0(op, {t("f32", "2,3,4")}, {{"keepdims", 0}}) == "");
    CHECK(shape0(op, {t("f32", "2,3,4")}, {{"noop_with_empty_axes", 1}}) == "2,3,4");
    CHECK(shape0(op, {t("f32", "-2")}, {{"axes", {0}}}) == "-2");
    CHECK(shape0(op, {t("f32", "-2")}, {{"keepdims", 0}}) == "");
    // Data-dependent axes: each dim is kept or becomes 1.
    CHECK(shape0(op, {t("f32", "2,1,5~9"), t("i64", "1")}) == "1~2,1,1~9");
    CHECK(shape0(op, {t("f32", "2,1,5~9"), t("i64", "2")}, {{"keepdims", 0}}) == "-1");
    CHECK(shape0(op, {t("f32", "2,1,5~9"), t("i64", "-1")}, {{"keepdims", 0}}) == "-2");
    check_infer_error(op, {t("f32", "2,3")}, {{"axes", {2}}}, Errc::bad_attribute, "axes value 2", "[-2, 1]");
    check_infer_error(op, {t("f32", "2,3")}, {{"axes", {1, -1}}}, Errc::bad_attribute, "twice");
    check_infer_error(op, {t("f32", "2,3"), ints({0})}, {{"axes", {0}}}, Errc::bad_op_inputs, "both");
    check_infer_error(op, {t("f32", "2,3")}, {{"keepdims", 2}}, Errc::bad_attribute, "'keepdims'");
    check_infer_error(op, {t("bool", "2,3")}, {}, Errc::type_mismatch, "is bool");
  }
}

TEST_CASE("ArgMax runs on the host and gives i64") {
  const auto& s = ge::OpRegistry::global().find("ArgMax");
  CHECK(s.engines.has(ge::Engine::host));
  CHECK_FALSE(s.engines.has(ge::Engine::vector));
  const auto out = infer("ArgMax", {t("f32", "1~8,1000")}, {{"axis", 1}});
  CHECK(out[0].dtype == ge::DataType::i64);
  CHECK(out[0].shape.to_string() == "1~8,1");
  CHECK(shape0("ArgMax", {t("f32", "1~8,1000")}, {{"axis", -1}, {"keepdims", 0}}) == "1~8");
  CHECK(shape0("ArgMax", {t("f32", "-2")}) == "-2");
  check_infer_error("ArgMax", {t("f32", "2,3")}, {{"axis", 2}}, Errc::bad_attribute, "axis 2");
  check_infer_error("ArgMax", {t("f32", "")}, {}, Errc::bad_op_inputs, "rank >= 1");
}

TEST_CASE("NonZero: [rank, count] with the count bounded by the element count") {
  CHECK(ge::OpRegistry::global().find("NonZero").engines.has(ge::Engine::host));
  auto out = infer("NonZero", {t("f32", "3,4")});
  CHECK(out[0].dtype == ge::DataType::i64);
  CHECK(out[0].shape.to_string() == "2,0~12");
  CHECK(shape0("NonZero", {t("bool", "1~8,10")}) == "2,0~80");
  CHECK(shape0("NonZero", {t("f32", "-1,10")}) == "2,-1");
  CHECK(shape0("NonZero", {t("f32", "-2")}) == "-1,-1");
  CHECK(shape0("NonZero", {t("f32", "")}) == "0,0~1");
}

TEST_CASE("TopK: constant k gives the extent, data-dependent k a range") {
  auto out = infer("TopK", {t("f32", "1~8,1000"), ints({5})});
  REQUIRE(out.size() == 2);
  CHECK(out[0].shape.to_string() == "1~8,5");
  CHECK(out[1].dtype == ge::DataType::i64);
  CHECK(out[1].shape.to_string() == "1~8,5");
  CHECK(shape0("TopK", {t("f32", "4,10"), t("i64", "1")}, {{"axis", 0}}) == "0~4,10");
  CHECK(shape0("TopK", {t("f32", "4,-1"), t("i64", "1")}) == "4,-1");
  CHECK(shape0("TopK", {t("f32", "-2"), ints({3})}) == "-2");
  check_infer_error("TopK", {t("f32", "4,10"), ints({11})}, {}, Errc::bad_op_inputs, "K) is 11", "dim 1");
  check_infer_error("TopK", {t("f32", "4,10"), ints({1, 2})}, {}, Errc::bad_op_inputs, "one element");
  check_infer_error("TopK", {t("f32", "4,10"), ints({1})}, {{"largest", 3}}, Errc::bad_attribute, "'largest'");
  check_infer_error("TopK", {t("f32", "4,10"), ints({1})}, {{"axis", -3}}, Errc::bad_attribute, "axis -3");
}
