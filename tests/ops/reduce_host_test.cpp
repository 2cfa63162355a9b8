// Shape inference of the reductions, CumSum and the host-engine ops (NonZero, TopK, ArgMax, ArgMin).
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

TEST_CASE("the Reduce ops: axes as attribute or input, keepdims, noop") {
  for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare",
                         "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"}) {
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

TEST_CASE("ArgMax and ArgMin run on the host and give i64") {
  for (const char* op : {"ArgMax", "ArgMin"}) {
    CAPTURE(op);
    const auto& s = ge::OpRegistry::global().find(op);
    CHECK(s.engines.has(ge::Engine::host));
    CHECK_FALSE(s.engines.has(ge::Engine::vector));
    const auto out = infer(op, {t("f32", "1~8,1000")}, {{"axis", 1}});
    CHECK(out[0].dtype == ge::DataType::i64);
    CHECK(out[0].shape.to_string() == "1~8,1");
    CHECK(shape0(op, {t("f32", "1~8,1000")}, {{"axis", -1}, {"keepdims", 0}}) == "1~8");
    CHECK(shape0(op, {t("f32", "-2")}) == "-2");
    check_infer_error(op, {t("f32", "2,3")}, {{"axis", 2}}, Errc::bad_attribute, "axis 2");
    check_infer_error(op, {t("f32", "2,3")}, {{"select_last_index", 2}}, Errc::bad_attribute, "'select_last_index'");
    check_infer_error(op, {t("f32", "")}, {}, Errc::bad_op_inputs, "rank >= 1");
  }
}

TEST_CASE("CumSum keeps x's shape and type; a constant axis must be in range") {
  CHECK(shape0("CumSum", {t("f64", "2,3"), ints({1})}) == "2,3");
  CHECK(shape0("CumSum", {t("f32", "1~4,3"), t("i64", "")}) == "1~4,3");
  check_infer_error("CumSum", {t("f32", "2,3"), ints({2})}, {}, Errc::bad_attribute, "axis 2");
  check_infer_error("CumSum", {t("f32", "2,3"), ints({-3})}, {}, Errc::bad_attribute, "axis -3");
  check_infer_error("CumSum", {t("f32", "2,3"), ints({0, 1})}, {}, Errc::bad_op_inputs, "2 values");
  check_infer_error("CumSum", {t("f32", "2,3"), ints({0})}, {{"exclusive", 2}}, Errc::bad_attribute, "'exclusive'");
  check_infer_error("CumSum", {t("f32", "2,3"), ints({0})}, {{"reverse", -1}}, Errc::bad_attribute, "'reverse'");
  check_infer_error("CumSum", {t("f32", "2,3"), t("i64", "2,1")}, {}, Errc::bad_op_inputs, "rank");
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
