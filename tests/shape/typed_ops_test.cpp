// Tests of ge/shape/typed_matmul.hpp and typed_conv2d.hpp. matmul: on every pair of a
// table of shapes (Hana's cartesian product, at compile time), the typed result equals
// numpy's rule composed from the runtime algebra (ge::broadcast of the batch dims,
// ge::merge of the inner dims), and can_matmul_v is false exactly where that throws.
// conv2d: on every combination of input size, kernel size and options, the typed
// output interval equals the smallest and largest output found by trying every size.
#include <doctest/doctest.h>

#include <array>
#include <boost/hana/at.hpp>
#include <boost/hana/cartesian_product.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/size.hpp>
#include <boost/hana/tuple.hpp>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "ge/shape/typed_conv2d.hpp"
#include "ge/shape/typed_matmul.hpp"
#include "support/expect_error.hpp"

namespace hana = boost::hana;
using ge::Dim;
using ge::Errc;
using ge::Shape;
using namespace ge::typed;
using ge::test::error_of;

namespace {
template <class S>
struct OpsRow {
  using type = S;
  const char* text;
};

template <class S>
Shape ops_shape_of() {
  return to_shape(S{});
}

// ---- matmul ----

constexpr auto matmul_table = hana::make_tuple(
    OpsRow<ShapeOf<>>{""}, OpsRow<StaticShape<4>>{"4"}, OpsRow<StaticShape<5>>{"5"}, OpsRow<StaticShape<3, 4>>{"3,4"},
    OpsRow<StaticShape<4, 5>>{"4,5"}, OpsRow<ShapeOf<Ranged<1, 8>, Static<3>, Static<4>>>{"1~8,3,4"},
    OpsRow<StaticShape<2, 4, 5>>{"2,4,5"}, OpsRow<ShapeOf<Unknown, Static<4>>>{"-1,4"},
    OpsRow<ShapeOf<Static<3>, Ranged<2, 6>>>{"3,2~6"}, OpsRow<StaticShape<1, 4, 6>>{"1,4,6"},
    OpsRow<StaticShape<5, 4, 2>>{"5,4,2"}, OpsRow<UnknownRank>{"-2"});
constexpr std::size_t matmul_rows = hana::size(matmul_table);

struct MatmulPair {
  const char* a;
  const char* b;
  bool can;
  Shape (*result)();  // null where can is false
};

constexpr auto matmul_pairs = [] {
  std::array<MatmulPair, matmul_rows * matmul_rows> out{};
  std::size_t i = 0;
  hana::for_each(hana::cartesian_product(hana::make_tuple(matmul_table, matmul_table)), [&](const auto& pair) {
    const auto& ra = hana::at_c<0>(pair);
    const auto& rb = hana::at_c<1>(pair);
    using A = typename std::remove_cvref_t<decltype(ra)>::type;
    using B = typename std::remove_cvref_t<decltype(rb)>::type;
    out[i] = {ra.text, rb.text, can_matmul_v<A, B>, nullptr};
    if constexpr (can_matmul_v<A, B>) out[i].result = &ops_shape_of<decltype(matmul(A{}, B{}))>;
    ++i;
  });
  return out;
}();

// numpy's matmul rule over runtime shapes, from the runtime algebra.
Shape reference_matmul(const Shape& a, const Shape& b) {
  if (!a.rank_known() || !b.rank_known()) return Shape::unknown_rank();
  if (a.rank() == 0 || b.rank() == 0) ge::raise(Errc::bad_op_inputs, "matmul of a scalar");
  std::vector<Dim> x = a.dims(), y = b.dims();
  if (x.size() == 1) x.insert(x.begin(), Dim(1));
  if (y.size() == 1) y.push_back(Dim(1));
  (void)ge::merge(x.back(), y[y.size() - 2]);
  std::vector<Dim> out = ge::broadcast(Shape(std::vector<Dim>(x.begin(), x.end() - 2)),
                                       Shape(std::vector<Dim>(y.begin(), y.end() - 2)))
                             .dims();
  if (a.rank() > 1) out.push_back(x[x.size() - 2]);
  if (b.rank() > 1) out.push_back(y.back());
  return Shape(std::move(out));
}

// ---- conv2d ----

template <class... Opts>
struct Options {
  const char* text;
};

constexpr auto conv_inputs =
    hana::make_tuple(OpsRow<Static<0>>{"0"}, OpsRow<Static<1>>{"1"}, OpsRow<Static<5>>{"5"}, OpsRow<Static<8>>{"8"},
                     OpsRow<Ranged<1, 9>>{"1~9"}, OpsRow<Ranged<3, 12>>{"3~12"}, OpsRow<Ranged<0, 4>>{"0~4"},
                     OpsRow<Ranged<10, 20>>{"10~20"});
constexpr auto conv_kernels = hana::make_tuple(OpsRow<Static<1>>{"1"}, OpsRow<Static<3>>{"3"}, OpsRow<Static<7>>{"7"},
                                               OpsRow<Ranged<2, 4>>{"2~4"}, OpsRow<Ranged<1, 9>>{"1~9"},
                                               OpsRow<Ranged<3, 3>>{"3~3"});
constexpr auto conv_options = hana::make_tuple(
    Options<>{"none"}, Options<Stride<2>, Pad<1>>{"stride 2, pad 1"},
    Options<Pad<2>, Dilation<2>>{"pad 2, dilation 2"},
    Options<Pad<0, 0, 1, 1>, Stride<3>>{"pad 0,0,1,1, stride 3"},
    Options<Dilation<3>, Stride<2>, Pad<0, 0, 3, 3>>{"dilation 3, stride 2, pad 0,0,3,3"});
constexpr std::size_t conv_combos =
    hana::size(conv_inputs).value * hana::size(conv_kernels).value * hana::size(conv_options).value;

struct ConvCase {
  const char* in;
  const char* k;
  const char* options;
  ge::WindowAxis window;  // of the H axis
  bool can;
  Dim out;  // H' where can
};

template <class H, class K, class... Opts>
constexpr ConvCase conv_case(const char* in, const char* k, Options<Opts...> o) {
  using X = ShapeOf<Static<1>, Static<2>, H, Static<9>>;
  using W = ShapeOf<Static<4>, Static<2>, K, Static<1>>;
  ConvCase c{in, k, o.text, detail::conv_params<Opts...>().h, can_conv2d_v<X, W, Opts...>, Dim()};
  if constexpr (can_conv2d_v<X, W, Opts...>) {
    using Y = decltype(conv2d(X{}, W{}, Opts{}...));
    static_assert(std::is_same_v<dim_at_t<Y, 0>, Static<1>> && std::is_same_v<dim_at_t<Y, 1>, Static<4>>);
    c.out = to_dim(dim_at_t<Y, 2>{});
  }
  return c;
}

// Every combination (nested for_each: Hana's cartesian product of three tables costs
// seconds of compile time, this costs little).
constexpr auto conv_cases = [] {
  std::array<ConvCase, conv_combos> out{};
  std::size_t i = 0;
  hana::for_each(conv_inputs, [&](const auto& in) {
    hana::for_each(conv_kernels, [&](const auto& k) {
      hana::for_each(conv_options, [&](const auto& o) {
        out[i++] = conv_case<typename std::remove_cvref_t<decltype(in)>::type,
                             typename std::remove_cvref_t<decltype(k)>::type>(in.text, k.text, o);
      });
    });
  });
  return out;
}();
}  // namespace

