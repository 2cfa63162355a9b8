// compile() + Session on small graphs: gears, ranges, per-signature plans, streams,
// caller memory, data-dependent outputs, bad input, concurrent runs.
#include <doctest/doctest.h>

#include <cmath>
#include <thread>
#include <vector>

#include "ge/ge.hpp"
#include "support/expect_error.hpp"

namespace {

using ge::DataType;
using ge::TensorView;
using ge::test::error_of;
using ge::test::expect_error;

// x [?, 4] -> relu(x) * 2 + 1 -> y, plus a second branch sum for streams.
ge::Graph small_graph(std::string_view shape) {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, shape);
  const auto y = x.relu("relu") * 2.0 + 1.0;
  b.output(y);
  return b.build();
}

struct Buf {
  std::vector<float> data;
  std::vector<std::int64_t> dims;
  TensorView view() { return {data.data(), DataType::f32, dims}; }
};

Buf iota(std::vector<std::int64_t> dims, float start = -3.0f) {
  Buf b;
  b.dims = std::move(dims);
  std::int64_t n = 1;
  for (const auto d : b.dims) n *= d;
  b.data.resize(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < b.data.size(); ++i) b.data[i] = start + 0.5f * static_cast<float>(i);
  return b;
}

void check_small(const ge::Output& out, const Buf& in) {
  REQUIRE(out.dims == in.dims);
  const auto y = out.values<float>();
  REQUIRE(y.size() == in.data.size());
  for (std::size_t i = 0; i < y.size(); ++i) CHECK(y[i] == doctest::Approx(std::max(in.data[i], 0.0f) * 2 + 1));
}

}  // namespace

TEST_CASE("compile: fixed shapes give one static plan that runs") {
  auto model = ge::compile(small_graph("2,4"));
  REQUIRE(model->plans().size() == 1);
  const ge::Plan& p = *model->plans()[0];
  CHECK(p.static_shapes);
  CHECK(p.gear == -1);
  ge::verify(p);
  ge::Session s(model, {.threads = 2});
  auto x = iota({2, 4});
  const auto r = s.run({x.view()});
  check_small(r.outputs.at(0), x);
  CHECK(r[r.outputs[0].name].dtype == DataType::f32);
  CHECK(r.outputs[0].bytes == 32);
  CHECK_THROWS_AS((void)r["nope"], ge::Error);
}

TEST_CASE("compile: batch gears give one plan per gear sharing one arena") {
  ge::BuildOptions opts{{"ge.inputShape", "x:-1,4"}, {"ge.dynamicBatchSize", "1,2,4"}};
  auto model = ge::compile(small_graph("-1,4"), opts);
  CHECK(model->mode() == ge::ShapeMode::gears);
  REQUIRE(model->plans().size() == 3);
  std::int64_t largest = 0;
  for (const auto& p : model->plans()) {
    ge::verify(*p);
    CHECK(p->static_shapes);
    largest = std::max(largest, p->arena_bytes());
  }
  CHECK(model->arena_bytes() == largest);
  CHECK(model->plans()[2]->input_shapes[0].to_string() == "4,4");
  ge::Session s(model);
  for (const std::int64_t batch : {4, 1, 2}) {
    auto x = iota({batch, 4});
    const auto r = s.run({x.view()});
    CHECK(r.gear == (batch == 1 ? 0 : batch == 2 ? 1 : 2));
    check_small(r.outputs[0], x);
  }
  // A shape in no gear: a clear error listing the gears; the session stays usable.
  auto bad = iota({3, 4});
  expect_error([&] { (void)s.run({bad.view()}); }, ge::Errc::no_matching_gear, "x:3,4", "match no gear",
               "gear 0: x:1,4", "gear 2: x:4,4");
  auto x = iota({2, 4});
  check_small(s.run({x.view()}).outputs[0], x);
}

