// Tests of ge/shape/window.hpp (the window rule over intervals) and of the algebra's sum
// and hull in ge/shape/dim.hpp: each interval result against brute force over every
// value pair, and the same functions evaluated at compile time.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ge/shape/dim.hpp"
#include "ge/shape/shape.hpp"
#include "ge/shape/window.hpp"
#include "support/expect_error.hpp"

using ge::Dim;
using ge::Errc;
using ge::WindowAxis;

namespace {

// Compile time: the very functions inference calls.
static_assert(ge::window_out(Dim(224), Dim(7), WindowAxis{.pad_begin = 3, .pad_end = 3, .stride = 2}) == Dim(112));
static_assert(ge::window_out(Dim(), Dim(3), WindowAxis{}) == Dim::at_least(1));
static_assert(ge::window_out(Dim(7), Dim(3), WindowAxis{.stride = 2, .same = true}) == Dim(4));
static_assert(!ge::window_fits(Dim(5), Dim(7), WindowAxis{}));
static_assert(Dim(3) + Dim::range(1, 2) == Dim::range(4, 5));
static_assert(ge::hull(Dim(3), Dim::range(5, 9)) == Dim::range(3, 9));
static_assert(ge::same_pads(7, 3, WindowAxis{.stride = 2}, true) == std::pair<std::int64_t, std::int64_t>{1, 1});
static_assert(ge::window_count(5, 2, 2, false) == 2 && ge::window_count(5, 2, 2, true) == 3);
static_assert(ge::window_tap_outputs(5, 5, 1, -1) == std::pair<std::int64_t, std::int64_t>{1, 5});
static_assert(ge::window_transpose_out(3, 3, WindowAxis{.stride = 2}, 1) == 2 * 2 + 1 + 3);
static_assert(ge::transpose_pads(3, 1, WindowAxis{.stride = 2}, 0, 6, true) == ge::TransposePads{.extra = 1});

std::string text(const WindowAxis& w) {
  return "pads " + std::to_string(w.pad_begin) + "+" + std::to_string(w.pad_end) + " stride " +
         std::to_string(w.stride) + " dilation " + std::to_string(w.dilation) + (w.same ? " same" : "") +
         (w.ceil_mode ? " ceil" : "");
}

// The outputs of every (x, k) pair of the intervals that fits (output >= 1), by the
// scalar rule written out again from its definition.
std::int64_t brute_scalar(std::int64_t x, std::int64_t k, const WindowAxis& w) {
  if (w.same) return (x + w.stride - 1) / w.stride;
  const std::int64_t padded = x + w.pad_begin + w.pad_end, span = w.dilation * (k - 1) + 1;
  if (padded < span) return 0;
  if (!w.ceil_mode) return (padded - span) / w.stride + 1;
  if (x + w.pad_begin == 0) return 0;  // no window can start inside the input or the begin pad
  std::int64_t out = (padded - span + w.stride - 1) / w.stride + 1;
  if ((out - 1) * w.stride >= x + w.pad_begin) --out;
  return out;
}

}  // namespace

TEST_CASE("the window rule over intervals is exactly the outputs of every pair that fits") {
  const std::vector<Dim> inputs{Dim(0), Dim(1), Dim(5), Dim(8), Dim::range(1, 9), Dim::range(3, 12),
                                Dim::range(0, 4), Dim::range(10, 20)};
  const std::vector<Dim> kernels{Dim(1), Dim(3), Dim(7), Dim::range(2, 4), Dim::range(1, 9)};
  std::vector<WindowAxis> windows;
  for (std::int64_t pb : {0, 1, 2})
    for (std::int64_t pe : {0, 1, 3})
      for (std::int64_t s : {1, 2, 3})
        for (std::int64_t d : {1, 2})
          for (bool ceil : {false, true}) windows.push_back({pb, pe, s, d, false, ceil});
  for (std::int64_t s : {1, 2, 3}) windows.push_back({.stride = s, .same = true});
  std::size_t fits = 0, never = 0;
  for (const WindowAxis& w : windows)
    for (const Dim& in : inputs)
      for (const Dim& k : kernels) {
        INFO("in ", in.to_string(), ", k ", k.to_string(), ", ", text(w));
        std::int64_t lo = Dim::inf, hi = -1;
        for (std::int64_t x = in.lo(); x <= in.hi(); ++x)
          for (std::int64_t kk = k.lo(); kk <= k.hi(); ++kk) {
            const std::int64_t out = brute_scalar(x, kk, w);
            if (out < 1) {
              CHECK(ge::window_out(x, kk, w) < 1);
              continue;
            }
            CHECK(ge::window_out(x, kk, w) == out);
            lo = std::min(lo, out);
            hi = std::max(hi, out);
          }
        REQUIRE(ge::window_fits(in, k, w) == (hi >= 1));
        if (hi < 1) {
          ++never;
          continue;
        }
        ++fits;
        CHECK_MESSAGE(ge::window_out(in, k, w) == Dim::interval(lo, hi), ge::window_out(in, k, w).to_string(),
                      " != ", lo, "~", hi);
      }
  CHECK(fits > 100);
  CHECK(never > 10);
}

