// Tests of ge/compile/compile.hpp's memory behaviour: a graph moved into `compile` is
// consumed (the passes free the weights they replace) and compiles to the same model as
// a copy; kernels of nodes with constant inputs stay out of the process-wide kernel cache.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../../examples/models/mobilenet_v2.hpp"
#include "../../examples/models/resnet50.hpp"
#include "ge/compile/compile.hpp"
#include "ge/graph/builder.hpp"
#include "ge/ops/registry.hpp"
#include "ge/runtime/session.hpp"
#include "support/expect_error.hpp"

namespace {

using ge::test::expect_error;

std::vector<float> run(const std::shared_ptr<const ge::CompiledModel>& model, std::vector<float> x,
                       const std::vector<std::int64_t>& dims) {
  ge::Session s(model, {.threads = 1});
  const auto r = s.run({ge::TensorView{x.data(), ge::DataType::f32, dims}});
  const auto v = r.outputs.at(0).values<float>();
  return {v.begin(), v.end()};
}

std::vector<float> random_values(std::size_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = d(gen);
  return v;
}

}  // namespace

TEST_CASE("compile: a graph moved in is consumed and compiles like a copy") {
  const ge::BuildOptions opts{{"ge.inputShape", "data:1,3,32,32"}};
  ge::Graph g = ge::models::resnet50("1,3,32,32");
  const auto copied = ge::compile(g, opts);
  CHECK_FALSE(g.nodes().empty());  // a const graph is left alone
  const auto moved = ge::compile(std::move(g), opts);
  CHECK(g.nodes().empty());  // NOLINT(bugprone-use-after-move): consumed
  CHECK(g.constants().empty());
  REQUIRE(moved->pass_stats().size() == copied->pass_stats().size());
  // BatchNormalization folding drops each folded Conv's old weights at once.
  const ge::PassStats& bn = moved->pass_stats()[3];
  CHECK(bn.pass == "fold_batch_norm");
  CHECK(bn.nodes_removed == 53);
  CHECK(bn.constants_removed >= 53);
  CHECK(moved->graph().nodes().size() == copied->graph().nodes().size());
  CHECK(moved->graph().constants().size() == copied->graph().constants().size());
  const auto x = random_values(3 * 32 * 32, 7);
  CHECK(run(moved, x, {1, 3, 32, 32}) == run(copied, x, {1, 3, 32, 32}));
}

TEST_CASE("compile: kernels of nodes with constant inputs stay out of the process-wide cache") {
  ge::GraphBuilder b;
  const auto x = b.input("x", ge::DataType::f32, "1,4,8,8");
  b.output(x.conv2d(b.random_weights("w", {8, 4, 3, 3}, 11), {.pad = 1}));
  const ge::Graph g = b.build();
  const std::size_t before = ge::OpCompiler::global().stats().size;
  const auto model = ge::compile(g);
  CHECK(ge::OpCompiler::global().stats().size == before);  // the weights die with the model
  // A compiler given in the settings is used for every node, as before.
  ge::OpCompiler mine(16);
  const auto again = ge::compile(g, {}, ge::default_target(), {.compiler = &mine});
  CHECK(mine.stats().size == 1);
  const auto in = random_values(4 * 8 * 8, 3);
  CHECK(run(model, in, {1, 4, 8, 8}) == run(again, in, {1, 4, 8, 8}));
}

TEST_CASE("compile: the NHWC convs' weights are held packed only (ResNet-50 and MobileNetV2)") {
  for (const ge::Graph& g : {ge::models::resnet50("1,3,32,32"), ge::models::mobilenet_v2("1,3,32,32")}) {
    const auto model = ge::compile(g);
    const ge::Graph& cg = model->graph();
    std::size_t nhwc = 0;
    for (const ge::Node& n : cg.nodes()) {
      // (the fused blocks' two convs: weights at inputs 1 and 3, NHWC only)
      const bool two = n.op == "FusedPointwiseDepthwise" || n.op == "FusedDepthwisePointwise";
      if (!two && (n.op != "FusedConv" || !n.attrs.contains("layout") || n.attrs.at("layout").as_string() != "NHWC"))
        continue;
      for (const std::size_t at : two ? std::vector<std::size_t>{1, 3} : std::vector<std::size_t>{1}) {
        ++nhwc;
        const ge::Tensor* w = cg.constant_of(n.inputs[at]);
        REQUIRE(w != nullptr);
        CHECK_MESSAGE(!w->has_data(), n.name);
      }
    }
    CHECK(nhwc >= 50);
  }
}