TEST_CASE("compile: a bounded range gives one range plan checked at run time") {
  auto model = ge::compile(small_graph("1~8,4"));
  CHECK(model->mode() == ge::ShapeMode::ranges);
  REQUIRE(model->plans().size() == 1);
  const ge::Plan& p = *model->plans()[0];
  ge::verify(p);
  CHECK_FALSE(p.static_shapes);
  // Planned for the upper bound: 8 x 4 floats per intermediate value.
  for (const auto& v : p.values)
    if (v.storage == ge::Storage::arena) CHECK(v.bytes == 8 * 4 * 4);
  ge::Session s(model);
  for (const std::int64_t batch : {5, 1, 8}) {
    auto x = iota({batch, 4});
    check_small(s.run({x.view()}).outputs[0], x);
  }
  auto big = iota({9, 4});
  expect_error([&] { (void)s.run({big.view()}); }, ge::Errc::out_of_range, "x:9,4", "1~8,4");
  // INPUT_SHAPE narrows the declared range.
  auto narrow = ge::compile(small_graph("-1,4"), {{"ge.inputShape", "x:2~3,4"}});
  CHECK(narrow->plans()[0]->input_shapes[0].to_string() == "2~3,4");
}

TEST_CASE("compile: an unbounded dim gets a plan per input signature, cached") {
  auto model = ge::compile(small_graph("-1,4"), {}, ge::default_target(), {.plan_cache = 2});
  CHECK(model->plans_per_signature());
  CHECK(model->plans().empty());
  ge::Session s(model);
  for (const std::int64_t batch : {3, 7, 3, 100}) {
    auto x = iota({batch, 4});
    check_small(s.run({x.view()}).outputs[0], x);
  }
  const auto st = s.plan_cache_stats();
  CHECK(st.misses == 3);
  CHECK(st.hits == 1);
  CHECK(st.size == 2);
  // The runtime selects and caches; compile's build_plan makes the plan, pure.
  ge::PlanSelector plans(model);
  std::vector<std::vector<std::int64_t>> dims{{7, 4}};
  const auto p = plans.select(dims);
  CHECK(p->static_shapes);
  CHECK(p->per_run_values == 0);
  CHECK(p == plans.select(dims));
  CHECK(plans.cache_stats().hits == 1);
  ge::verify(*p);
  const auto q = ge::build_plan(*model, {ge::Shape{7, 4}});
  CHECK(q != p);
  CHECK(q->arena_bytes() == p->arena_bytes());
  expect_error([&] { (void)ge::build_plan(*model, {ge::Shape{7, 4, 1}}); }, ge::Errc::bad_tensor, "rank");
  expect_error([&] { (void)ge::build_plan(*model, {}); }, ge::Errc::bad_tensor, "0 input shapes");
}

TEST_CASE("compile: targets without ranges refuse dynamic graphs") {
  expect_error([] { (void)ge::compile(small_graph("1~8,4"), {}, ge::find_target("atlas_200i_500_a2")); },
               ge::Errc::ranges_unsupported, "1~8,4", "atlas_200i_500_a2");
  expect_error([] { (void)ge::compile(small_graph("2,4"), {}, ge::default_target(), {.max_streams = 0}); },
               ge::Errc::invalid_argument, "max_streams");
  expect_error([] { (void)ge::compile(small_graph("2,4"), {}, ge::default_target(), {.alignment = 48}); },
               ge::Errc::invalid_argument, "alignment 48", "power of two");
  expect_error([] { (void)ge::compile(small_graph("2,4"), {}, ge::default_target(), {.plan_cache = 0}); },
               ge::Errc::invalid_argument, "plan_cache 0");
  expect_error([] { (void)ge::compile(small_graph("2,4"), {}, ge::default_target(), {.plan_search_budget = -3}); },
               ge::Errc::invalid_argument, "plan_search_budget -3", "expected >= 0");
  expect_error(
      [] {
        (void)ge::compile(small_graph("-1,4"), {{"ge.inputShape", "y:-1,4"}, {"ge.dynamicBatchSize", "1,2"}});
      },
      ge::Errc::unknown_input, "'y'");
}

