// Shape and type inference of the ops of src/ops/math_ops.cpp and src/ops/einsum.cpp:
// Range, HardSigmoid, Not, Mod, Min, Max, InstanceNormalization, Trilu, Einsum, over
// fixed, ranged and unknown dims, with every refusal.
#include <limits>

#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::DataType;
using ge::Errc;
using ge::Tensor;

namespace {
template <class T>
In scalar(T v) {
  return c(Tensor::scalar<T>(v));
}
}  // namespace

TEST_CASE("Range: the length from constant inputs; unknown from runtime ones; delta 0 refused") {
  CHECK(shape0("Range", {scalar<std::int64_t>(0), scalar<std::int64_t>(10), scalar<std::int64_t>(3)}) == "4");
  CHECK(shape0("Range", {scalar<std::int32_t>(10), scalar<std::int32_t>(4), scalar<std::int32_t>(-2)}) == "3");
  CHECK(shape0("Range", {scalar<std::int64_t>(5), scalar<std::int64_t>(1), scalar<std::int64_t>(1)}) == "0");
  CHECK(shape0("Range", {scalar<float>(1.f), scalar<float>(2.f), scalar<float>(0.3f)}) == "4");
  CHECK(infer("Range", {scalar<float>(0.f), scalar<float>(1.f), scalar<float>(0.5f)})[0].dtype == DataType::f32);
  CHECK(shape0("Range", {t("i64", ""), scalar<std::int64_t>(10), scalar<std::int64_t>(1)}) == "-1");
  CHECK(shape0("Range", {t("f32", ""), t("f32", "1"), t("f32", "")}) == "-1");
  check_infer_error("Range", {scalar<std::int64_t>(0), scalar<std::int64_t>(10), scalar<std::int64_t>(0)}, {},
                    Errc::invalid_argument, "input 2 (delta) is 0", "non-zero");
  check_infer_error("Range", {t("i64", ""), t("i64", ""), scalar<std::int64_t>(0)}, {}, Errc::invalid_argument,
                    "delta");
  check_infer_error("Range", {t("i64", "2"), t("i64", ""), t("i64", "")}, {}, Errc::bad_op_inputs, "input 0 (start)",
                    "scalar");
  check_infer_error("Range", {t("i64", "1,1"), t("i64", ""), t("i64", "")}, {}, Errc::bad_op_inputs, "rank");
  check_infer_error("Range", {t("i64", ""), t("f32", ""), t("i64", "")}, {}, Errc::type_mismatch, "input 1 (limit)");
  check_infer_error("Range", {t("bool", ""), t("bool", ""), t("bool", "")}, {}, Errc::type_mismatch, "bool");
  check_infer_error("Range",
                    {scalar<std::int64_t>(std::numeric_limits<std::int64_t>::min()),
                     scalar<std::int64_t>(std::numeric_limits<std::int64_t>::max()), scalar<std::int64_t>(1)},
                    {}, Errc::bad_op_inputs, "overflows");
  check_infer_error("Range",
                    {scalar<float>(0.f), scalar<float>(std::numeric_limits<float>::infinity()), scalar<float>(1.f)}, {},
                    Errc::bad_op_inputs, "finite");
}

TEST_CASE("HardSigmoid and Not keep the shape; types and attributes are checked") {
  CHECK(shape0("HardSigmoid", {t("f32", "1~8,-1")}) == "1~8,-1");
  CHECK(shape0("HardSigmoid", {t("f32", "-2")}, {{"alpha", 0.1}, {"beta", 0.6}}) == "-2");
  check_infer_error("HardSigmoid", {t("i32", "3")}, {}, Errc::type_mismatch, "input 0 (X) is i32");
  check_infer_error("HardSigmoid", {t("f32", "3")}, {{"gamma", 1.0}}, Errc::bad_attribute, "'gamma'");
  check_infer_error("HardSigmoid", {t("f32", "3")}, {{"alpha", "x"}}, Errc::bad_attribute, "'alpha'");
  const auto n = infer("Not", {t("bool", "2,1~3")});
  CHECK(n[0].dtype == DataType::boolean);
  CHECK(n[0].shape.to_string() == "2,1~3");
  check_infer_error("Not", {t("f32", "3")}, {}, Errc::type_mismatch, "expected bool");
}