TEST_CASE("the window rule over unbounded inputs and kernels") {
  CHECK(ge::window_out(Dim::at_least(100), Dim(3), WindowAxis{.pad_begin = 1, .pad_end = 1, .stride = 2}) ==
        Dim::at_least(50));
  CHECK(ge::window_out(Dim(), Dim(), WindowAxis{}) == Dim::at_least(1));
  CHECK(ge::window_out(Dim(10), Dim::at_least(1), WindowAxis{}) == Dim::range(1, 10));
  CHECK(ge::window_out(Dim::at_least(4), Dim(2), WindowAxis{.stride = 3, .same = true}) == Dim::at_least(2));
  CHECK_FALSE(ge::window_fits(Dim(0), Dim(1), WindowAxis{.same = true}));
}

TEST_CASE("SAME pads put the odd pad at the end (upper) or the beginning (lower)") {
  for (std::int64_t x = 1; x <= 20; ++x)
    for (std::int64_t k : {1, 2, 3, 4, 7})
      for (std::int64_t s : {1, 2, 3})
        for (std::int64_t d : {1, 2, 3})
          for (bool upper : {false, true}) {
            const WindowAxis w{.stride = s, .dilation = d};
            const auto [b, e] = ge::same_pads(x, k, w, upper);
            INFO("x ", x, " k ", k, " s ", s, " d ", d, " upper ", upper);
            CHECK(b >= 0);
            CHECK(e >= 0);
            CHECK((upper ? e - b : b - e) >= 0);
            CHECK((upper ? e - b : b - e) <= 1);
            // With those pads explicit, the output is SAME's ceil(x / s), and the least pads do it.
            const WindowAxis padded{.pad_begin = b, .pad_end = e, .stride = s, .dilation = d};
            CHECK(ge::window_out(x, k, padded) == (x + s - 1) / s);
            CHECK(ge::window_out(x, k, WindowAxis{.stride = s, .same = true}) == (x + s - 1) / s);
            if (b + e > 0)
              CHECK(ge::window_out(x + b + e - 1, k, WindowAxis{.stride = s, .dilation = d}) < (x + s - 1) / s);
          }
  // By hand: 224 at stride 2 with a 3x3 kernel pads 0+1 (upper) or 1+0 (lower); dilation 2 widens it to 5.
  CHECK(ge::same_pads(224, 3, WindowAxis{.stride = 2}, true) == std::pair<std::int64_t, std::int64_t>{0, 1});
  CHECK(ge::same_pads(224, 3, WindowAxis{.stride = 2}, false) == std::pair<std::int64_t, std::int64_t>{1, 0});
  CHECK(ge::same_pads(224, 3, WindowAxis{.stride = 2, .dilation = 2}, true) == std::pair<std::int64_t, std::int64_t>{1, 2});
  // A stride wider than the kernel needs no pad.
  CHECK(ge::same_pads(8, 1, WindowAxis{.stride = 4}, true) == std::pair<std::int64_t, std::int64_t>{0, 0});
}

TEST_CASE("window_count: whole windows (floor) and a last partial one (ceil)") {
  for (std::int64_t padded = 0; padded <= 20; ++padded)
    for (std::int64_t span = 1; span <= 7; ++span)
      for (std::int64_t s = 1; s <= 4; ++s) {
        INFO("padded ", padded, " span ", span, " s ", s);
        // Windows inside; and windows whose step before still left part of the extent
        // uncovered (ONNX's ceil formula: with a stride above the span the last one may
        // start at the end, where ceil_mode's rule drops it).
        std::int64_t whole = 0, started = 0;
        for (std::int64_t start = 0; start + span <= padded; start += s) ++whole;
        for (std::int64_t start = 0; whole > 0 && start - s + span < padded; start += s) ++started;
        CHECK(ge::window_count(padded, span, s, false) == whole);
        CHECK(ge::window_count(padded, span, s, true) == started);
      }
}

