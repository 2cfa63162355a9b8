// Tests of ge/compile/flops.hpp: the FLOP counts of the contractions, against counts
// worked by hand, and the sum over a compiled ResNet-50 plan against the model's known
// cost.
#include <doctest/doctest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "../../examples/models/mobilenet_v2.hpp"
#include "../../examples/models/resnet50.hpp"
#include "ge/compile/compile.hpp"
#include "ge/compile/flops.hpp"
#include "ge/compile/plan.hpp"

namespace {

using Dims = std::vector<std::int64_t>;

std::optional<double> flops(std::string_view op, const std::vector<Dims>& in, const Dims& out) {
  std::vector<std::span<const std::int64_t>> spans(in.begin(), in.end());
  return ge::op_flops(op, spans, out);
}

}  // namespace

TEST_CASE("op_flops counts a multiply-add as two") {
  // 3x3 conv, 64 -> 64 channels on 56x56: 2 * (64*56*56) * (64*3*3).
  CHECK(flops("Conv", {{1, 64, 56, 56}, {64, 64, 3, 3}}, {1, 64, 56, 56}) == doctest::Approx(231211008.0));
  // FusedConv with a bias and a residual: the same count.
  CHECK(flops("FusedConv", {{2, 64, 56, 56}, {64, 64, 3, 3}, {64}, {2, 64, 56, 56}}, {2, 64, 56, 56}) ==
        doctest::Approx(2 * 231211008.0));
  // Depthwise: group 32, W [32, 1, 3, 3].
  CHECK(flops("Conv", {{1, 32, 10, 10}, {32, 1, 3, 3}}, {1, 32, 10, 10}) == doctest::Approx(2.0 * 3200 * 9));
  // An expand 1x1 (8 -> 32 channels on NHWC 10x10) then a depthwise 3x3 stride 2 (5x5 out).
  CHECK(flops("FusedPointwiseDepthwise", {{1, 10, 10, 8}, {32, 8, 1, 1}, {32}, {32, 1, 3, 3}, {32}}, {1, 5, 5, 32}) ==
        doctest::Approx(2.0 * 100 * 32 * 8 + 2.0 * 800 * 9));
  // ConvTranspose 8 -> 4 channels, 2x2 kernel on 5x5: every input element through 4*2*2 weights.
  CHECK(flops("ConvTranspose", {{1, 8, 5, 5}, {8, 4, 2, 2}}, {1, 4, 10, 10}) == doctest::Approx(2.0 * 200 * 16));
  // Batched MatMul [2, 3, 5] x [5, 7].
  CHECK(flops("MatMul", {{2, 3, 5}, {5, 7}}, {2, 3, 7}) == doctest::Approx(2.0 * 42 * 5));
  // MatMul of a matrix by a vector.
  CHECK(flops("MatMul", {{3, 5}, {5}}, {3}) == doctest::Approx(2.0 * 3 * 5));
  // Gemm, plain and with A transposed: [M=4, K=6] x [6, N=5].
  CHECK(flops("Gemm", {{4, 6}, {6, 5}}, {4, 5}) == doctest::Approx(2.0 * 20 * 6));
  CHECK(flops("Gemm", {{6, 4}, {6, 5}, {5}}, {4, 5}) == doctest::Approx(2.0 * 20 * 6));
}

TEST_CASE("op_flops: unknown ops and impossible dims give nothing, never a throw") {
  CHECK_FALSE(flops("Relu", {{4}}, {4}));
  CHECK_FALSE(flops("Add", {{4}, {4}}, {4}));
  CHECK_FALSE(flops("Conv", {{1, 3, 8, 8}}, {1, 4, 8, 8}));               // no weights
  CHECK_FALSE(flops("Conv", {{1, 3, 8, 8}, {4, 3}}, {1, 4, 8, 8}));       // weights of rank 2
  CHECK_FALSE(flops("Conv", {{1, 3, 8, 8}, {0, 3, 3, 3}}, {1, 0, 8, 8})); // no filters
  CHECK_FALSE(flops("Conv", {{1, 3, 8, 8}, {4, 3, 3, 3}}, {1, -1, 8, 8}));
  CHECK_FALSE(flops("FusedPointwiseDepthwise", {{1, 10, 10, 8}, {32, 8, 1, 1}, {32}}, {1, 10, 10, 32}));  // no W2
  CHECK_FALSE(flops("MatMul", {{}, {5}}, {}));
  CHECK_FALSE(flops("Gemm", {{4, 6, 1}, {6, 5}}, {4, 5}));
  CHECK_FALSE(flops("Gemm", {{4, 6}, {6, 5}}, {0, 5}));
}

TEST_CASE("plan_flops of ResNet-50 is its well-known cost") {
  // ResNet-50 at 224x224: 4.09 G multiply-adds in convolutions and the classifier.
  const auto model = ge::compile(ge::models::resnet50("1,3,224,224"), {});
  REQUIRE(model->plans().size() == 1);
  const ge::Plan& plan = *model->plans()[0];
  const std::optional<double> total = ge::plan_flops(plan);
  REQUIRE(total);
  CHECK(*total / 2 == doctest::Approx(4.09e9).epsilon(0.02));
  CHECK_FALSE(ge::step_flops(plan, plan.steps.size()));  // out of range: nothing
  // A plan whose dims are known only at run time has no static count.
  const auto ranged = ge::compile(ge::models::resnet50("1~4,3,224,224"), {});
  for (const auto& p : ranged->plans()) {
    if (!p->static_shapes) CHECK_FALSE(ge::plan_flops(*p));
  }
}

TEST_CASE("plan_flops of MobileNetV2 counts its fused expand-depthwise steps as the two convs") {
  // At 224x224 the first blocks' expanded images are over 1 MiB: fused steps.
  const auto fused = ge::compile(ge::models::mobilenet_v2("1,3,224,224"), {});
  REQUIRE(fused->plans().size() == 1);
  std::size_t fused_steps = 0;
  for (const auto& s : fused->plans()[0]->steps) fused_steps += s.op == "FusedPointwiseDepthwise" ? 1 : 0;
  CHECK(fused_steps >= 2);
  const auto plain = ge::compile(ge::models::mobilenet_v2("1,3,224,224"), {}, ge::default_target(), {.optimize = false});
  const std::optional<double> a = ge::plan_flops(*fused->plans()[0]), b = ge::plan_flops(*plain->plans()[0]);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(*a == doctest::Approx(*b).epsilon(1e-9));
  CHECK(*a / 2 == doctest::Approx(300e6).epsilon(0.02));  // MobileNetV2's well-known 300 M multiply-adds
}