TEST_CASE("session: bad inputs are clear errors and the session stays usable") {
  auto model = ge::compile(small_graph("1~8,4"));
  ge::Session s(model);
  auto x = iota({2, 4});
  expect_error([&] { (void)s.run(std::span<const TensorView>{}); }, ge::Errc::bad_tensor, "0 inputs", "takes 1");
  std::vector<std::int32_t> ints(8);
  std::int64_t d2[] = {2, 4};
  expect_error(
      [&] {
        (void)s.run({TensorView{ints.data(), DataType::i32, d2}});
      },
      ge::Errc::bad_tensor, "'x'", "i32", "f32");
  std::int64_t d3[] = {2, 2, 2};
  expect_error([&] { (void)s.run({TensorView{x.data.data(), DataType::f32, d3}}); }, ge::Errc::bad_tensor, "rank 3");
  expect_error([&] { (void)s.run({TensorView{nullptr, DataType::f32, d2}}); }, ge::Errc::bad_tensor, "null buffer");
  std::int64_t neg[] = {-2, 4};
  expect_error([&] { (void)s.run({TensorView{x.data.data(), DataType::f32, neg}}); }, ge::Errc::bad_tensor, "negative");
  check_small(s.run({x.view()}).outputs[0], x);
  expect_error([] { ge::Session bad(nullptr); }, ge::Errc::invalid_argument, "null model");
  expect_error([&] { ge::Session bad(model, {.threads = -1}); }, ge::Errc::invalid_argument, "threads -1");
}

TEST_CASE("session: outputs into caller memory") {
  auto model = ge::compile(small_graph("1~8,4"));
  ge::Session s(model);
  auto x = iota({3, 4});
  std::vector<float> y(32, -1.0f);
  std::int64_t cap[] = {8, 4};
  const auto r = s.run({x.view()}, {TensorView{y.data(), DataType::f32, cap}});
  CHECK(r.outputs[0].data == y.data());
  CHECK(r.outputs[0].dims == std::vector<std::int64_t>{3, 4});
  check_small(r.outputs[0], x);
  CHECK(y[12] == -1.0f);  // past the real output: untouched
  std::int64_t small[] = {2, 4};
  expect_error(
      [&] {
        (void)s.run({x.view()}, {TensorView{y.data(), DataType::f32, small}});
      },
      ge::Errc::bad_tensor, "needs 48 bytes", "holds 32");
  auto fixed = ge::compile(small_graph("3,4"));
  ge::Session fs(fixed);
  expect_error(
      [&] {
        (void)fs.run({x.view()}, {TensorView{y.data(), DataType::f32, small}});
      },
      ge::Errc::bad_tensor, "needs 48 bytes");
}

TEST_CASE("session: data-dependent output shapes") {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "2~6");
  b.output(x.nonzero("nz"));
  auto model = ge::compile(b.build());
  ge::verify(*model->plans()[0]);
  ge::Session s(model);
  std::vector<float> v{0, 3, 0, 0, 5};
  std::int64_t d[] = {5};
  const auto r = s.run({TensorView{v.data(), DataType::f32, d}});
  REQUIRE(r.outputs[0].dims == std::vector<std::int64_t>{1, 2});
  const auto idx = r.outputs[0].values<std::int64_t>();
  CHECK(idx[0] == 1);
  CHECK(idx[1] == 4);
}

namespace {

// Four independent branches over one input, joined: streams and events.
ge::Graph branchy(std::string_view shape) {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, shape);
  std::vector<ge::Value> parts;
  for (int i = 0; i < 4; ++i) {
    const auto w = b.random_weights("w" + std::to_string(i), {16, 16}, static_cast<std::uint64_t>(i + 1));
    parts.push_back(x.matmul(w).relu().matmul(w).sigmoid());
  }
  b.output((parts[0] + parts[1]) * (parts[2] - parts[3]));
  return b.build();
}

}  // namespace

TEST_CASE("session: parallel branches on streams equal one stream, also from many threads") {
  auto multi = ge::compile(branchy("1~4,16"));
  auto single = ge::compile(branchy("1~4,16"), {}, ge::default_target(), {.max_streams = 1});
  const ge::Plan& pm = *multi->plans()[0];
  ge::verify(pm);
  ge::verify(*single->plans()[0]);
  CHECK(pm.streams.stream_count > 1);
  CHECK_FALSE(pm.streams.events.empty());
  CHECK(single->plans()[0]->streams.stream_count == 1);

  auto x = iota({3, 16}, -1.0f);
  for (auto& v : x.data) v *= 0.1f;
  ge::Session ss(single, {.threads = 1});
  const auto expected = ss.run({x.view()});
  ge::Session sm(multi, {.threads = 2});
  const auto got = sm.run({x.view()});
  REQUIRE(got.outputs[0].dims == expected.outputs[0].dims);
  const auto e = expected.outputs[0].values<float>(), g = got.outputs[0].values<float>();
  for (std::size_t i = 0; i < e.size(); ++i) CHECK(g[i] == e[i]);

  // Many threads, one session and one model, each run with its own arena.
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < 10; ++k) {
        auto xi = x;
        const auto r = sm.run({xi.view()});
        const auto v = r.outputs[0].values<float>();
        for (std::size_t i = 0; i < e.size(); ++i)
          if (v[i] != e[i]) ++mismatches;
        if ((t + k) % 3 == 0) {  // bad input now and then: the others keep running
          auto bad = iota({5, 16});
          if (error_of([&] { (void)sm.run({bad.view()}); }).code() == ge::Errc::ok) ++mismatches;
        }
      }
    });
  for (auto& th : threads) th.join();
  CHECK(mismatches.load() == 0);
}

