// Shape inference of the shape ops, with constant and data-dependent shape inputs.
#include <cmath>
#include <cstdint>

#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

TEST_CASE("Reshape with a constant shape: 0 copies, -1 is inferred, over ranges") {
  CHECK(shape0("Reshape", {t("f32", "2,3,4"), ints({6, 4})}) == "6,4");
  CHECK(shape0("Reshape", {t("f32", "2,3,4"), ints({-1, 4})}) == "6,4");
  CHECK(shape0("Reshape", {t("f32", "2,3,4"), ints({0, -1})}) == "2,12");
  CHECK(shape0("Reshape", {t("f32", "1~8,1~128,256"), ints({0, 0, 4, 64})}) == "1~8,1~128,4,64");
  CHECK(shape0("Reshape", {t("f32", "1~8,1~128,4,64"), ints({0, 0, 256})}) == "1~8,1~128,256");
  CHECK(shape0("Reshape", {t("f32", "1~8,3,224,224"), ints({-1, 150528})}) == "1~8,150528");
  CHECK(shape0("Reshape", {t("f32", "1~8,2048,1,1"), ints({0, -1})}) == "1~8,2048");
  CHECK(shape0("Reshape", {t("f32", "-1,6"), ints({-1, 3})}) == "-1,3");
  CHECK(shape0("Reshape", {t("f32", "-2"), ints({0, 4, -1})}) == "-1,4,-1");
  CHECK(shape0("Reshape", {t("f32", "0,3"), ints({3, 0})}, {{"allowzero", 1}}) == "3,0");
  check_infer_error("Reshape", {t("f32", "2,3,4"), ints({5, -1})}, {}, Errc::bad_op_inputs, "cannot reshape",
                    "[2,3,4]");
  check_infer_error("Reshape", {t("f32", "2,3,4"), ints({7, 4})}, {}, Errc::bad_op_inputs, "same element count");
  check_infer_error("Reshape", {t("f32", "2,3,4"), ints({-1, -1})}, {}, Errc::bad_op_inputs, "more than one -1");
  check_infer_error("Reshape", {t("f32", "2,3"), ints({0, 0, 0})}, {}, Errc::bad_op_inputs, "copies dim 2");
  check_infer_error("Reshape", {t("f32", "2,3"), ints({-3, 2})}, {}, Errc::bad_op_inputs, "-3");
  check_infer_error("Reshape", {t("f32", "2,3"), ints({6})}, {{"allowzero", 2}}, Errc::bad_attribute, "'allowzero'");
  check_infer_error("Reshape", {t("f32", "2,3"), t("i32", "2")}, {}, Errc::type_mismatch, "input 1 (shape) is i32");
}

TEST_CASE("Reshape with a data-dependent shape gives -1 dims of the right rank") {
  CHECK(shape0("Reshape", {t("f32", "2,3,4"), t("i64", "3")}) == "-1,-1,-1");
  CHECK(shape0("Reshape", {t("f32", "2,3,4"), t("i64", "-1")}) == "-2");
  // Shape -> Reshape chain: the Shape output is not a constant.
  const auto sh = infer("Shape", {t("f32", "1~8,16")});
  CHECK(shape0("Reshape", {t("f32", "16,1~8"), {sh[0], std::nullopt}}) == "-1,-1");
}

TEST_CASE("Flatten and Transpose") {
  CHECK(shape0("Flatten", {t("f32", "1~8,2048,1,1")}) == "1~8,2048");
  CHECK(shape0("Flatten", {t("f32", "2,3,4")}, {{"axis", 0}}) == "1,24");
  CHECK(shape0("Flatten", {t("f32", "2,3,4")}, {{"axis", -1}}) == "6,4");
  CHECK(shape0("Flatten", {t("f32", "2,3,4")}, {{"axis", 3}}) == "24,1");
  CHECK(shape0("Flatten", {t("f32", "-2")}) == "-1,-1");
  check_infer_error("Flatten", {t("f32", "2,3")}, {{"axis", 3}}, Errc::bad_attribute, "axis 3", "[-2, 2]");

  CHECK(shape0("Transpose", {t("f32", "1~8,1~128,4,64")}, {{"perm", {0, 2, 1, 3}}}) == "1~8,4,1~128,64");
  CHECK(shape0("Transpose", {t("f32", "2,3,4")}) == "4,3,2");
  CHECK(shape0("Transpose", {t("f32", "-2")}, {{"perm", {1, 0}}}) == "-1,-1");
  CHECK(shape0("Transpose", {t("f32", "-2")}) == "-2");
  check_infer_error("Transpose", {t("f32", "2,3,4")}, {{"perm", {0, 0, 1}}}, Errc::bad_attribute, "'perm'",
                    "permutation");
  check_infer_error("Transpose", {t("f32", "2,3,4")}, {{"perm", {0, 1}}}, Errc::bad_attribute, "'perm'");
}

