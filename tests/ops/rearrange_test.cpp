// Shape inference of Tile, DepthToSpace and SpaceToDepth.
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

TEST_CASE("Tile: dims times the constant repeats; unknown dims otherwise") {
  CHECK(shape0("Tile", {t("f32", "2,1~3"), ints({3, 2})}) == "6,2~6");
  CHECK(shape0("Tile", {t("f32", "2,3"), t("i64", "2")}) == "-1,-1");
  check_infer_error("Tile", {t("f32", "2,3"), ints({2})}, {}, Errc::bad_op_inputs, "1 values", "rank 2");
  check_infer_error("Tile", {t("f32", "2,3"), ints({2, -1})}, {}, Errc::bad_op_inputs, "negative");
  CHECK(shape0("Tile", {t("f32", "-1,2~inf"), ints({3, 0})}) == "-1,0");
  // A product past int64 is an error, not a wrong extent (nor an unbounded one).
  check_infer_error("Tile", {t("f32", "4611686018427387904,3"), ints({4, 1})}, {}, Errc::int_overflow, "dim 0",
                    "overflows int64");
}

TEST_CASE("DepthToSpace and SpaceToDepth: dims, blocksize and mode checks") {
  CHECK(shape0("DepthToSpace", {t("f32", "1,8,2,3")}, {{"blocksize", 2}}) == "1,2,4,6");
  CHECK(shape0("DepthToSpace", {t("f32", "1,8,2,3")}, {{"blocksize", 2}, {"mode", std::string("CRD")}}) == "1,2,4,6");
  CHECK(shape0("SpaceToDepth", {t("f32", "1,3,4,6")}, {{"blocksize", 2}}) == "1,12,2,3");
  check_infer_error("DepthToSpace", {t("f32", "1,8,2,3")}, {{"blocksize", 2}, {"mode", std::string("RDC")}},
                    Errc::bad_attribute, "'mode'");
  check_infer_error("DepthToSpace", {t("f32", "1,8,2,3")}, {{"blocksize", 0}}, Errc::bad_attribute, "'blocksize'");
  check_infer_error("DepthToSpace", {t("f32", "1,8,2,3")}, {{"blocksize", 3}}, Errc::bad_op_inputs, "channels 8");
  check_infer_error("SpaceToDepth", {t("f32", "1,3,4,6")}, {{"blocksize", -1}}, Errc::bad_attribute, "'blocksize'");
  check_infer_error("SpaceToDepth", {t("f32", "1,3,5,6")}, {{"blocksize", 2}}, Errc::bad_op_inputs, "height 5");
  check_infer_error("SpaceToDepth", {t("f32", "3,5,6")}, {{"blocksize", 2}}, Errc::bad_op_inputs, "rank");
  // Sizes past int64 (fuzz_compile_op: a blocksize whose square wrapped to 0 divided by zero).
  check_infer_error("DepthToSpace", {t("f32", "1,8,2,3")}, {{"blocksize", std::int64_t{4093640704}}},
                    Errc::bad_attribute, "blocksize");
  check_infer_error("SpaceToDepth", {t("f32", "1,4096,1073741824,1073741824")}, {{"blocksize", std::int64_t{1} << 30}},
                    Errc::int_overflow, "4096");
  check_infer_error("DepthToSpace", {t("f32", "1,4,4611686018427387,3")}, {{"blocksize", 2048}}, Errc::bad_op_inputs,
                    "channels 4");
  check_infer_error("DepthToSpace", {t("f32", "1,4194304,4611686018427387,3")}, {{"blocksize", 2048}},
                    Errc::int_overflow, "4611686018427387");
}