TEST_CASE("compile: AC_PARALLEL_ENABLE puts host-engine ops on a stream of their own") {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "1~8");
  const auto nz = x.nonzero("nz");  // a host-engine op beside vector work
  b.output(nz);
  b.output(x.relu("r").sigmoid("s"));
  const ge::Graph g = b.build();
  auto plain = ge::compile(g);
  auto parallel = ge::compile(g, {{"ac_parallel_enable", "1"}});
  CHECK(plain->plans()[0]->streams.host_stream == -1);
  const ge::Plan& p = *parallel->plans()[0];
  ge::verify(p);
  REQUIRE(p.streams.host_stream >= 0);
  for (std::size_t s = 0; s < p.steps.size(); ++s)
    CHECK((p.streams.stream[s] == p.streams.host_stream) == (p.steps[s].engine == ge::Engine::host));
  ge::Session s(parallel, {.threads = 2});
  std::vector<float> v{1, 0, 2};
  std::int64_t d[] = {3};
  const auto r = s.run({TensorView{v.data(), DataType::f32, d}});
  CHECK(r.outputs[0].dims == std::vector<std::int64_t>{1, 2});
  CHECK(r.outputs[1].values<float>()[1] == doctest::Approx(0.5f));
}

TEST_CASE("verify: a plan whose live values overlap is refused") {
  auto model = ge::compile(branchy("2,16"), {}, ge::default_target(), {.optimize = false});
  ge::Plan p = *model->plans()[0];
  ge::verify(p);
  // Put every arena value at offset 0: live values now overlap.
  for (auto& v : p.values)
    if (v.storage == ge::Storage::arena) v.offset = 0;
  for (auto& o : p.memory.offsets) o = 0;
  CHECK_THROWS_AS(ge::verify(p), ge::Error);
}

TEST_CASE("session: values<T>() checks T, output buffers may not overlap inputs or each other") {
  auto model = ge::compile(small_graph("2,4"));
  ge::Session s(model);
  auto x = iota({2, 4});
  const auto r = s.run({x.view()});
  expect_error([&] { (void)r.outputs[0].values<double>(); }, ge::Errc::type_mismatch, "output 'add_0'", "f32", "f64");
  expect_error([&] { (void)r.outputs[0].values<std::int32_t>(); }, ge::Errc::type_mismatch, "i32");
  // The input's own buffer as the output: refused, and the session stays usable.
  expect_error([&] { (void)s.run({x.view()}, {x.view()}); }, ge::Errc::bad_tensor, "overlaps input 0", "'x'",
               "separate buffers");
  std::vector<float> shifted(12);
  std::copy(x.data.begin(), x.data.end(), shifted.begin());
  const std::int64_t d[] = {2, 4};
  expect_error(
      [&] {
        (void)s.run({TensorView{shifted.data(), DataType::f32, d}}, {TensorView{shifted.data() + 4, DataType::f32, d}});
      },
      ge::Errc::bad_tensor, "overlaps");
  auto out = iota({2, 4}, 0.0f);
  const auto ok = s.run({x.view()}, {out.view()});
  check_small(ok.outputs[0], x);
}

