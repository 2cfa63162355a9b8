// Tests of ge/compile/choose_gears.hpp: gears chosen from a histogram of observed shapes,
// checked against brute force over every gear set, the option text compiled as emitted,
// and every bad input as a clear ge::Error.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ge/compile/choose_gears.hpp"
#include "ge/compile/compile.hpp"
#include "ge/graph/builder.hpp"
#include "support/expect_error.hpp"

using ge::DataType;
using ge::Errc;

namespace {

using Sizes = std::vector<std::int64_t>;

// y = x W (W 8x8), z = y y^T along the varying dim s: 2*s*8*8 + 2*s*s*8 FLOPs, as
// attention's cost grows with the sequence length squared. `batch`: x is [s, 8], else [1, s, 8].
ge::Graph attention_like(bool batch) {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, batch ? "-1,8" : "1,-1,8");
  const auto y = b.op("MatMul", {x, b.random_weights("w", {8, 8}, 1)});
  const auto yt = b.op("Transpose", {y}, {{"perm", batch ? Sizes{1, 0} : Sizes{0, 2, 1}}});
  b.output(b.op("MatMul", {y, yt}, {}, "z"));
  return b.build();
}

double attention_flops(std::int64_t s) { return 128.0 * static_cast<double>(s) + 16.0 * static_cast<double>(s * s); }

// Two inputs, each multiplied by one shared [8, 8] weight: input `a` (dims `as`) and `b` (`bs`).
ge::Graph two_matmuls(const char* a, const char* as, const char* b, const char* bs) {
  ge::GraphBuilder gb;
  const auto w = gb.random_weights("w", {8, 8}, 1);
  gb.output(gb.op("MatMul", {gb.input(a, DataType::f32, as), w}, {}, std::string("y_") + a));
  gb.output(gb.op("MatMul", {gb.input(b, DataType::f32, bs), w}, {}, std::string("y_") + b));
  return gb.build();
}

std::shared_ptr<const ge::CompiledModel> ranged(const ge::Graph& g, const std::string& shape) {
  return ge::compile(g, {{"ge.inputShape", shape}});
}

// The histogram of sizes `sizes` with `counts` as the model's lines, `x:<prefix>s<suffix> count`.
std::vector<ge::ObservedShapes> histogram(const Sizes& sizes, const Sizes& counts, const std::string& prefix,
                                          const std::string& suffix) {
  std::string text;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    text += "x:" + prefix + std::to_string(sizes[i]) + suffix + " " + std::to_string(counts[i]) + "\n";
  return ge::parse_shape_histogram(text);
}

// The least total work of at most k gears drawn from `gear_sizes` (which must hold the
// largest size), each size running on the smallest gear that holds it.
double brute_force(const Sizes& sizes, const Sizes& counts, const Sizes& gear_sizes, std::size_t k) {
  const std::int64_t top = *std::max_element(sizes.begin(), sizes.end());
  double best = std::numeric_limits<double>::infinity();
  Sizes set{top};
  std::function<void(std::size_t)> visit = [&](std::size_t from) {
    double cost = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      std::int64_t g = top;
      for (const std::int64_t c : set)
        if (c >= sizes[i] && c < g) g = c;
      cost += static_cast<double>(counts[i]) * attention_flops(g);
    }
    best = std::min(best, cost);
    if (set.size() == k) return;
    for (std::size_t i = from; i < gear_sizes.size(); ++i) {
      if (gear_sizes[i] >= top) continue;
      set.push_back(gear_sizes[i]);
      visit(i + 1);
      set.pop_back();
    }
  };
  visit(0);
  return best;
}

double total(const Sizes& counts) {
  double t = 0;
  for (const std::int64_t c : counts) t += static_cast<double>(c);
  return t;
}

}  // namespace

