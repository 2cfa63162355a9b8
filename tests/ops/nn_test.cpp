// Shape inference of Conv, ConvTranspose, MatMul, Gemm, the norms and the pools.
#include "ge/shape/typed.hpp"
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

TEST_CASE("Conv: fixed shapes, strides, pads, dilations, groups, bias") {
  CHECK(shape0("Conv", {t("f32", "1,3,224,224"), t("f32", "64,3,7,7")}, {{"strides", {2, 2}}, {"pads", {3, 3, 3, 3}}}) ==
        "1,64,112,112");
  CHECK(shape0("Conv", {t("f32", "2,3,10,10"), t("f32", "8,3,3,3"), t("f32", "8")}) == "2,8,8,8");
  CHECK(shape0("Conv", {t("f32", "1,4,10,10"), t("f32", "4,1,3,3")}, {{"group", 4}, {"dilations", {2, 2}}}) == "1,4,6,6");
  CHECK(shape0("Conv", {t("f32", "1,4,10,11"), t("f32", "4,2,3,3")}, {{"group", 2}, {"pads", {0, 1, 0, 2}}}) == "1,4,8,12");
  CHECK(shape0("Conv", {t("f32", "1,3,32"), t("f32", "5,3,4")}, {{"strides", {2}}}) == "1,5,15");  // 1-D conv
  CHECK(shape0("Conv", {t("f32", "1,3,7,7,7"), t("f32", "2,3,3,3,3")}) == "1,2,5,5,5");          // 3-D conv
}

TEST_CASE("Conv: auto_pad") {
  const auto w = t("f32", "8,3,3,3");
  CHECK(shape0("Conv", {t("f32", "1,3,15,16"), w}, {{"auto_pad", "SAME_UPPER"}, {"strides", {2, 2}}}) == "1,8,8,8");
  CHECK(shape0("Conv", {t("f32", "1,3,15,16"), w}, {{"auto_pad", "SAME_LOWER"}}) == "1,8,15,16");
  CHECK(shape0("Conv", {t("f32", "1,3,15,16"), w}, {{"auto_pad", "VALID"}, {"strides", {2, 2}}}) == "1,8,7,7");
  check_infer_error("Conv", {t("f32", "1,3,15,16"), w}, {{"auto_pad", "SAME"}}, Errc::bad_attribute, "'auto_pad'",
                    "SAME_UPPER");
  check_infer_error("Conv", {t("f32", "1,3,15,16"), w}, {{"auto_pad", "VALID"}, {"pads", {1, 1, 1, 1}}},
                    Errc::bad_attribute, "pads", "NOTSET");
}

TEST_CASE("Conv: ranged and unknown dims, unknown rank") {
  // H in 100~208, kernel 3, stride 2, pad 1: out = floor((H + 2 - 3) / 2) + 1.
  CHECK(shape0("Conv", {t("f32", "1~8,3,100~208,-1"), t("f32", "16,3,3,3")}, {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}) ==
        "1~8,16,50~104,1~inf");
  CHECK(shape0("Conv", {t("f32", "-1,3,64~inf,32"), t("f32", "16,3,3,3")}) == "-1,16,62~inf,30");
  // An unknown extent gives an output of at least 1 (smaller inputs do not fit the window).
  CHECK(shape0("Conv", {t("f32", "-2"), t("f32", "16,3,3,3")}) == "-1,16,1~inf,1~inf");
  CHECK(shape0("Conv", {t("f32", "2,3,9,9"), t("f32", "-2")}) == "2,-1,1~9,1~9");  // any kernel up to 9
  CHECK(shape0("Conv", {t("f32", "-2"), t("f32", "-2")}) == "-2");
  CHECK(shape0("Conv", {t("f32", "-2"), t("f32", "-2")}, {{"kernel_shape", {3, 3}}}) == "-1,-1,1~inf,1~inf");
  CHECK(shape0("Conv", {t("f32", "2,3,9,9"), t("f32", "4,3,-1,3")}) == "2,4,1~9,7");  // kernel dim unknown
  CHECK(shape0("Conv", {t("f32", "2,3,9,9"), t("f32", "4,3,2~4,3")}) == "2,4,6~8,7");  // kernel dim a range
}