TEST_CASE("compile: weights that the kernels hold packed are kept as type and dims only") {
  ge::GraphBuilder b;
  const auto x = b.input("x", ge::DataType::f32, "1,4,8,8");
  const auto w = b.random_weights("w", {8, 4, 3, 3}, 11);
  const auto y = x.conv2d(w, {.pad = 1});
  b.output(y);
  b.output(w);  // a graph output keeps its data
  const auto v = b.random_weights("v", {8, 4, 3, 3}, 12);
  b.output(x.conv2d(v, {.pad = 1}).relu());
  const ge::Graph g = b.build();
  const auto model = ge::compile(g);
  const ge::Graph& cg = model->graph();
  const ge::Tensor* kept = cg.constant_of(*cg.find_value("w"));
  const ge::Tensor* packed = cg.constant_of(*cg.find_value("v"));
  REQUIRE(kept != nullptr);
  REQUIRE(packed != nullptr);
  CHECK(kept->has_data());
  CHECK_FALSE(packed->has_data());
  CHECK(packed->dims() == std::vector<std::int64_t>{8, 4, 3, 3});
  CHECK(packed->bytes().empty());
  CHECK_THROWS_AS((void)packed->to_doubles(), ge::Error);
  // It runs, and the weight that is an output comes out whole.
  std::vector<float> in = random_values(4 * 8 * 8, 5);
  ge::Session s(model, {.threads = 1});
  const std::int64_t dims[] = {1, 4, 8, 8};
  const auto r = s.run({ge::TensorView{in.data(), ge::DataType::f32, dims}});
  REQUIRE(r.outputs.size() == 3);
  CHECK(r.outputs[1].values<float>().size() == 8 * 4 * 3 * 3);
}

TEST_CASE("compile: exporters' element-wise chains run in one block, in place, with the same results") {
  // The decomposed GELU (Div, Erf, Add, Mul, Mul), SiLU (Sigmoid then Mul) and an unfolded
  // BatchNormalization, without the passes that would fuse them.
  ge::GraphBuilder b;
  auto x = b.input("x", ge::DataType::f32, "2,4,8,8");
  auto act = x.relu("r");
  auto gelu = act * ((act / 1.4142135).erf() + 1.0) * 0.5;
  auto silu = gelu * gelu.sigmoid("sig");
  auto bn = silu.batch_norm(b.full("g", {4}, 1.5), b.full("bb", {4}, 0.25), b.full("m", {4}, 0.1), b.full("v", {4}, 2.0));
  b.output(bn.tanh("out"));
  ge::Graph g = b.build();
  const auto plain = ge::compile(g, {}, ge::default_target(), {.optimize = false});
  const ge::Plan& p = *plain->plans()[0];
  ge::verify(p);
  const std::int64_t one = 2 * 4 * 8 * 8 * 4;
  std::size_t granted = 0;
  for (const std::int32_t s : p.memory.shares_with) granted += s >= 0;
  // Three blocks: Relu -> Mul -> Mul -> Mul -> BatchNormalization; Div -> Erf -> Add (the
  // Relu's output is read again by the first Mul); the Sigmoid's output.
  CHECK(p.lifetimes.size() == 9);
  CHECK(granted == 6);
  CHECK(p.memory.arena_bytes == 2 * one);  // never more than two of them live at once
  CHECK(p.memory.arena_bytes == p.memory.lower_bound);
  const auto x_values = random_values(2 * 4 * 8 * 8, 3);
  const auto fused = ge::compile(g);
  const auto y = run(plain, x_values, {2, 4, 8, 8});
  const auto z = run(fused, x_values, {2, 4, 8, 8});
  REQUIRE(y.size() == z.size());
  for (std::size_t i = 0; i < y.size(); ++i) CHECK(y[i] == doctest::Approx(z[i]).epsilon(1e-5));
}

TEST_CASE("verify: an in-place pair the step's schema does not allow, or of another type, is an internal error") {
  ge::GraphBuilder b;
  auto x = b.input("x", ge::DataType::f32, "4,256");
  b.output(x.sigmoid("s").tanh("t").sigmoid("u").relu("out"));
  const auto m = ge::compile(b.build());
  const ge::Plan& good = *m->plans()[0];
  ge::verify(good);
  // t reuses s in place (Tanh over its input).
  const auto at = [&](const ge::Plan& p, const char* name) -> std::size_t {
    for (std::size_t i = 0; i < p.values.size(); ++i)
      if (p.values[i].name == name) return i;
    FAIL("no value " << name);
    return 0;
  };
  const ge::PlanValue& t = good.values[at(good, "t")];
  REQUIRE(good.memory.shares_with[static_cast<std::size_t>(t.block)] == good.values[at(good, "s")].block);
  const auto expect_internal = [](const ge::Plan& p, const char* part) {
    expect_error([&] { ge::verify(p); }, ge::Errc::internal, part);
  };
  ge::Plan no_schema_pair = good;  // the step writing t as if it were an op without in-place pairs
  no_schema_pair.steps[static_cast<std::size_t>(t.producer)].schema = &ge::OpRegistry::global().find("Conv");
  expect_internal(no_schema_pair, "may not write it over that input");
  ge::Plan other_type = good;
  other_type.values[at(other_type, "s")].desc.dtype = ge::DataType::i32;
  expect_internal(other_type, "in place with another type or size");
}