TEST_CASE("ceil_mode by hand: a last window that would start in the end pad is dropped") {
  // 5 at kernel 2, stride 2: floor 2, ceil 3 (the last window holds the 5th element).
  CHECK(ge::window_out(5, 2, WindowAxis{.stride = 2}) == 2);
  CHECK(ge::window_out(5, 2, WindowAxis{.stride = 2, .ceil_mode = true}) == 3);
  // 4 with an end pad of 1: rounding up would add a window starting at 4, in the pad: dropped.
  CHECK(ge::window_count(5, 2, 2, true) == 3);
  CHECK(ge::window_out(4, 2, WindowAxis{.pad_end = 1, .stride = 2, .ceil_mode = true}) == 2);
  // With a begin pad it starts at 3 (inside the input): kept.
  CHECK(ge::window_out(4, 2, WindowAxis{.pad_begin = 1, .stride = 2, .ceil_mode = true}) == 3);
  // Dilation 2 on 7, kernel 3 (span 5), stride 3: floor 1, ceil 2.
  CHECK(ge::window_out(7, 3, WindowAxis{.stride = 3, .dilation = 2}) == 1);
  CHECK(ge::window_out(7, 3, WindowAxis{.stride = 3, .dilation = 2, .ceil_mode = true}) == 2);
  // An empty input without a begin pad has no window.
  CHECK(ge::window_out(0, 1, WindowAxis{.pad_end = 2, .ceil_mode = true}) == 0);
}

TEST_CASE("window_tap_outputs: the outputs whose tap reads inside the input") {
  for (std::int64_t in = 0; in <= 9; ++in)
    for (std::int64_t out = 0; out <= 9; ++out)
      for (std::int64_t s = 1; s <= 3; ++s)
        for (std::int64_t off = -7; off <= 11; ++off) {
          INFO("in ", in, " out ", out, " s ", s, " off ", off);
          std::int64_t lo = -1, hi = -1;
          for (std::int64_t o = 0; o < out; ++o)
            if (o * s + off >= 0 && o * s + off < in) {
              if (lo < 0) lo = o;
              hi = o + 1;
            }
          const auto [first, last] = ge::window_tap_outputs(in, out, s, off);
          if (lo < 0) {
            CHECK(first == last);
          } else {
            CHECK(first == lo);
            CHECK(last == hi);
          }
        }
}

TEST_CASE("a transposed window grows the input by the stride") {
  const WindowAxis w{.pad_begin = 1, .pad_end = 1, .stride = 2};
  // stride * (x - 1) + output_padding + span - pads
  CHECK(ge::window_transpose_out(Dim(7), 3, w, 1) == Dim(2 * 6 + 1 + 3 - 2));
  CHECK(ge::window_transpose_out(Dim::range(1, 4), 3, w, 0) == Dim::range(1, 7));
  CHECK(ge::window_transpose_out(Dim::at_least(2), 3, w, 0) == Dim::at_least(3));
  CHECK(ge::window_transpose_out(Dim(5), 3, WindowAxis{.stride = 2, .same = true}, 0) == Dim(10));
  // The integer form, with dilation; pads past the full extent clamp it at 0.
  CHECK(ge::window_transpose_out(4, 3, WindowAxis{.stride = 3, .dilation = 2}, 2) == 3 * 3 + 2 + 5);
  CHECK(ge::window_transpose_out(1, 2, WindowAxis{.pad_begin = 2, .pad_end = 2}, 0) == 0);
  CHECK(ge::window_transpose_out(0, 3, WindowAxis{.stride = 2}, 0) == 1);
  CHECK(ge::window_transpose_out(Dim::inf, 3, WindowAxis{.stride = 2}, 0) == Dim::inf);
  // It undoes the window rule where the rule has no remainder: a pool's output unpools to its input.
  for (std::int64_t x = 1; x <= 12; ++x)
    for (std::int64_t s = 1; s <= 3; ++s) {
      const WindowAxis pool{.pad_begin = 1, .pad_end = 1, .stride = s};
      const std::int64_t out = ge::window_out(x, 3, pool);
      if ((x + 2 - 3) % s == 0) CHECK(ge::window_transpose_out(out, 3, pool, 0) == x);
    }
}