TEST_CASE("Conv: bad inputs name the node and the inputs") {
  check_infer_error("Conv", {t("f32", "1,3,224,224"), t("f32", "64,64,3,3")}, {}, Errc::bad_op_inputs,
                    "input 1 (W) has 64 input channels", "input 0 (X) has 3");
  check_infer_error("Conv", {t("f32", "1,3,224"), t("f32", "64,3,3,3")}, {}, Errc::bad_op_inputs, "rank 3", "rank 4");
  check_infer_error("Conv", {t("f32", "1,3"), t("f32", "64,3,3,3")}, {}, Errc::bad_op_inputs, "input 0 (X)",
                    "rank >= 3");
  check_infer_error("Conv", {t("f32", "1,4,8,8"), t("f32", "6,1,3,3")}, {{"group", 4}}, Errc::bad_op_inputs,
                    "not a multiple of group 4");
  check_infer_error("Conv", {t("f32", "1,3,8,8"), t("f32", "6,3,3,3"), t("f32", "5")}, {}, Errc::bad_op_inputs,
                    "input 2 (B)");
  check_infer_error("Conv", {t("f32", "1,3,2,8"), t("f32", "6,3,3,3")}, {}, Errc::bad_op_inputs, "spatial dim 0 is 2",
                    "too small");
  check_infer_error("Conv", {t("f32", "1,3,8,8"), t("f32", "6,3,3,3")}, {{"strides", {2}}}, Errc::bad_attribute,
                    "'strides'", "expected 2");
  check_infer_error("Conv", {t("f32", "1,3,8,8"), t("f32", "6,3,3,3")}, {{"strides", {0, 1}}}, Errc::bad_attribute,
                    "'strides'", "[1, 2^31]");
  check_infer_error("Conv", {t("f32", "1,3,8,8"), t("f32", "6,3,3,3")}, {{"group", 0}}, Errc::bad_attribute, "'group'");
  check_infer_error("Conv", {t("f32", "1,3,8,8"), t("f32", "6,3,3,3")}, {{"kernel_shape", {5, 5}}}, Errc::bad_attribute,
                    "'kernel_shape'");
  check_infer_error("Conv", {t("f32", "1,3,8,8"), t("f32", "6,3,3,3")}, {{"pads", {1, 1}}}, Errc::bad_attribute,
                    "'pads'", "expected 4");
  check_infer_error("Conv", {t("f32", "1,3,8,8"), t("f16", "6,3,3,3")}, {}, Errc::type_mismatch, "input 1 (W) is f16");
}

TEST_CASE("ConvTranspose: output size, output_padding, output_shape, groups") {
  // out = s * (in - 1) + output_padding + (k - 1) * d + 1 - pads
  CHECK(shape0("ConvTranspose", {t("f32", "1,16,7,7"), t("f32", "16,8,3,3")}, {{"strides", {2, 2}}}) == "1,8,15,15");
  CHECK(shape0("ConvTranspose", {t("f32", "1,16,7,7"), t("f32", "16,8,4,4")},
               {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}) == "1,8,14,14");
  CHECK(shape0("ConvTranspose", {t("f32", "1,16,7,7"), t("f32", "16,8,3,3")},
               {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"output_padding", {1, 1}}}) == "1,8,14,14");
  CHECK(shape0("ConvTranspose", {t("f32", "1,16,7,7"), t("f32", "16,8,3,3")}, {{"group", 2}}) == "1,16,9,9");
  CHECK(shape0("ConvTranspose", {t("f32", "1,16,7,7"), t("f32", "16,8,3,3")}, {{"output_shape", {20, 21}}}) ==
        "1,8,20,21");
  CHECK(shape0("ConvTranspose", {t("f32", "1,16,7,8"), t("f32", "16,8,3,3")},
               {{"auto_pad", "SAME_UPPER"}, {"strides", {2, 2}}}) == "1,8,14,16");
  CHECK(shape0("ConvTranspose", {t("f32", "1~4,16,8~16,-1"), t("f32", "16,8,2,2")}, {{"strides", {2, 2}}}) ==
        "1~4,8,16~32,-1");
  CHECK(shape0("ConvTranspose", {t("f32", "-2"), t("f32", "-2")}) == "-2");
  check_infer_error("ConvTranspose", {t("f32", "1,16,7,7"), t("f32", "8,8,3,3")}, {}, Errc::bad_op_inputs,
                    "input 0 (X) has 16 channels");
  check_infer_error("ConvTranspose", {t("f32", "1,16,7,7"), t("f32", "16,8,3,3")}, {{"output_padding", {2, 2}}},
                    Errc::bad_attribute, "'output_padding'");
  check_infer_error("ConvTranspose", {t("f32", "1,16,7,7"), t("f32", "16,8,3,3")}, {{"output_shape", {1, 2, 3}}},
                    Errc::bad_attribute, "'output_shape'");
}