TEST_CASE("Mod broadcasts; fmod=0 on floats and fmod outside 0/1 are refused") {
  CHECK(shape0("Mod", {t("i64", "1~8,1,5"), t("i64", "4,1")}) == "1~8,4,5");
  CHECK(shape0("Mod", {t("f32", "3"), t("f32", "")}, {{"fmod", std::int64_t{1}}}) == "3");
  CHECK(shape0("Mod", {t("i32", "-2"), t("i32", "3")}) == "-2");
  check_infer_error("Mod", {t("f32", "3"), t("f32", "3")}, {}, Errc::bad_attribute, "'fmod' is 0", "f32", "fmod=1");
  check_infer_error("Mod", {t("i64", "3"), t("i64", "3")}, {{"fmod", std::int64_t{2}}}, Errc::bad_attribute, "'fmod'",
                    "[0, 1]");
  check_infer_error("Mod", {t("i64", "2,3"), t("i64", "4")}, {}, Errc::incompatible_shapes, "broadcast");
  check_infer_error("Mod", {t("i64", "3"), t("i32", "3")}, {}, Errc::type_mismatch, "input 1 (B) is i32");
}

TEST_CASE("Min and Max take 1 to N inputs and broadcast all of them") {
  for (const char* op : {"Min", "Max"}) {
    CAPTURE(op);
    CHECK(shape0(op, {t("f32", "2,3")}) == "2,3");
    CHECK(shape0(op, {t("f32", "2,1"), t("f32", "3"), t("f32", "1~4,1,1")}) == "1~4,2,3");
    CHECK(shape0(op, {t("i64", "-1"), t("i64", "-2")}) == "-2");
    check_infer_error(op, {}, {}, Errc::bad_op_inputs, "input");
    check_infer_error(op, {t("f32", "2"), t("f32", "3")}, {}, Errc::incompatible_shapes, "broadcast");
    check_infer_error(op, {t("f32", "2"), t("i32", "2")}, {}, Errc::type_mismatch, "is i32");
    check_infer_error(op, {t("bool", "2")}, {}, Errc::type_mismatch, "is bool");
  }
}

TEST_CASE("InstanceNormalization: rank >= 3 and one scale and bias per channel") {
  CHECK(shape0("InstanceNormalization", {t("f32", "1~8,3,-1,-1"), t("f32", "3"), t("f32", "3")}) == "1~8,3,-1,-1");
  CHECK(shape0("InstanceNormalization", {t("f32", "2,-1,5,5,5"), t("f32", "4"), t("f32", "-1")}) == "2,4,5,5,5");
  CHECK(shape0("InstanceNormalization", {t("f32", "-2"), t("f32", "3"), t("f32", "3")}) == "-2");
  check_infer_error("InstanceNormalization", {t("f32", "2,3"), t("f32", "3"), t("f32", "3")}, {}, Errc::bad_op_inputs,
                    "rank >= 3");
  check_infer_error("InstanceNormalization", {t("f32", "2,3,4"), t("f32", "4"), t("f32", "3")}, {}, Errc::bad_op_inputs,
                    "input 1 (scale) has length 4", "3 channels");
  check_infer_error("InstanceNormalization", {t("f32", "2,3,4"), t("f32", "3,1"), t("f32", "3")}, {},
                    Errc::bad_op_inputs, "input 1 (scale)", "rank 1");
  check_infer_error("InstanceNormalization", {t("f32", "2,3,4"), t("f32", "3"), t("f32", "3")}, {{"epsilon", -1.0}},
                    Errc::bad_attribute, "'epsilon'");
  check_infer_error("InstanceNormalization", {t("i32", "2,3,4"), t("i32", "3"), t("i32", "3")}, {}, Errc::type_mismatch,
                    "is i32");
}

TEST_CASE("Trilu: rank >= 2, k a scalar, upper 0 or 1") {
  CHECK(shape0("Trilu", {t("f32", "1~4,3,-1")}) == "1~4,3,-1");
  CHECK(shape0("Trilu", {t("bool", "2,2"), scalar<std::int64_t>(-1)}, {{"upper", std::int64_t{0}}}) == "2,2");
  CHECK(shape0("Trilu", {t("i32", "-2"), t("i64", "")}) == "-2");
  check_infer_error("Trilu", {t("f32", "5")}, {}, Errc::bad_op_inputs, "input 0 (input)", "rank 1", "rank >= 2");
  check_infer_error("Trilu", {t("f32", "")}, {}, Errc::bad_op_inputs, "rank >= 2");
  check_infer_error("Trilu", {t("f32", "3,3"), t("i64", "2")}, {}, Errc::bad_op_inputs, "input 1 (k)", "scalar");
  check_infer_error("Trilu", {t("f32", "3,3"), t("i32", "")}, {}, Errc::type_mismatch, "input 1 (k) is i32");
  check_infer_error("Trilu", {t("f32", "3,3")}, {{"upper", std::int64_t{3}}}, Errc::bad_attribute, "'upper'");
}