TEST_CASE("transpose_pads: ONNX's split of the total, the odd one at the end under SAME_UPPER") {
  for (std::int64_t x = 1; x <= 6; ++x)
    for (std::int64_t k = 1; k <= 4; ++k)
      for (std::int64_t s = 1; s <= 3; ++s)
        for (std::int64_t d = 1; d <= 2; ++d)
          for (std::int64_t op = 0; op < s; ++op)
            for (std::int64_t out = 1; out <= 24; ++out)
              for (bool upper : {false, true}) {
                INFO("x ", x, " k ", k, " s ", s, " d ", d, " op ", op, " out ", out, " upper ", upper);
                const WindowAxis w{.stride = s, .dilation = d};
                const std::int64_t total = s * (x - 1) + op + (k - 1) * d + 1 - out;
                const ge::TransposePads t = ge::transpose_pads(x, k, w, op, out, upper);
                CHECK(t.begin >= 0);
                CHECK(t.end >= 0);
                CHECK(t.begin + t.end == std::max<std::int64_t>(total, 0));
                CHECK(t.extra == std::max<std::int64_t>(-total, 0));
                CHECK((upper ? t.end - t.begin : t.begin - t.end) >= 0);
                CHECK((upper ? t.end - t.begin : t.begin - t.end) <= 1);
                // With those pads (and the extra as output padding) the transposed extent is `out`.
                const WindowAxis padded{.pad_begin = t.begin, .pad_end = t.end, .stride = s, .dilation = d};
                CHECK(ge::window_transpose_out(x, k, padded, op + t.extra) == out);
              }
  // By hand: 2 at stride 2, kernel 3 (full 5) to 4: one pad, at the end under SAME_UPPER.
  CHECK(ge::transpose_pads(2, 3, WindowAxis{.stride = 2}, 0, 4, true) == ge::TransposePads{.begin = 0, .end = 1});
  CHECK(ge::transpose_pads(2, 3, WindowAxis{.stride = 2}, 0, 4, false) == ge::TransposePads{.begin = 1, .end = 0});
  // A negative total: SAME with a kernel narrower than the stride (3 at stride 3, kernel 1: full 7, out 9).
  CHECK(ge::transpose_pads(3, 1, WindowAxis{.stride = 3, .same = true}, 0, 9, true) == ge::TransposePads{.extra = 2});
  CHECK(ge::transpose_pads(3, 1, WindowAxis{.stride = 3}, 0, 9, false) == ge::TransposePads{.extra = 2});
}

TEST_CASE("the window rule overflows as the algebra does: unbounded stays unbounded, finite throws") {
  constexpr std::int64_t big = Dim::inf - 1;
  const WindowAxis pads{.pad_begin = 1, .pad_end = 1};
  // Unbounded ends stay unbounded.
  CHECK(ge::window_span(Dim::inf, 2) == Dim::inf);
  CHECK(ge::window_out(Dim::at_least(3), Dim(3), pads) == Dim::at_least(3));
  CHECK(ge::window_transpose_out(Dim::at_least(1), 3, WindowAxis{.stride = 2}, 0) == Dim::at_least(3));
  // Finite ends that leave int64 throw int_overflow: never a wrong finite number, never a silent inf.
  ge::test::expect_error([&] { (void)ge::window_out(big, 3, pads); }, Errc::int_overflow, "overflows int64");
  ge::test::expect_error([&] { (void)ge::window_out(Dim(big), Dim(3), pads); }, Errc::int_overflow, "overflows int64");
  ge::test::expect_error([&] { (void)ge::window_fits(Dim::range(1, big), Dim(3), pads); }, Errc::int_overflow);
  ge::test::expect_error([] { (void)ge::window_span(std::int64_t{1} << 62, 4); }, Errc::int_overflow, "x");
  ge::test::expect_error([] { (void)ge::window_transpose_out(Dim(std::int64_t{1} << 62), 3, WindowAxis{.stride = 4}, 0); },
                         Errc::int_overflow, "overflows int64");
  ge::test::expect_error([] { (void)ge::window_transpose_out(Dim(std::int64_t{1} << 62), 1, WindowAxis{.stride = 2, .same = true}, 0); },
                         Errc::int_overflow, "overflows int64");
  // The same numbers through the public algebra throw the same error.
  ge::test::expect_error([&] { (void)(Dim(big) + Dim(2)); }, Errc::int_overflow, "overflows int64");
}

TEST_CASE("interval sum and hull") {
  CHECK(Dim(3) + Dim(4) == Dim(7));
  CHECK(Dim::range(1, 2) + Dim() == Dim::at_least(1));
  CHECK((Dim(3) + Dim(0)).same_spelling(Dim(3)));
  CHECK(ge::hull(Dim(3), Dim(3)).same_spelling(Dim(3)));
  CHECK(ge::hull(Dim::range(2, 4), Dim(3)).same_spelling(Dim::range(2, 4)));
  CHECK(ge::hull(Dim(1), Dim()) == Dim());
  ge::test::expect_error([] { (void)(Dim(Dim::inf - 1) + Dim(2)); }, Errc::int_overflow, "sum", "overflows int64");
  CHECK(ge::broadcastable(Dim(3), Dim::range(1, 2)));
  CHECK_FALSE(ge::broadcastable(Dim(3), Dim(4)));
}

TEST_CASE("shape hull") {
  CHECK(ge::hull(ge::Shape::parse("1,3,224,224"), ge::Shape::parse("8,3,224,224")).to_string() == "1~8,3,224,224");
  CHECK(ge::hull(ge::Shape::parse("1,3"), ge::Shape::parse("1,3,4")) == ge::Shape::unknown_rank());
  CHECK(ge::hull(ge::Shape::unknown_rank(), ge::Shape::parse("2")) == ge::Shape::unknown_rank());
}