TEST_CASE("MatMul: batched, broadcast, 1-D promotion, ranges") {
  CHECK(shape0("MatMul", {t("f32", "2,3"), t("f32", "3,4")}) == "2,4");
  CHECK(shape0("MatMul", {t("f32", "5,1,2,3"), t("f32", "4,3,6")}) == "5,4,2,6");
  CHECK(shape0("MatMul", {t("f32", "3"), t("f32", "3,4")}) == "4");
  CHECK(shape0("MatMul", {t("f32", "2,3"), t("f32", "3")}) == "2");
  CHECK(shape0("MatMul", {t("f32", "3"), t("f32", "3")}) == "");
  CHECK(shape0("MatMul", {t("f32", "1~8,1~128,256"), t("f32", "256,1024")}) == "1~8,1~128,1024");
  CHECK(shape0("MatMul", {t("f32", "-1,4,-1,64"), t("f32", "-1,4,64,-1")}) == "-1,4,-1,-1");
  CHECK(shape0("MatMul", {t("f32", "-2"), t("f32", "3,4")}) == "-2");
  check_infer_error("MatMul", {t("f32", "2,3"), t("f32", "4,5")}, {}, Errc::bad_op_inputs, "K = 3", "K = 4");
  check_infer_error("MatMul", {t("f32", "2,2,3"), t("f32", "3,3,4")}, {}, Errc::incompatible_shapes, "broadcast");
  check_infer_error("MatMul", {t("f32", ""), t("f32", "3")}, {}, Errc::bad_op_inputs, "rank >= 1");
}

TEST_CASE("Gemm: transA, transB, C broadcast") {
  CHECK(shape0("Gemm", {t("f32", "1~8,2048"), t("f32", "1000,2048"), t("f32", "1000")}, {{"transB", 1}}) == "1~8,1000");
  CHECK(shape0("Gemm", {t("f32", "3,5"), t("f32", "3,4")}, {{"transA", 1}}) == "5,4");
  CHECK(shape0("Gemm", {t("f32", "5,3"), t("f32", "3,4"), t("f32", "")}) == "5,4");
  CHECK(shape0("Gemm", {t("f32", "-2"), t("f32", "3,4")}) == "-1,4");
  check_infer_error("Gemm", {t("f32", "5,3"), t("f32", "4,3")}, {}, Errc::bad_op_inputs, "K = 3", "K = 4");
  check_infer_error("Gemm", {t("f32", "5,3"), t("f32", "3,4"), t("f32", "5")}, {}, Errc::incompatible_shapes,
                    "broadcast");
  check_infer_error("Gemm", {t("f32", "2,5,3"), t("f32", "3,4")}, {}, Errc::bad_op_inputs, "rank 2");
  check_infer_error("Gemm", {t("f32", "5,3"), t("f32", "3,4")}, {{"transA", 2}}, Errc::bad_attribute, "'transA'",
                    "[0, 1]");
}

TEST_CASE("BatchNormalization and LayerNormalization") {
  const auto p = t("f32", "64");
  CHECK(shape0("BatchNormalization", {t("f32", "1~8,64,-1,-1"), p, p, p, p}) == "1~8,64,-1,-1");
  CHECK(shape0("BatchNormalization", {t("f32", "-2"), p, p, p, p}) == "-2");
  const auto tr = infer("BatchNormalization", {t("f32", "2,-1,4"), p, p, p, p}, {{"training_mode", 1}}, 3);
  CHECK(tr.size() == 3);
  CHECK(tr[1].shape.to_string() == "64");
  check_infer_error("BatchNormalization", {t("f32", "1,32,4,4"), p, p, p, p}, {}, Errc::bad_op_inputs,
                    "input 1 (scale) has length 64", "32 channels");
  check_infer_error("BatchNormalization", {t("f32", "1,64,4,4"), p, p, p, t("f32", "64,1")}, {}, Errc::bad_op_inputs,
                    "input 4 (input_var)", "rank 1");
  check_infer_error("BatchNormalization", {t("f32", "1,64,4,4"), p, p, p, p}, {{"epsilon", -1.0}}, Errc::bad_attribute,
                    "'epsilon'");
  expect_error(
      [&] {
        (void)infer("BatchNormalization", {t("f32", "1,64,4,4"), p, p, p, p}, {}, 3);
      },
      Errc::bad_op_inputs, "asks for 3 output(s)");

  CHECK(shape0("LayerNormalization", {t("f32", "1~8,1~128,256"), t("f32", "256"), t("f32", "256")}) == "1~8,1~128,256");
  const auto ln = infer("LayerNormalization", {t("f32", "2,5,16"), t("f32", "5,16")}, {{"axis", 1}}, 3);
  CHECK(ln[1].shape.to_string() == "2,1,1");
  CHECK(ln[2].dtype == ge::DataType::f32);
  CHECK(shape0("LayerNormalization", {t("f32", "-2"), t("f32", "16")}) == "-2");
  check_infer_error("LayerNormalization", {t("f32", "2,5,16"), t("f32", "8")}, {}, Errc::bad_op_inputs,
                    "input 1 (Scale) [8]", "normalized dims [16]");
  check_infer_error("LayerNormalization", {t("f32", "2,5,16"), t("f32", "16")}, {{"axis", 3}}, Errc::bad_attribute,
                    "axis 3");
}