TEST_CASE("matmul agrees with numpy's rule from the runtime algebra on every pair") {
  std::size_t ok = 0, rejected = 0;
  for (const MatmulPair& p : matmul_pairs) {
    const Shape a = Shape::parse(p.a), b = Shape::parse(p.b);
    INFO("'", std::string(p.a), "' @ '", std::string(p.b), "'");
    if (p.can) {
      REQUIRE_MESSAGE(static_cast<bool>(p.result), "no typed result");
      const Shape typed = p.result();
      const Shape runtime = reference_matmul(a, b);
      CHECK_MESSAGE((typed == runtime && typed.to_string() == runtime.to_string()), typed.to_string(),
                    " != ", runtime.to_string());
      ++ok;
    } else {
      CHECK(error_of([&] { (void)reference_matmul(a, b); }).code() != Errc::ok);
      ++rejected;
    }
  }
  CHECK(ok > 0);
  CHECK(rejected > 0);
  CHECK(ok + rejected == matmul_rows * matmul_rows);
}

TEST_CASE("conv2d's output interval is exactly the outputs of every size it allows") {
  std::size_t fits = 0, never = 0;
  for (const ConvCase& c : conv_cases) {
    INFO("H ", std::string(c.in), ", K ", std::string(c.k), ", ", std::string(c.options));
    const Dim in = Dim::parse(c.in), k = Dim::parse(c.k);
    const std::int64_t pad = c.window.pad_begin + c.window.pad_end, stride = c.window.stride,
                       dilation = c.window.dilation;
    std::int64_t lo = Dim::inf, hi = -1;
    for (std::int64_t h = in.lo(); h <= in.hi(); ++h) {
      for (std::int64_t kk = k.lo(); kk <= k.hi(); ++kk) {
        const std::int64_t span = h + pad - (dilation * (kk - 1) + 1);
        if (span < 0) continue;
        const std::int64_t out = span / stride + 1;
        lo = out < lo ? out : lo;
        hi = out > hi ? out : hi;
      }
    }
    CHECK(c.can == (hi >= 0));
    if (c.can) {
      CHECK_MESSAGE(c.out == Dim::interval(lo, hi), c.out.to_string(), " != ", lo, "~", hi);
      ++fits;
    } else {
      ++never;
    }
  }
  CHECK(fits > 0);
  CHECK(never > 0);
}