TEST_CASE("Einsum: output shapes over ranges, implicit output, ellipsis, broadcast dims of 1") {
  const auto eq = [](const char* e) { return ge::Attributes{{"equation", e}}; };
  CHECK(shape0("Einsum", {t("f32", "1~8,4,5"), t("f32", "1~8,5,6")}, eq("bij,bjk->bik")) == "1~8,4,6");
  CHECK(shape0("Einsum", {t("f32", "2,3,-1,8"), t("f32", "2,3,7,8")}, eq("bhid,bhjd->bhij")) == "2,3,-1,7");
  CHECK(shape0("Einsum", {t("f32", "4,5"), t("f32", "5,6")}, eq("ij,jk")) == "4,6");    // implicit: i, k
  CHECK(shape0("Einsum", {t("f32", "4,5")}, eq("ij")) == "4,5");
  CHECK(shape0("Einsum", {t("f32", "4,5")}, eq("ji")) == "5,4");                       // implicit: sorted
  CHECK(shape0("Einsum", {t("f32", "3,3")}, eq("ii")) == "");                          // trace
  CHECK(shape0("Einsum", {t("f32", "4"), t("f32", "5")}, eq(" i , j -> ij ")) == "4,5");
  CHECK(shape0("Einsum", {t("f32", "2,3,4,4")}, eq("...ii->...i")) == "2,3,4");
  CHECK(shape0("Einsum", {t("f32", "2,1,4,5"), t("f32", "3,5,6")}, eq("...ij,...jk")) == "2,3,4,6");
  CHECK(shape0("Einsum", {t("f32", "1,4,5"), t("f32", "7,5,6")}, eq("bij,bjk->bik")) == "7,4,6");
  CHECK(shape0("Einsum", {t("f32", "-2"), t("f32", "5,6")}, eq("ij,jk->ik")) == "-1,6");
  CHECK(shape0("Einsum", {t("f32", "-2"), t("f32", "5,6")}, eq("...j,jk->...k")) == "-2");
  CHECK(infer("Einsum", {t("i64", "2,2")}, eq("ij->j"))[0].dtype == DataType::i64);
}

TEST_CASE("Einsum: equations that do not parse or do not fit the inputs name the equation") {
  const auto eq = [](const char* e) { return ge::Attributes{{"equation", e}}; };
  const auto two = std::vector<In>{t("f32", "2,3"), t("f32", "3,4")};
  for (const char* bad : {"ij,jk->ik->i", "ij,j1->ik", "ij,jk->ikk", "ij,jk->iz", "i.j,jk->ik", "....ij,jk", "",
                          "ij,jk->i,k", "ij-,jk", "......ij,jk"}) {
    CAPTURE(bad);
    check_infer_error("Einsum", two, eq(bad), Errc::bad_attribute, "equation '", "does not parse");
  }
  check_infer_error("Einsum", two, eq("ij->ij"), Errc::bad_op_inputs, "equation 'ij->ij'", "1 input term", "2 input");
  check_infer_error("Einsum", two, eq("ijk,jk->ik"), Errc::bad_op_inputs, "equation 'ijk,jk->ik'",
                    "term 0 has 3 label(s)", "rank 2");
  check_infer_error("Einsum", two, eq("ij,kj->ik"), Errc::bad_op_inputs, "label 'j'", "3 in input 0", "4 in input 1");
  check_infer_error("Einsum", {t("f32", "2,3,4"), t("f32", "3,4")}, eq("...ij,jk->ik"), Errc::bad_op_inputs,
                    "no '...'");
  check_infer_error("Einsum", {t("f32", "2")}, eq("ij->i"), Errc::bad_op_inputs, "term 0", "rank 1");
  check_infer_error("Einsum", {t("f32", "-2"), t("f32", "2")}, eq("ij,jk->ik"), Errc::bad_op_inputs, "term 1");
  check_infer_error("Einsum", two, {}, Errc::bad_attribute, "equation");
  check_infer_error("Einsum", {t("bool", "2")}, eq("i->i"), Errc::type_mismatch, "is bool");
}