TEST_CASE("choose_gears: one varying dim is optimal against brute force over every gear set (several seeds)") {
  const auto model = ranged(attention_like(true), "x:1~40,8");
  Sizes all;
  for (std::int64_t s = 1; s <= 40; ++s) all.push_back(s);
  for (const std::uint32_t seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
    std::mt19937 rng(seed);
    Sizes sizes, counts;
    const auto n = std::uniform_int_distribution<std::size_t>(2, 7)(rng);
    while (sizes.size() < n) {
      const auto s = std::uniform_int_distribution<std::int64_t>(1, 40)(rng);
      if (std::find(sizes.begin(), sizes.end(), s) != sizes.end()) continue;
      sizes.push_back(s);
      counts.push_back(std::uniform_int_distribution<std::int64_t>(1, 100)(rng));
    }
    for (std::size_t k = 1; k <= 3; ++k) {
      CAPTURE(seed);
      CAPTURE(k);
      const ge::GearChoice c = ge::choose_gears(*model, histogram(sizes, counts, "", ",8"), {.max_gears = k, .max_arena = {}});
      CHECK(c.optimal);
      CHECK(c.varying_dims == 1);
      CHECK(c.gears.size() <= k);
      // Optimal among all sizes 1..40, not only the observed ones.
      CHECK(c.expected_work * total(counts) == doctest::Approx(brute_force(sizes, counts, all, k)));
      // The largest observed shape runs on the largest gear, itself.
      CHECK(c.gears.back().values == Sizes{*std::max_element(sizes.begin(), sizes.end())});
      for (const ge::ChosenGear& g : c.gears) {
        CHECK(g.flops == doctest::Approx(attention_flops(g.values[0])));
        CHECK(g.arena_bytes > 0);
      }
      double own = 0;
      for (std::size_t i = 0; i < sizes.size(); ++i) own += static_cast<double>(counts[i]) * attention_flops(sizes[i]);
      CHECK(c.own_size_work * total(counts) == doctest::Approx(own));
      CHECK(c.waste_percent == doctest::Approx((c.expected_work / c.own_size_work - 1) * 100));
    }
  }
}

TEST_CASE("choose_gears: a skewed BERT-like 1..128 length histogram, emitted as DYNAMIC_DIMS that compiles") {
  const auto model = ranged(attention_like(false), "x:1,1~128,8");
  Sizes sizes, counts;
  for (std::int64_t s = 1; s <= 128; ++s) {
    sizes.push_back(s);  // most requests short, a long tail
    counts.push_back(1 + static_cast<std::int64_t>(400.0 * std::exp(-static_cast<double>((s - 18) * (s - 18)) / 120.0)));
  }
  const ge::GearChoice c = ge::choose_gears(*model, histogram(sizes, counts, "1,", ",8"), {.max_gears = 4, .max_arena = {}});
  REQUIRE(c.gears.size() == 4);
  CHECK(c.optimal);
  CHECK(c.option == ge::Option::dynamic_dims);
  CHECK(c.input_shape == "x:1,-1,8");
  CHECK(c.input_format == "ND");
  CHECK(c.gears.back().values == Sizes{128});
  CHECK(c.expected_work * total(counts) == doctest::Approx(brute_force(sizes, counts, sizes, 4)));
  // Better than the powers of two a user would guess.
  double pow2 = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::int64_t g = 16;
    while (g < sizes[i]) g *= 2;
    pow2 += static_cast<double>(counts[i]) * attention_flops(std::max<std::int64_t>(g, 16));
  }
  const double pow2_set = brute_force(sizes, counts, Sizes{16, 32, 64}, 4);
  CHECK(pow2_set == doctest::Approx(pow2));
  CHECK(c.expected_work * total(counts) < pow2);
  // The texts compile as they are.
  ge::BuildOptions opts{{"ge.inputShape", c.input_shape}, {"ge.dynamicDims", c.option_text}, {"ge.inputFormat", c.input_format}};
  const auto geared = ge::compile(attention_like(false), opts);
  CHECK(geared->mode() == ge::ShapeMode::gears);
  CHECK(geared->plans().size() == 4);
  std::string want;
  for (const ge::ChosenGear& g : c.gears) want += (want.empty() ? "" : ";") + std::to_string(g.values[0]);
  CHECK(c.option_text == want);
}