TEST_CASE("Squeeze and Unsqueeze") {
  CHECK(shape0("Squeeze", {t("f32", "1,3,1,5")}) == "3,5");
  CHECK(shape0("Squeeze", {t("f32", "1,3,1,5"), ints({-2})}) == "1,3,5");
  CHECK(shape0("Squeeze", {t("f32", "-1,3"), ints({0})}) == "3");
  CHECK(shape0("Squeeze", {t("f32", "2,-1")}) == "-2");  // the -1 may or may not be 1
  CHECK(shape0("Squeeze", {t("f32", "2,1,3"), t("i64", "1")}) == "-1,-1");
  CHECK(shape0("Squeeze", {t("f32", "-2"), ints({0})}) == "-2");
  check_infer_error("Squeeze", {t("f32", "2,3"), ints({1})}, {}, Errc::bad_op_inputs, "cannot squeeze dim 1",
                    "expected 1");
  // Runtime axes longer than the rank, or a declared length no shape can have (found by
  // the ONNX fuzzer: it once became a vector of 2^64 - 5 dims).
  check_infer_error("Squeeze", {t("f32", "1,3,1"), t("i64", "8")}, {}, Errc::bad_op_inputs, "8 values", "rank 3");
  check_infer_error("Unsqueeze", {t("f32", "3"), t("i64", "1000000000000")}, {}, Errc::bad_op_inputs,
                    "1000000000000 elements", "longer than 1024");
  check_infer_error("Reshape", {t("f32", "3"), t("i64", "5000")}, {}, Errc::bad_op_inputs, "longer than 1024");
  check_infer_error("Squeeze", {t("f32", "2,3"), ints({2})}, {}, Errc::bad_attribute, "axes", "2");

  CHECK(shape0("Unsqueeze", {t("f32", "1~8,128"), ints({1, 2})}) == "1~8,1,1,128");
  CHECK(shape0("Unsqueeze", {t("f32", "3"), ints({0, -1})}) == "1,3,1");
  CHECK(shape0("Unsqueeze", {t("f32", ""), ints({0})}) == "1");
  CHECK(shape0("Unsqueeze", {t("f32", "2,3"), t("i64", "2")}) == "-1,-1,-1,-1");
  CHECK(shape0("Unsqueeze", {t("f32", "-2"), ints({0})}) == "-2");
  check_infer_error("Unsqueeze", {t("f32", "2,3"), ints({0, 0})}, {}, Errc::bad_attribute, "twice");
  check_infer_error("Unsqueeze", {t("f32", "2,3"), ints({3})}, {}, Errc::bad_attribute, "3");
  check_infer_error("Unsqueeze", {t("f32", "2,3")}, {}, Errc::bad_op_inputs, "takes 2 input");
}