TEST_CASE("conv2d over unbounded and unknown dims") {
  using X = ShapeOf<Ranged<1, 8>, Static<3>, Ranged<100, inf>, Unknown>;
  using Y = conv2d_t<X, StaticShape<16, 3, 3, 3>, Stride<2>, Pad<1>>;
  CHECK(to_shape(Y{}).to_string() == "1~8,16,50~inf,1~inf");
  CHECK(to_shape(conv2d(UnknownRank{}, StaticShape<16, 3, 3, 3>{})).to_string() == "-1,16,1~inf,1~inf");
  CHECK(to_shape(conv2d(X{}, UnknownRank{})).to_string() == "1~8,-1,1~inf,1~inf");
  // Channels against I * groups as intervals: a ranged C meets 3 * 2.
  using G = conv2d_t<ShapeOf<Static<1>, Ranged<4, 8>, Static<9>, Static<9>>, StaticShape<8, 3, 3, 3>, Groups<2>>;
  CHECK(to_shape(G{}).to_string() == "1,8,7,7");
  static_assert(!can_conv2d_v<ShapeOf<Static<1>, Ranged<7, 8>, Static<9>, Static<9>>, StaticShape<8, 3, 3, 3>,
                              Groups<2>>);
  // O: some value must be a multiple of groups.
  static_assert(can_conv2d_v<ShapeOf<Static<1>, Static<6>, Static<9>, Static<9>>,
                             ShapeOf<Ranged<5, 7>, Static<3>, Static<3>, Static<3>>, Groups<2>>);
  static_assert(!can_conv2d_v<ShapeOf<Static<1>, Static<6>, Static<9>, Static<9>>,
                              ShapeOf<Ranged<5, 5>, Static<3>, Static<3>, Static<3>>, Groups<2>>);
}
