// Tests of ge/shape/window.hpp (the window rule over intervals) and of the algebra's sum
// and hull in ge/shape/dim.hpp: each interval result against brute force over every
// value pair, and the same functions evaluated at compile time.
#include <doctest/doctest.h>

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
        for (bool upper : {false, true}) {
          const WindowAxis w{.stride = s};
          const auto [b, e] = ge::same_pads(x, k, w, upper);
          INFO("x ", x, " k ", k, " s ", s, " upper ", upper);
          CHECK(b >= 0);
          CHECK(e >= 0);
          CHECK((upper ? e - b : b - e) >= 0);
          CHECK((upper ? e - b : b - e) <= 1);
          // With those pads explicit, the output is SAME's ceil(x / s).
          CHECK(ge::window_out(x, k, WindowAxis{.pad_begin = b, .pad_end = e, .stride = s}) == (x + s - 1) / s);
        }
}

TEST_CASE("a transposed window grows the input by the stride") {
  const WindowAxis w{.pad_begin = 1, .pad_end = 1, .stride = 2};
  // stride * (x - 1) + output_padding + span - pads
  CHECK(ge::window_transpose_out(Dim(7), 3, w, 1) == Dim(2 * 6 + 1 + 3 - 2));
  CHECK(ge::window_transpose_out(Dim::range(1, 4), 3, w, 0) == Dim::range(1, 7));
  CHECK(ge::window_transpose_out(Dim::at_least(2), 3, w, 0) == Dim::at_least(3));
  CHECK(ge::window_transpose_out(Dim(5), 3, WindowAxis{.stride = 2, .same = true}, 0) == Dim(10));
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