TEST_CASE("Concat adds the axis dims and merges the others") {
  CHECK(shape0("Concat", {t("f32", "2,3"), t("f32", "4,3")}, {{"axis", 0}}) == "6,3");
  CHECK(shape0("Concat", {t("f32", "1~8,3,5"), t("f32", "-1,4,5"), t("f32", "2,1,5")}, {{"axis", 1}}) == "2,8,5");  // dim 0 merges to 2
  CHECK(shape0("Concat", {t("f32", "1~2,3"), t("f32", "5~inf,3")}, {{"axis", -2}}) == "6~inf,3");
  CHECK(shape0("Concat", {t("f32", "-2"), t("f32", "2,3")}, {{"axis", 0}}) == "2~inf,3");
  CHECK(shape0("Concat", {t("f32", "-2"), t("f32", "-2")}, {{"axis", 0}}) == "-2");
  CHECK(shape0("Concat", {t("f32", "2,3")}, {{"axis", 1}}) == "2,3");
  check_infer_error("Concat", {t("f32", "2,3"), t("f32", "2,4")}, {{"axis", 0}}, Errc::bad_op_inputs, "input 1",
                    "dim 1");
  check_infer_error("Concat", {t("f32", "2,3"), t("f32", "2,3,1")}, {{"axis", 0}}, Errc::bad_op_inputs, "rank 3");
  check_infer_error("Concat", {t("f32", "2,3"), t("f32", "2,3")}, {}, Errc::bad_attribute, "'axis' is required");
  check_infer_error("Concat", {t("f32", "2,3"), t("i32", "2,3")}, {{"axis", 0}}, Errc::type_mismatch,
                    "input 1 (inputs) is i32");
  check_infer_error("Concat", {}, {{"axis", 0}}, Errc::bad_op_inputs, "at least 1");
}

TEST_CASE("Split by sizes, by num_outputs, by output count") {
  auto out = infer("Split", {t("f32", "10,4"), ints({3, 7})});
  REQUIRE(out.size() == 2);
  CHECK(out[0].shape.to_string() == "3,4");
  CHECK(out[1].shape.to_string() == "7,4");
  out = infer("Split", {t("f32", "2,7")}, {{"axis", 1}, {"num_outputs", 3}});
  REQUIRE(out.size() == 3);
  CHECK(out[0].shape.to_string() == "2,3");
  CHECK(out[2].shape.to_string() == "2,1");
  out = infer("Split", {t("f32", "1~8,768")}, {{"axis", -1}}, 3);
  REQUIRE(out.size() == 3);
  CHECK(out[1].shape.to_string() == "1~8,256");
  out = infer("Split", {t("f32", "2~9,4")}, {{"num_outputs", 2}});
  CHECK(out[0].shape.to_string() == "1~5,4");
  CHECK(out[1].shape.to_string() == "0~5,4");
  out = infer("Split", {t("f32", "-2"), ints({1, 2})});
  CHECK(out[1].shape.to_string() == "-2");
  out = infer("Split", {t("f32", "6,2"), t("i64", "2")});
  CHECK(out[1].shape.to_string() == "0~6,2");
  check_infer_error("Split", {t("f32", "10,4"), ints({3, 6})}, {}, Errc::bad_op_inputs, "sums to 9", "10");
  check_infer_error("Split", {t("f32", "10,4")}, {}, Errc::bad_op_inputs, "number of outputs");
  expect_error([] { (void)infer("Split", {t("f32", "10,4")}, {}, 3); }, Errc::bad_op_inputs, "not divisible into 3");
  check_infer_error("Split", {t("f32", "10,4"), ints({5, 5})}, {{"num_outputs", 2}}, Errc::bad_op_inputs, "both");
  check_infer_error("Split", {t("f32", "10,4")}, {{"num_outputs", 0}}, Errc::bad_attribute, "'num_outputs'");
  // A fuzzer's finding: a huge num_outputs sized a vector of outputs before any check.
  check_infer_error("Split", {t("f32", "10,4")}, {{"num_outputs", std::int64_t{1} << 40}}, Errc::bad_attribute,
                    "'num_outputs' is 1099511627776", "expected 1 to 4096");
  check_infer_error("Split", {t("f32", "10,4")}, {{"axis", 2}, {"num_outputs", 2}}, Errc::bad_attribute, "axis 2");
}