TEST_CASE("choose_gears: the batch gives DYNAMIC_BATCH_SIZE; equal dims of two inputs count once") {
  const auto model = ranged(attention_like(true), "x:1~64,8");
  const ge::GearChoice c =
      ge::choose_gears(*model, ge::parse_shape_histogram("x:1,8 50\nx:3,8 20\n# a comment\n\nx:8,8 5\nx:64,8 1\n"),
                       {.max_gears = 3, .max_arena = {}});
  CHECK(c.option == ge::Option::dynamic_batch_size);
  CHECK(c.input_shape == "x:-1,8");
  CHECK(c.input_format.empty());
  CHECK(c.gears.size() == 3);
  const auto geared = ge::compile(attention_like(true), {{"ge.inputShape", c.input_shape}, {"ge.dynamicBatchSize", c.option_text}});
  CHECK(geared->plans().size() == 3);

  // Two inputs whose lengths are always equal: one varying dim, DYNAMIC_DIMS with both.
  const ge::Graph two = two_matmuls("ids", "1,-1,8", "mask", "1,-1,8");
  const auto m2 = ranged(two, "ids:1,1~32,8;mask:1,1~32,8");
  const ge::GearChoice d = ge::choose_gears(
      *m2, ge::parse_shape_histogram("ids:1,4,8;mask:1,4,8 10\nids:1,9,8;mask:1,9,8 3\nids:1,32,8;mask:1,32,8 1"),
      {.max_gears = 2, .max_arena = {}});
  CHECK(d.varying_dims == 1);
  CHECK(d.optimal);
  CHECK(d.input_shape == "ids:1,-1,8;mask:1,-1,8");
  CHECK(d.option_text == "9,9;32,32");  // 4 on 9 costs less than 9 on 32
  (void)ge::compile(two, {{"ge.inputShape", d.input_shape}, {"ge.dynamicDims", d.option_text}});

  // One gear: a fixed INPUT_SHAPE, no gear option.
  const ge::GearChoice one = ge::choose_gears(*model, ge::parse_shape_histogram("x:2,8 5\nx:7,8 1"), {.max_gears = 1, .max_arena = {}});
  CHECK_FALSE(one.option.has_value());
  CHECK(one.input_shape == "x:7,8");
  CHECK(one.gears.size() == 1);
  CHECK(one.gears[0].served == 6);
  // One shape seen, whatever K: nothing varies, one gear of that shape.
  const ge::GearChoice same = ge::choose_gears(*model, ge::parse_shape_histogram("x:5,8 3\nx:5,8 4"), {.max_gears = 4, .max_arena = {}});
  CHECK(same.varying_dims == 0);
  CHECK_FALSE(same.option.has_value());
  CHECK(same.input_shape == "x:5,8");
  REQUIRE(same.gears.size() == 1);
  CHECK(same.gears[0].served == 7);
  CHECK(same.waste_percent == 0);
}

TEST_CASE("choose_gears: H and W of an image give DYNAMIC_IMAGE_SIZE") {
  ge::GraphBuilder b;
  const auto x = b.input("img", DataType::f32, "1,3,-1,-1");
  b.output(b.op("Conv", {x, b.random_weights("w", {4, 3, 3, 3}, 2)}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}},
                "y"));
  const ge::Graph g = b.build();
  const auto model = ranged(g, "img:1,3,8~64,8~64");
  const ge::GearChoice c = ge::choose_gears(
      *model, ge::parse_shape_histogram("img:1,3,16,16 10\nimg:1,3,32,24 5\nimg:1,3,64,64 1"), {.max_gears = 2, .max_arena = {}});
  CHECK(c.option == ge::Option::dynamic_image_size);
  CHECK(c.input_format == "NCHW");
  CHECK(c.input_shape == "img:1,3,-1,-1");
  CHECK(c.option_text == "32,24;64,64");
  (void)ge::compile(g, {{"ge.inputShape", c.input_shape}, {"ge.dynamicImageSize", c.option_text},
                        {"ge.inputFormat", c.input_format}});
}

TEST_CASE("choose_gears: two independent dims are optimal against brute force over every pair of gears") {
  const ge::Graph g = two_matmuls("a", "-1,8", "b", "-1,8");
  const auto model = ranged(g, "a:1~12,8;b:1~12,8");
  // Work 128 * (a + b): no chain among these.
  const std::vector<std::pair<Sizes, std::int64_t>> seen{{{1, 10}, 4}, {{10, 1}, 4}, {{3, 3}, 20}, {{6, 2}, 7}, {{2, 7}, 3}};
  std::string text;
  for (const auto& [p, n] : seen)
    text += "a:" + std::to_string(p[0]) + ",8;b:" + std::to_string(p[1]) + ",8 " + std::to_string(n) + "\n";
  for (std::size_t k = 1; k <= 3; ++k) {
    CAPTURE(k);
    const ge::GearChoice c = ge::choose_gears(*model, ge::parse_shape_histogram(text), {.max_gears = k, .max_arena = {}});
    CHECK(c.varying_dims == 2);
    CHECK(c.optimal);
    CHECK(c.option == (c.gears.size() > 1 ? std::optional(ge::Option::dynamic_dims) : std::nullopt));
    // Brute force over every set of k gears on the 12 x 12 grid.
    double best = std::numeric_limits<double>::infinity();
    std::vector<Sizes> set;
    std::function<void(std::int64_t)> visit = [&](std::int64_t from) {
      if (!set.empty()) {
        double cost = 0;
        bool all = true;
        for (const auto& [p, n] : seen) {
          double least = std::numeric_limits<double>::infinity();
          for (const Sizes& q : set)
            if (q[0] >= p[0] && q[1] >= p[1]) least = std::min(least, 128.0 * static_cast<double>(q[0] + q[1]));
          all = all && std::isfinite(least);
          cost += static_cast<double>(n) * least;
        }
        if (all) best = std::min(best, cost);
      }
      if (set.size() == k) return;
      for (std::int64_t i = from; i < 144; ++i) {
        set.push_back({i / 12 + 1, i % 12 + 1});
        visit(i + 1);
        set.pop_back();
      }
    };
    visit(0);
    CHECK(c.expected_work * 38 == doctest::Approx(best));
  }
}

