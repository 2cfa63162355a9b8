// Tests of hybrid mode (ge.compileHybridMode=1, ge/options/dynamic_config.hpp and
// CompiledModel::hybrid): a static plan per gear plus a range plan that serves the inputs
// matching no gear, the option's rules as clear errors, model files keeping both.
#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>
#include <utility>
#include <string>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/compile/model_file.hpp"
#include "ge/graph/builder.hpp"
#include "ge/runtime/session.hpp"
#include "support/expect_error.hpp"

using ge::DataType;
using ge::Errc;

namespace {

// y = relu(x W + b) summed with x's softmax over its rows: x is [-1, 16].
ge::Graph mlp(const char* shape = "-1,16") {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, shape);
  const auto h = b.op("Relu", {b.op("Add", {b.op("MatMul", {x, b.random_weights("w", {16, 16}, 3)}),
                                            b.random_weights("bias", {16}, 4)})});
  b.output(b.op("Add", {h, b.op("Softmax", {x}, {{"axis", std::int64_t{1}}})}, {}, "y"));
  return b.build();
}

std::vector<float> ramp(std::int64_t n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 37) % 23) * 0.1f - 1.f;
  return v;
}

// The outputs of `model` at batch `batch`, with the kind of plan that ran.
// A run at `batch`. By default the session runs the range plan itself where one serves
// (specialize_ranges off: these tests are about it); `specialize` runs as a default
// session does, on a static plan made for the batch.
std::vector<float> run(const std::shared_ptr<const ge::CompiledModel>& model, std::int64_t batch, ge::PlanKind* kind,
                       std::int32_t* gear = nullptr, bool specialize = false) {
  std::vector<float> x = ramp(batch * 16);
  ge::Session s(model, {.threads = 1, .specialize_ranges = specialize});
  const auto r = s.run({ge::TensorView{x.data(), DataType::f32, {batch, 16}}});
  if (kind) *kind = r.plan;
  if (gear) *gear = r.gear;
  const auto v = r.outputs[0].values<float>();
  return {v.begin(), v.end()};
}

ge::BuildOptions hybrid(const char* shape, const char* gears) {
  return {{"ge.inputShape", shape}, {"ge.dynamicBatchSize", gears}, {"ge.compileHybridMode", "1"},
          {"ge.dynamicNodeType", "1"}};
}

}  // namespace

TEST_CASE("hybrid options: GE's keys, names and flags; 0 or 1 only") {
  CHECK(ge::find_option("ge.compileHybridMode").id == ge::Option::compile_hybrid_mode);
  CHECK(ge::find_option("COMPILE_HYBRID_MODE").id == ge::Option::compile_hybrid_mode);
  CHECK(ge::find_option("compile_hybrid_mode").id == ge::Option::compile_hybrid_mode);
  CHECK(ge::find_option("ge.dynamicNodeType").id == ge::Option::dynamic_node_type);
  ge::BuildOptions o;
  o.set("ge.compileHybridMode", " 1 ");
  CHECK(o.compile_hybrid_mode() == true);
  ge::test::expect_error([&] { o.set("ge.compileHybridMode", "2"); }, Errc::bad_option_value, "ge.compileHybridMode",
                         "'2'", "expected 0 or 1");
  CHECK(o.compile_hybrid_mode() == true);  // a failed set changes nothing
  ge::test::expect_error([&] { o.set("ge.dynamicNodeType", "yes"); }, Errc::bad_option_value, "ge.dynamicNodeType");
}

TEST_CASE("hybrid options: the rules as clear errors") {
  const ge::Target cpu = ge::default_target();
  // Without gears there is nothing to be hybrid with.
  ge::test::expect_error(
      [&] { (void)ge::parse_dynamic_config({{"ge.inputShape", "x:-1,16"}, {"ge.compileHybridMode", "1"}}, cpu); },
      Errc::missing_gears, "ge.compileHybridMode", "without gears", "ge.dynamicBatchSize");
  // A target without ranges has no range plan to fall back on.
  ge::test::expect_error([&] { (void)ge::parse_dynamic_config(hybrid("x:-1,16", "1,2"), ge::find_target("atlas_200i_500_a2")); },
                         Errc::ranges_unsupported, "no shape ranges");
  // A lo~hi takes gears only in hybrid mode, and holds every gear.
  ge::test::expect_error(
      [&] { (void)ge::parse_dynamic_config({{"ge.inputShape", "x:1~16,16"}, {"ge.dynamicBatchSize", "1,2"}}, cpu); },
      Errc::bad_input_shape, "has the range '1~16'", "compileHybridMode");
  ge::test::expect_error([&] { (void)ge::parse_dynamic_config(hybrid("x:1~4,16", "1,8"), cpu); },
                         Errc::gear_shape_mismatch, "gear 2 puts 8", "outside its range '1~4'");
  const ge::DynamicConfig c = ge::parse_dynamic_config(hybrid("x:1~16,16", "1,8"), cpu);
  CHECK(c.hybrid);
  CHECK(c.mode == ge::ShapeMode::gears);
  CHECK(c.gears.size() == 2);
  // dynamicNodeType 0 (dataset inputs) is read as placeholders, with a notice.
  ge::BuildOptions zero = hybrid("x:-1,16", "1,2");
  zero.set("ge.dynamicNodeType", "0");
  const ge::DynamicConfig z = ge::parse_dynamic_config(zero, cpu);
  REQUIRE(z.warnings.size() == 1);
  CHECK(z.warnings[0].find("placeholders") != std::string::npos);
  // compileHybridMode=0 is plain gears.
  ge::BuildOptions off = hybrid("x:-1,16", "1,2");
  off.set("ge.compileHybridMode", "0");
  CHECK_FALSE(ge::parse_dynamic_config(off, cpu).hybrid);
}