TEST_CASE("Slice: negative and clamped indices, steps, ranged dims") {
  CHECK(shape0("Slice", {t("f32", "10,20"), ints({2, 0}), ints({8, 20})}) == "6,20");
  CHECK(shape0("Slice", {t("f32", "10,20"), ints({-3}), ints({1000}), ints({1})}) == "10,3");
  CHECK(shape0("Slice", {t("f32", "10"), ints({0}), ints({10}), ints({0}), ints({3})}) == "4");
  CHECK(shape0("Slice", {t("f32", "10"), ints({-1}), ints({-1000}), ints({0}), ints({-1})}) == "10");
  CHECK(shape0("Slice", {t("f32", "10"), ints({8}), ints({2}), ints({0}), ints({-2})}) == "3");
  CHECK(shape0("Slice", {t("f32", "10"), ints({5}), ints({2})}) == "0");
  CHECK(shape0("Slice", {t("f32", "4,5"), ints({1}), ints({3}), ge_test::none(), ints({1})}) == "2,5");
  // Ranged dims: the length over every value of the dim.
  CHECK(shape0("Slice", {t("f32", "1~8,100~200"), ints({10}), ints({1000}), ints({1})}) == "1~8,90~190");
  CHECK(shape0("Slice", {t("f32", "-1"), ints({1}), ints({-1})}) == "-1");  // d - 2, any size
  CHECK(shape0("Slice", {t("f32", "-1"), ints({0}), ints({4})}) == "0~4");
  CHECK(shape0("Slice", {t("f32", "-1"), ints({-3}), ints({1000})}) == "0~3");
  CHECK(shape0("Slice", {t("f32", "2~6"), ints({-3}), ints({5})}) == "2~3");  // d=2: 2, d=3..5: 3, d=6: 2
  // Data-dependent starts: each sliced dim is at most its extent.
  CHECK(shape0("Slice", {t("f32", "10,1~4"), t("i64", "2"), ints({5, 5})}) == "0~10,0~4");
  CHECK(shape0("Slice", {t("f32", "10,8"), t("i64", "1"), ints({5}), ints({1})}) == "10,0~8");
  CHECK(shape0("Slice", {t("f32", "-2"), ints({0}), ints({1})}) == "-2");
  check_infer_error("Slice", {t("f32", "10"), ints({0}), ints({5}), ints({0}), ints({0})}, {}, Errc::bad_op_inputs,
                    "non-zero steps");
  check_infer_error("Slice", {t("f32", "10"), ints({0, 1}), ints({5})}, {}, Errc::bad_op_inputs, "differ in length");
  check_infer_error("Slice", {t("f32", "10"), ints({0}), ints({5}), ints({1})}, {}, Errc::bad_attribute, "axes");
}

TEST_CASE("Gather and Expand") {
  CHECK(shape0("Gather", {t("f32", "30522,256"), t("i64", "1~8,1~128")}) == "1~8,1~128,256");
  CHECK(shape0("Gather", {t("f32", "2,3,4"), t("i32", "5")}, {{"axis", 1}}) == "2,5,4");
  CHECK(shape0("Gather", {t("f32", "2,3,4"), t("i64", "")}, {{"axis", -1}}) == "2,3");
  CHECK(shape0("Gather", {t("f32", "-2"), t("i64", "5")}) == "-2");
  check_infer_error("Gather", {t("f32", "2,3"), t("i64", "5")}, {{"axis", 2}}, Errc::bad_attribute, "axis 2");
  check_infer_error("Gather", {t("f32", "2,3"), t("f32", "5")}, {}, Errc::type_mismatch, "input 1 (indices) is f32");
  check_infer_error("Gather", {t("f32", "2,3"), ints({0, 5})}, {{"axis", 1}}, Errc::bad_op_inputs, "5",
                    "outside dim 1");

  CHECK(shape0("Expand", {t("f32", "3,1"), ints({2, 1, 6})}) == "2,3,6");
  CHECK(shape0("Expand", {t("f32", "1~8,1"), ints({1, 4})}) == "1~8,4");
  CHECK(shape0("Expand", {t("f32", "2,3"), t("i64", "3")}) == "-1,-1,-1");
  CHECK(shape0("Expand", {t("f32", "2,3"), t("i64", "-1")}) == "-2");
  check_infer_error("Expand", {t("f32", "3,2"), ints({4})}, {}, Errc::incompatible_shapes, "broadcast");
}