TEST_CASE("MaxPool and AveragePool: kernel, stride, pads, ceil_mode, ranges") {
  CHECK(shape0("MaxPool", {t("f32", "1,64,112,112")}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}) ==
        "1,64,56,56");
  CHECK(shape0("MaxPool", {t("f32", "1,1,5,5")}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}) == "1,1,2,2");
  CHECK(shape0("MaxPool", {t("f32", "1,1,5,5")}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}, {"ceil_mode", 1}}) ==
        "1,1,3,3");
  // ceil_mode: a last window that would start in the end padding is dropped (5 + pads 1+1, k 2, s 2: 3, not 4).
  CHECK(shape0("MaxPool", {t("f32", "1,1,5")}, {{"kernel_shape", {2}}, {"strides", {2}}, {"pads", {1, 1}}, {"ceil_mode", 1}}) ==
        "1,1,3");
  CHECK(shape0("MaxPool", {t("f32", "1,1,6")}, {{"kernel_shape", {2}}, {"strides", {2}}, {"pads", {1, 1}}, {"ceil_mode", 1}}) ==
        "1,1,4");
  CHECK(shape0("AveragePool", {t("f32", "1~8,3,32~64,-1")}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}) ==
        "1~8,3,16~32,1~inf");
  // layout NHWC (ge::layout_nhwc): the same windows over [N, H, W, C].
  CHECK(shape0("MaxPool", {t("f32", "1~8,112,112,64")},
               {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"layout", "NHWC"}}) ==
        "1~8,56,56,64");
  check_infer_error("MaxPool", {t("f32", "1,1,6")}, {{"kernel_shape", {2}}, {"layout", "NHWC"}}, Errc::bad_attribute,
                    "2-D");
  check_infer_error("MaxPool", {t("f32", "1,6,6,2")}, {{"kernel_shape", {2, 2}}, {"layout", "NCWH"}},
                    Errc::bad_attribute, "'layout'");
  CHECK(shape0("AveragePool", {t("f32", "1,6,6,2")}, {{"kernel_shape", {2, 2}}, {"layout", "NHWC"}}) == "1,5,5,2");
  check_infer_error("AveragePool", {t("f32", "1,1,6")}, {{"kernel_shape", {2}}, {"layout", "NHWC"}},
                    Errc::bad_attribute, "2-D");
  CHECK(shape0("AveragePool", {t("f32", "-2")}, {{"kernel_shape", {3, 3}}}) == "-1,-1,1~inf,1~inf");
  CHECK(shape0("MaxPool", {t("f32", "1,2,9,9")}, {{"kernel_shape", {3, 3}}, {"auto_pad", "SAME_UPPER"}, {"strides", {2, 2}}}) ==
        "1,2,5,5");
  const auto idx = infer("MaxPool", {t("f32", "1,2,4,4")}, {{"kernel_shape", {2, 2}}}, 2);
  CHECK(idx[1].dtype == ge::DataType::i64);
  CHECK(idx[1].shape.to_string() == "1,2,3,3");
  check_infer_error("MaxPool", {t("f32", "1,2,4,4")}, {}, Errc::bad_attribute, "'kernel_shape' is required");
  check_infer_error("MaxPool", {t("f32", "1,2,4")}, {{"kernel_shape", {2, 2}}}, Errc::bad_op_inputs, "rank 3",
                    "rank 4");
  check_infer_error("MaxPool", {t("f32", "1,2,4,4")}, {{"kernel_shape", {2, 2}}, {"pads", {2, 2, 2, 2}}},
                    Errc::bad_attribute, "below its kernel");
  check_infer_error("AveragePool", {t("f32", "1,2,4,4")}, {{"kernel_shape", {2, 2}}, {"count_include_pad", 3}},
                    Errc::bad_attribute, "'count_include_pad'");
  check_infer_error("AveragePool", {t("f32", "1,2,1,4")}, {{"kernel_shape", {2, 2}}}, Errc::bad_op_inputs, "too small");
}