TEST_CASE("parse_shape_histogram: bad text is a clear ge::Error naming the line") {
  using ge::test::expect_error;
  expect_error([] { (void)ge::parse_shape_histogram(""); }, Errc::invalid_argument, "no entry");
  expect_error([] { (void)ge::parse_shape_histogram("# only a comment\n\n"); }, Errc::invalid_argument, "no entry");
  expect_error([] { (void)ge::parse_shape_histogram("x:3,8"); }, Errc::invalid_argument, "line 1 'x:3,8'",
               "expected 'name:dims");
  expect_error([] { (void)ge::parse_shape_histogram("x:1,8 2\nx:3,8 many"); }, Errc::invalid_argument, "line 2",
               "count 'many' is not an integer >= 1");
  expect_error([] { (void)ge::parse_shape_histogram("x:3,8 0"); }, Errc::invalid_argument, "count '0'");
  expect_error([] { (void)ge::parse_shape_histogram("x:3,8 -4"); }, Errc::invalid_argument, "count '-4'");
  expect_error([] { (void)ge::parse_shape_histogram("3,8 5"); }, Errc::bad_input_shape, "by position");
  expect_error([] { (void)ge::parse_shape_histogram("x:-1,8 5"); }, Errc::bad_input_shape, "'-1,8'", "fixed dims");
  expect_error([] { (void)ge::parse_shape_histogram("x:3,q 5"); }, Errc::bad_dim_text, "line 1");
}

TEST_CASE("choose_gears: bad histograms, budgets and models are clear ge::Errors") {
  using ge::test::expect_error;
  const auto model = ranged(attention_like(true), "x:1~64,8");
  const auto choose = [&](const char* text, ge::GearBudget budget = {}) {
    (void)ge::choose_gears(*model, ge::parse_shape_histogram(text), budget);
  };
  expect_error([&] { choose("y:3,8 1"); }, Errc::unknown_input, "entry 1", "no input 'y'", "'x'");
  expect_error([&] { choose("x:3,8 1\nx:3,8,1 2"); }, Errc::bad_input_shape, "entry 2", "rank 3", "model's is 2");
  expect_error([&] { choose("x:3,9 1"); }, Errc::bad_input_shape, "dim 1 is 9", "fixes it at 8");
  expect_error([&] { choose("x:65,8 1"); }, Errc::out_of_range, "dim 0 is 65", "range 1~64");
  expect_error([&] { choose("x:3,8;x:4,8 1"); }, Errc::duplicate_input);
  expect_error([&] { choose("x:3,8 1", {.max_gears = 0, .max_arena = {}}); }, Errc::invalid_argument, "max_gears is 0");
  expect_error([&] { choose("x:3,8 1", {.max_gears = 2, .max_arena = 0}); }, Errc::invalid_argument, "max_arena is 0");
  expect_error([&] { choose("x:3,8 1\nx:64,8 1", {.max_gears = 2, .max_arena = 64}); }, Errc::invalid_argument,
               "no gear set fits max_arena 64", "'x:3,8'", "arena is 256 bytes");
  // A budget the small shapes fit and the largest does not: no gear set holds it.
  expect_error([&] { choose("x:3,8 1\nx:64,8 1", {.max_gears = 2, .max_arena = 256}); }, Errc::invalid_argument,
               "no gear set fits max_arena 256", "'x:64,8'");
  expect_error([&] { choose("x:3,8 1", {.max_gears = 1000, .max_arena = {}}); }, Errc::bad_gear_count, "max_gears is 1000",
               "target 'cpu'");
  expect_error([&] { (void)ge::choose_gears(*model, {}, {}); }, Errc::invalid_argument, "no observed shapes");
  // A model with its shapes fixed, or in gears already.
  const auto fixed = ge::compile(attention_like(true), {{"ge.inputShape", "x:4,8"}});
  expect_error([&] { (void)ge::choose_gears(*fixed, ge::parse_shape_histogram("x:4,8 1"), {}); },
               Errc::invalid_argument, "compiled in fixed mode");
  // A varying input not written.
  ge::GraphBuilder b;
  const auto w = b.random_weights("w", {8, 8}, 1);
  b.output(b.op("MatMul", {b.input("a", DataType::f32, "-1,8"), w}, {}, "ya"));
  b.output(b.op("MatMul", {b.input("b", DataType::f32, "-1,8"), w}, {}, "yb"));
  const auto two = ranged(b.build(), "a:1~8,8;b:1~8,8");
  expect_error([&] { (void)ge::choose_gears(*two, ge::parse_shape_histogram("a:3,8 1"), {}); },
               Errc::bad_input_shape, "input 'b'", "not written");
}