TEST_CASE("Shape and ConstantOfShape") {
  auto s = infer("Shape", {t("f32", "1~8,3,-1")});
  CHECK(s[0].dtype == ge::DataType::i64);
  CHECK(s[0].shape.to_string() == "3");
  CHECK(shape0("Shape", {t("f32", "-2")}) == "-1");
  CHECK(shape0("Shape", {t("f32", "2,3,4,5")}, {{"start", 1}, {"end", -1}}) == "2");
  CHECK(shape0("Shape", {t("f32", "2,3")}, {{"start", 5}}) == "0");

  auto cs = infer("ConstantOfShape", {ints({2, 3})});
  CHECK(cs[0].dtype == ge::DataType::f32);
  CHECK(cs[0].shape.to_string() == "2,3");
  cs = infer("ConstantOfShape", {t("i64", "3")}, {{"value", ge::Tensor::from<std::int64_t>({1}, {7})}});
  CHECK(cs[0].dtype == ge::DataType::i64);
  CHECK(cs[0].shape.to_string() == "-1,-1,-1");
  CHECK(shape0("ConstantOfShape", {t("i64", "-1")}) == "-2");
  check_infer_error("ConstantOfShape", {ints({2, -3})}, {}, Errc::bad_op_inputs, "negative");
  check_infer_error("ConstantOfShape", {ints({2})}, {{"value", ge::Tensor::from<float>({2}, {1.f, 2.f})}},
                    Errc::bad_attribute, "one element");
  check_infer_error("ConstantOfShape", {ints({2})}, {{"value", 1.0}}, Errc::bad_attribute, "expected tensor");
}

TEST_CASE("Pad with constant and data-dependent pads") {
  CHECK(shape0("Pad", {t("f32", "1,3,4,4"), ints({0, 0, 1, 2, 0, 0, 3, 4})}) == "1,3,8,10");
  CHECK(shape0("Pad", {t("f32", "1~8,3,-1"), ints({0, 0, 2, 0, 0, 2})}, {{"mode", "reflect"}}) == "1~8,3,4~inf");
  CHECK(shape0("Pad", {t("f32", "5,5"), ints({-1, 0, -1, 0})}) == "3,5");
  CHECK(shape0("Pad", {t("f32", "5,5"), t("i64", "4")}) == "-1,-1");
  CHECK(shape0("Pad", {t("f32", "-2"), ints({1, 1})}) == "-2");
  check_infer_error("Pad", {t("f32", "5,5"), ints({1, 1})}, {}, Errc::bad_op_inputs, "expected 4");
  check_infer_error("Pad", {t("f32", "5,5"), ints({-4, 0, -4, 0})}, {}, Errc::bad_op_inputs, "below 0");
  // Crops over a range clamp at 0 (the smaller values are errors when they come); unbounded stays unbounded.
  CHECK(shape0("Pad", {t("f32", "1~9,-1"), ints({-1, -1, -1, 0})}) == "0~7,-1");
  check_infer_error("Pad", {t("f32", "9223372036854775800"), ints({4, 4})}, {}, Errc::int_overflow, "overflows int64");
  check_infer_error("Pad", {t("f32", "5,5"), ints({0, 0, 0, 0})}, {{"mode", "wrapped"}}, Errc::bad_attribute, "'mode'");
  check_infer_error("Pad", {t("f32", "5,5"), t("i64", "3")}, {}, Errc::bad_op_inputs, "3 values");
}