TEST_CASE("GlobalAveragePool") {
  CHECK(shape0("GlobalAveragePool", {t("f32", "1~8,2048,7,7")}) == "1~8,2048,1,1");
  CHECK(shape0("GlobalAveragePool", {t("f32", "-1,16,-1,-1,-1")}) == "-1,16,1,1,1");
  CHECK(shape0("GlobalAveragePool", {t("f32", "-2")}) == "-2");
  check_infer_error("GlobalAveragePool", {t("f32", "2,3")}, {}, Errc::bad_op_inputs, "rank >= 3");
}

TEST_CASE("FusedConv with layout NHWC: the NCHW rule on [N, H, W, C] images; bad layouts and ranks refused") {
  CHECK(shape0("FusedConv", {t("f32", "2,56,56,144"), t("f32", "144,1,3,3")},
               {{"layout", "NHWC"}, {"group", 144}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}) == "2,28,28,144");
  CHECK(shape0("FusedConv", {t("f32", "1~8,7,7,320"), t("f32", "1280,320,1,1"), t("f32", "1280")},
               {{"layout", "NHWC"}}) == "1~8,7,7,1280");
  CHECK(shape0("FusedConv", {t("f32", "1,5,5,8"), t("f32", "16,8,1,1"), ge_test::none(), t("f32", "1,5,5,16")},
               {{"layout", "NHWC"}}) == "1,5,5,16");
  check_infer_error("FusedConv", {t("f32", "1,5,5,8"), t("f32", "16,8,1,1")}, {{"layout", "NCWH"}}, Errc::bad_attribute,
                    "'layout'", "NHWC");
  check_infer_error("FusedConv", {t("f32", "1,5,8"), t("f32", "16,8,1")}, {{"layout", "NHWC"}}, Errc::bad_op_inputs,
                    "input 0 (X)");
  check_infer_error("FusedConv", {t("f32", "1,5,5,8"), t("f32", "16,4,1,1")}, {{"layout", "NHWC"}}, Errc::bad_op_inputs,
                    "input 1 (W)");
  check_infer_error("FusedConv", {t("f32", "1,5,5,8"), t("f32", "16,8,1,1"), ge_test::none(), t("f32", "1,16,5,5")},
                    {{"layout", "NHWC"}}, Errc::bad_op_inputs, "input 3 (Z)");
  // x_layout NCHW: X [N, C, H, W] as given (a chain's first conv), Y and Z NHWC.
  CHECK(shape0("FusedConv", {t("f32", "1~8,3,224,224"), t("f32", "32,3,3,3"), t("f32", "32")},
               {{"layout", "NHWC"}, {"x_layout", "NCHW"}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}) ==
        "1~8,112,112,32");
  check_infer_error("FusedConv", {t("f32", "1,3,9,9"), t("f32", "16,3,3,3")}, {{"x_layout", "NCHW"}},
                    Errc::bad_attribute, "x_layout NCHW", "needs layout NHWC");
  check_infer_error("FusedConv", {t("f32", "1,3,9,9"), t("f32", "16,3,3,3")}, {{"layout", "NHWC"}, {"x_layout", "NHWC"}},
                    Errc::bad_attribute, "'x_layout'");
}

TEST_CASE("Conv inference and ge::typed::conv2d are the same rule") {
  using namespace ge::typed;
  // The typed face evaluates ge::window_out at compile time; the op's rule calls it at run time.
  using X = ShapeOf<Ranged<1, 8>, Static<3>, Ranged<100, 208>, Unknown>;
  CHECK(to_shape(conv2d_t<X, StaticShape<16, 3, 3, 3>, Stride<2>, Pad<1>>{}).to_string() ==
        shape0("Conv", {t("f32", "1~8,3,100~208,-1"), t("f32", "16,3,3,3")}, {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}));
  using K = ShapeOf<Static<4>, Static<3>, Ranged<2, 4>, Static<3>>;
  CHECK(to_shape(conv2d_t<StaticShape<2, 3, 9, 9>, K>{}).to_string() ==
        shape0("Conv", {t("f32", "2,3,9,9"), t("f32", "4,3,2~4,3")}));
  CHECK(to_shape(conv2d_t<UnknownRank, StaticShape<16, 3, 3, 3>, Dilation<2>>{}).to_string() ==
        shape0("Conv", {t("f32", "-2"), t("f32", "16,3,3,3")}, {{"dilations", {2, 2}}}));
}