TEST_CASE("hybrid mode: gears run their static plans, the shapes between them the range plan, with the same results") {
  const auto model = ge::compile(mlp(), hybrid("x:-1,16", "1,2,8"));
  CHECK(model->hybrid());
  REQUIRE(model->plans().size() == 4);
  const ge::Plan& range = *model->plans().back();
  CHECK(range.gear == -1);
  CHECK(range.input_shapes[0].to_string() == "1~8,16");
  for (std::size_t g = 0; g < 3; ++g) CHECK(model->plans()[g]->static_shapes);
  CHECK(model->arena_bytes() >= range.arena_bytes());

  for (const std::int64_t batch : {1, 2, 3, 5, 7, 8}) {
    CAPTURE(batch);
    ge::PlanKind kind{};
    std::int32_t gear = -2;
    const std::vector<float> got = run(model, batch, &kind, &gear);
    const bool is_gear = batch == 1 || batch == 2 || batch == 8;
    CHECK(kind == (is_gear ? ge::PlanKind::gear : ge::PlanKind::range));
    CHECK((gear >= 0) == is_gear);
    // A default session runs the batches between gears on static plans made for them.
    ge::PlanKind made_kind{};
    CHECK(run(model, batch, &made_kind, nullptr, true) == got);
    CHECK(made_kind == (is_gear ? ge::PlanKind::gear : ge::PlanKind::signature));
    // The same numbers as a model compiled for exactly this batch.
    const std::string fixed = "x:" + std::to_string(batch) + ",16";
    ge::PlanKind fixed_kind{};
    CHECK(got == run(ge::compile(mlp(), {{"ge.inputShape", fixed}}), batch, &fixed_kind));
    CHECK(fixed_kind == ge::PlanKind::fixed);
  }
  CHECK(ge::to_string(ge::PlanKind::range) == "range");
  // Outside the hull of the gears: no plan, and the message lists the gears and the range.
  std::vector<float> x = ramp(9 * 16);
  ge::Session s(model);
  ge::test::expect_error([&] { (void)s.run({ge::TensorView{x.data(), DataType::f32, {9, 16}}}); },
                         Errc::no_matching_gear, "x:9,16", "gear 2: x:8,16", "range plan: x:1~8,16");
  // Plain gears still refuse batch 3.
  ge::BuildOptions plain = hybrid("x:-1,16", "1,2,8");
  plain.unset(ge::Option::compile_hybrid_mode);
  std::vector<float> x3 = ramp(3 * 16);
  ge::Session p(ge::compile(mlp(), plain));
  ge::test::expect_error([&] { (void)p.run({ge::TensorView{x3.data(), DataType::f32, {3, 16}}}); },
                         Errc::no_matching_gear, "match no gear");
}

TEST_CASE("hybrid mode: a range in INPUT_SHAPE bounds the range plan; an unbounded one makes plans per signature") {
  const auto wide = ge::compile(mlp(), hybrid("x:1~32,16", "2,4"));
  REQUIRE(wide->plans().size() == 3);
  CHECK(wide->plans().back()->input_shapes[0].to_string() == "1~32,16");
  ge::PlanKind kind{};
  CHECK(run(wide, 20, &kind).size() == 20 * 16);
  CHECK(kind == ge::PlanKind::range);
  CHECK(run(wide, 4, &kind).size() == 4 * 16);
  CHECK(kind == ge::PlanKind::gear);

  const auto open = ge::compile(mlp(), hybrid("x:1~inf,16", "2,4"));
  CHECK(open->plans_per_signature());
  REQUIRE(open->plans().size() == 2);  // the gears' plans; the rest at run time
  CHECK(run(open, 4, &kind).size() == 4 * 16);
  CHECK(kind == ge::PlanKind::gear);
  CHECK(run(open, 100, &kind) == run(ge::compile(mlp(), {{"ge.inputShape", "x:100,16"}}), 100, nullptr));
  CHECK(kind == ge::PlanKind::signature);
}