TEST_CASE("choose_gears: several dims with an arena budget, and many points (greedy with swaps)") {
  ge::GraphBuilder b;
  const auto w = b.random_weights("w", {8, 8}, 1);
  for (const char* name : {"a", "b"}) {  // y y^T of y = x W per input: y lives in the arena
    const auto y = b.op("MatMul", {b.input(name, DataType::f32, "-1,8"), w});
    b.output(b.op("MatMul", {y, b.op("Transpose", {y}, {{"perm", Sizes{1, 0}}})}, {}, std::string("z") + name));
  }
  const auto model = ranged(b.build(), "a:1~64,8;b:1~64,8");
  const auto seen = ge::parse_shape_histogram("a:10,8;b:1,8 5\na:1,8;b:10,8 5");
  // Two gears: each point on its own; their arenas are below the one gear that holds both.
  const ge::GearChoice two = ge::choose_gears(*model, seen, {.max_gears = 2, .max_arena = {}});
  REQUIRE(two.gears.size() == 2);
  const std::int64_t fits = std::max(two.gears[0].arena_bytes, two.gears[1].arena_bytes);
  const ge::GearChoice one = ge::choose_gears(*model, seen, {.max_gears = 1, .max_arena = {}});
  REQUIRE(one.gears.size() == 1);
  CHECK(one.gears[0].values == Sizes{10, 10});
  REQUIRE(one.gears[0].arena_bytes > fits);
  // Within that arena only the two small gears fit: one gear cannot hold both points.
  ge::test::expect_error([&] { (void)ge::choose_gears(*model, seen, {.max_gears = 1, .max_arena = fits}); },
                         Errc::invalid_argument, "no set of at most 1 gears within max_arena");
  CHECK(ge::choose_gears(*model, seen, {.max_gears = 2, .max_arena = fits}).gears.size() == 2);

  // 40 scattered points: too many candidate sets to try, so greedy with swaps. Every point
  // is held, and the result is no worse than the one gear that holds everything.
  std::mt19937 rng(7);
  std::string text;
  for (int i = 0; i < 40; ++i)
    text += "a:" + std::to_string(rng() % 64 + 1) + ",8;b:" + std::to_string(rng() % 64 + 1) + ",8 " +
            std::to_string(rng() % 50 + 1) + "\n";
  const auto many = ge::parse_shape_histogram(text);
  const ge::GearChoice g = ge::choose_gears(*model, many, {.max_gears = 5, .max_arena = {}});
  CHECK_FALSE(g.optimal);
  CHECK(g.gears.size() <= 5);
  CHECK(g.varying_dims == 2);
  std::int64_t served = 0;
  for (const ge::ChosenGear& gear : g.gears) served += gear.served;
  std::int64_t count = 0;
  for (const ge::ObservedShapes& o : many) count += o.count;
  CHECK(served == count);
  const ge::GearChoice single = ge::choose_gears(*model, many, {.max_gears = 1, .max_arena = {}});
  CHECK(g.expected_work < single.expected_work);
  CHECK(g.expected_work >= g.own_size_work);
}