TEST_CASE("session: buffers that know their extent, overflowing dims, and the session stays usable") {
  auto model = ge::compile(small_graph("-1,-1"));  // unbounded: any dims reach the checks
  ge::Session s(model);
  auto x = iota({2, 4});
  // A one-float buffer for dims {4, 3, 8, 8}: the span knows it holds 4 bytes.
  std::vector<float> one(1);
  expect_error(
      [&] {
        (void)s.run({TensorView(std::span(one), {4, 768})});
      },
      ge::Errc::bad_tensor, "input 0 'x'", "needs 12288 bytes", "holds 4");
  expect_error(
      [&] {
        (void)s.run({TensorView(one.data(), DataType::f32, {2, 4}, 4)});
      },
      ge::Errc::bad_tensor, "needs 32 bytes", "holds 4");
  // A vector of doubles passed as the input: its type comes from the span.
  std::vector<double> doubles(8);
  expect_error(
      [&] {
        (void)s.run({TensorView(std::span(doubles), {2, 4})});
      },
      ge::Errc::bad_tensor, "f64", "the model takes f32");
  // Element counts that overflow int64 (2^33 x 2^33, (2^62 + 1) x 4): int_overflow with the dims.
  const std::int64_t two33 = std::int64_t{1} << 33;
  expect_error(
      [&] {
        (void)s.run({TensorView(x.data.data(), DataType::f32, {two33, two33})});
      },
      ge::Errc::int_overflow, "input 0 'x'", "[8589934592,8589934592]");
  expect_error(
      [&] {
        (void)s.run({TensorView(x.data.data(), DataType::f32, {(std::int64_t{1} << 62) + 1, 4})});
      },
      ge::Errc::int_overflow, "overflows");
  // An output buffer smaller than its own dims claim.
  std::vector<float> small(2);
  expect_error(
      [&] {
        (void)s.run({x.view()}, {TensorView(small.data(), DataType::f32, {2, 4}, 8)});
      },
      ge::Errc::bad_tensor, "output 0", "holds 8");
  // Spans of the right size run, and the session is still good.
  std::vector<float> out(8);
  const auto r = s.run({TensorView(std::span(x.data), x.dims)}, {TensorView(std::span(out), {2, 4})});
  check_small(r.outputs[0], x);
}

TEST_CASE("session: threads above the cores are clamped with a notice; a memory limit refuses big plans") {
  auto model = ge::compile(small_graph("-1,-1"));
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ge::Session many(model, {.threads = 1000});
  CHECK(many.threads() == cores);
  REQUIRE(many.notices().size() == 1);
  CHECK(many.notices()[0].find("threads 1000 asked") != std::string::npos);
  ge::Session fine(model, {.threads = 1});
  CHECK(fine.notices().empty());
  expect_error([&] { ge::Session bad(model, {.memory_limit = -1}); }, ge::Errc::invalid_argument, "memory_limit -1");

  ge::Session limited(model, {.memory_limit = 4096});
  auto small = iota({2, 4});
  check_small(limited.run({small.view()}).outputs[0], small);
  auto big = iota({64, 64});
  expect_error([&] { (void)limited.run({big.view()}); }, ge::Errc::out_of_memory, "input dims 64,64", "16384 bytes",
               "memory_limit is 4096");
  check_small(limited.run({small.view()}).outputs[0], small);  // still usable
}

TEST_CASE("session: a memory limit also refuses what a run allocates past its arena (sizes only the data gives)") {
  // Expand to a shape read from an input: the output's size is known only when the step runs.
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "1");
  const auto shape = b.input("shape", DataType::i64, "2");
  b.output(b.op("Expand", {x, shape}, {}, "big"));
  const auto model = ge::compile(b.build());
  ge::Session limited(model, {.memory_limit = 64 * 1024});
  std::vector<float> one{2.0f};
  const auto run = [&](std::int64_t rows, std::int64_t cols) {
    std::vector<std::int64_t> dims{rows, cols};
    return limited.run({TensorView(std::span(one), {1}), TensorView(std::span(dims), {2})});
  };
  const auto r = run(16, 16);
  REQUIRE(r.outputs[0].dims == std::vector<std::int64_t>{16, 16});
  CHECK(static_cast<const float*>(r.outputs[0].data)[255] == 2.0f);
  expect_error([&] { (void)run(1 << 17, 1 << 17); }, ge::Errc::out_of_memory, "'big'", "68719476736 bytes",
               "memory_limit of 65536");
  CHECK(run(8, 8).outputs[0].dims == std::vector<std::int64_t>{8, 8});  // still usable
}