TEST_CASE("hybrid mode: with image gears and dims gears too") {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "1,3,-1,-1");
  b.output(b.op("MaxPool", {b.op("Relu", {x})}, {{"kernel_shape", std::vector<std::int64_t>{2, 2}},
                                                   {"strides", std::vector<std::int64_t>{2, 2}}}, "y"));
  const ge::Graph g = b.build();
  const auto model = ge::compile(g, {{"ge.inputShape", "x:1,3,-1,-1"}, {"ge.dynamicImageSize", "8,8;16,32"},
                                     {"ge.inputFormat", "NCHW"}, {"ge.compileHybridMode", "1"}});
  REQUIRE(model->plans().size() == 3);
  CHECK(model->plans().back()->input_shapes[0].to_string() == "1,3,8~16,8~32");
  std::vector<float> in = ramp(3 * 10 * 12);
  ge::Session s(model, {.specialize_ranges = false});
  const auto r = s.run({ge::TensorView{in.data(), DataType::f32, {1, 3, 10, 12}}});
  CHECK(r.plan == ge::PlanKind::range);
  CHECK(r.outputs[0].dims == std::vector<std::int64_t>{1, 3, 5, 6});

  const auto dims = ge::compile(mlp("-1,16"), {{"ge.inputShape", "x:-1,16"}, {"ge.dynamicDims", "1;4;6"},
                                               {"ge.compileHybridMode", "1"}});
  ge::PlanKind kind{};
  CHECK(run(dims, 5, &kind).size() == 5 * 16);
  CHECK(kind == ge::PlanKind::range);
}

TEST_CASE("hybrid mode: a model file keeps the gears and the range plan") {
  const auto model = ge::compile(mlp(), hybrid("x:-1,16", "1,4"), ge::default_target(), {});
  const std::vector<std::byte> bytes = ge::save_to_memory(*model);
  const auto loaded = ge::load_compiled(bytes);
  CHECK(loaded->hybrid());
  REQUIRE(loaded->plans().size() == 3);
  ge::PlanKind kind{};
  CHECK(run(loaded, 3, &kind) == run(model, 3, nullptr));
  CHECK(kind == ge::PlanKind::range);
}

TEST_CASE("hybrid mode: a range plan that works out shapes as it runs gives way to static plans per batch") {
  // x [-1, 8, 8] through a reshape whose shape comes from Shape(x), as exporters write it.
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "-1,8,8");
  const auto flat = b.op("Reshape", {x, b.constant("flat", ge::Tensor::from<std::int64_t>({2}, {-1, 8}))});
  const auto y = b.op("MatMul", {flat, b.random_weights("w", {8, 8}, 2)});
  b.output(b.op("Reshape", {y, b.op("Shape", {x})}, {}, "y"));
  const ge::Graph g = b.build();
  const ge::BuildOptions opts{{"ge.inputShape", "x:-1,8,8"}, {"ge.dynamicBatchSize", "2,4,8"}, {"ge.compileHybridMode", "1"}};
  const auto model = ge::compile(g, opts, ge::default_target(), {.plan_cache = 2});
  REQUIRE(model->plans().size() == 4);
  CHECK(model->plans().back()->data_dependent_steps > 0);
  const auto at = [&](ge::Session& s, std::int64_t batch) {
    std::vector<float> in = ramp(batch * 64);
    const ge::RunResult r = s.run({ge::TensorView{in.data(), DataType::f32, {batch, 8, 8}}});
    const auto v = r.outputs[0].values<float>();
    return std::pair{r.plan, std::vector<float>(v.begin(), v.end())};
  };
  ge::Session s(model, {.threads = 1});
  const auto fixed = [&](std::int64_t batch) {
    ge::Session f(ge::compile(g, {{"ge.inputShape", "x:" + std::to_string(batch) + ",8,8"}}), {.threads = 1});
    return at(f, batch).second;
  };
  // Batch 3: a static plan made at its first run, the same numbers as a compile for it.
  auto [kind3, y3] = at(s, 3);
  CHECK(kind3 == ge::PlanKind::signature);
  CHECK(y3 == fixed(3));
  CHECK(at(s, 3).first == ge::PlanKind::signature);
  CHECK(s.plan_cache_stats().misses == 1);  // made once
  CHECK(at(s, 5).first == ge::PlanKind::signature);
  // plan_cache 2 is full: batch 6 runs on the range plan, nothing is evicted or made again.
  auto [kind6, y6] = at(s, 6);
  CHECK(kind6 == ge::PlanKind::range);
  CHECK(y6 == fixed(6));
  CHECK(at(s, 3).first == ge::PlanKind::signature);
  CHECK(s.plan_cache_stats().misses == 2);
  CHECK(s.plan_cache_stats().evictions == 0);
  // Off: the range plan always runs.
  ge::Session off(model, {.threads = 1, .specialize_ranges = false});
  CHECK(at(off, 3).first == ge::PlanKind::range);
  CHECK(off.plan_cache_stats().misses == 0);
  // cost says the same.
  const ge::MachineSpeed speed{100, 10, 1, 1};
  const std::vector<std::vector<std::int64_t>> dims3{{3, 8, 8}};
  const ge::ShapeCost c = model->cost(dims3, speed);
  CHECK(c.plan == ge::PlanKind::signature);
  CHECK_FALSE(c.plan_made);
  CHECK(model->cost(dims3, speed, {.specialize_ranges = false}).plan == ge::PlanKind::range);
}