TEST_CASE("Resize with scales or sizes") {
  const auto sc = c(ge::Tensor::from<float>({4}, {1.f, 1.f, 2.f, 2.f}));
  CHECK(shape0("Resize", {t("f32", "1,3,10,12"), ge_test::none(), sc}) == "1,3,20,24");
  CHECK(shape0("Resize", {t("f32", "1~8,3,10~20,-1"), ge_test::none(), sc}, {{"mode", "linear"}}) == "1~8,3,20~40,-1");
  CHECK(shape0("Resize", {t("f32", "1,3,5,5"), ge_test::none(), c(ge::Tensor::from<float>({4}, {1.f, 1.f, 0.5f, 1.5f}))}) ==
        "1,3,2,7");
  CHECK(shape0("Resize", {t("f32", "1,3,10,12"), ge_test::none(), ge_test::none(), ints({1, 3, 7, 9})}) == "1,3,7,9");
  // floor(d * scale) past int64 is an error, not an unbounded dim.
  check_infer_error("Resize", {t("f32", "1,3,4611686018427387904,2"), ge_test::none(), sc}, {}, Errc::int_overflow,
                    "scaled by", "overflows int64");
  CHECK(shape0("Resize", {t("f32", "1,3,10,12"), ge_test::none(), t("f32", "4")}) == "-1,-1,-1,-1");
  CHECK(shape0("Resize", {t("f32", "-2"), ge_test::none(), sc}) == "-1,-1,-1,-1");
  // An empty scales input with sizes is the ONNX way to give sizes only.
  CHECK(shape0("Resize", {t("f32", "1,3,4,4"), ge_test::none(), c(ge::Tensor::from<float>({0}, {})), ints({1, 3, 2, 2})}) ==
        "1,3,2,2");
  check_infer_error("Resize", {t("f32", "1,3,10,12"), ge_test::none(), sc, ints({1, 3, 7, 9})}, {}, Errc::bad_op_inputs,
                    "both");
  check_infer_error("Resize", {t("f32", "1,3,10,12")}, {}, Errc::bad_op_inputs, "neither");
  check_infer_error("Resize", {t("f32", "1,3,10,12"), ge_test::none(), c(ge::Tensor::from<float>({2}, {2.f, 2.f}))}, {},
                    Errc::bad_op_inputs, "2 values", "rank 4");
  check_infer_error("Resize", {t("f32", "1,3,10,12"), ge_test::none(), sc}, {{"mode", "area"}}, Errc::bad_attribute,
                    "'mode'", "nearest, linear");
  check_infer_error("Resize",
                    {t("f32", "1,3,10,12"), ge_test::none(), c(ge::Tensor::from<float>({4}, {1.f, 1.f, 0.f, 1.f}))}, {},
                    Errc::bad_op_inputs, "scales > 0");
}

TEST_CASE("extreme values are exact or refused instead of overflowing") {
  const std::int64_t big = std::int64_t{1} << 62;
  const std::string huge_dim = std::to_string(big + 5);  // above 2^62
  CHECK(shape0("Pad", {t("f32", "1~" + huge_dim), ints({1, 1})}) == "3~" + std::to_string(big + 7));
  check_infer_error("Pad", {t("f32", "5"), ints({big, 0})}, {}, Errc::bad_op_inputs, "2^31");
  CHECK(shape0("Slice", {t("f32", "-1"), ints({0}), ints({INT64_MAX}), ints({0}), ints({INT64_MAX})}) == "0~1");
  CHECK(shape0("Slice", {t("f32", "10"), ints({-1}), ints({INT64_MIN}), ints({0}), ints({INT64_MIN})}) == "1");
  CHECK(shape0("Slice", {t("f32", "2~" + huge_dim), ints({1}), ints({INT64_MAX})}) == "1~inf");
  CHECK(shape0("Resize", {t("f32", "-1"), none(), c(ge::Tensor::from<float>({1}, {4.f}))}) == "-1");
  check_infer_error("Resize", {t("f32", "3"), none(), c(ge::Tensor::from<float>({1}, {INFINITY}))}, {},
                    Errc::bad_op_inputs, "finite");
  check_infer_error("Conv", {t("f32", "1,1,8"), t("f32", "1,1,1")}, {{"strides", {big}}}, Errc::bad_attribute, "2^31");
  // The algebra's one overflow rule: a finite extent past int64 is int_overflow naming the node, not inf.
  check_infer_error("ConvTranspose", {t("f32", "1,1,1~" + huge_dim), t("f32", "1,1,2")}, {{"strides", {1 << 30}}},
                    Errc::int_overflow, "overflows int64");
  CHECK(shape0("ConvTranspose", {t("f32", "1,1,1~inf"), t("f32", "1,1,2")}, {{"strides", {1 << 30}}}) == "1,1,2~inf");
}
