// Min, Max and Mod on f16 and bf16 (compile/cpu/half.cpp: computed in f32 and rounded
// back) through single-op compile and execution, and the refusal of an f16 Mod with fmod 0.
#include <doctest/doctest.h>

#include "support/op_buffers.hpp"

#include "support/expect_error.hpp"

#include <cstdint>
#include <vector>

#include "ge/compile/op_compile.hpp"
#include "ge/core/error.hpp"

using ge::DataType;
using ge::Errc;
using ge::test::expect_error;
using namespace ge::test::op;  // Buf, desc, run

namespace {

// f16 bits of 1, 2, -1, 5, 3, -5 and 0.5; bf16 bits of 1, 2, -1.
constexpr std::uint16_t h1 = 0x3C00, h2 = 0x4000, hm1 = 0xBC00, h5 = 0x4500, h3 = 0x4200, hm5 = 0xC500, hhalf = 0x3800;
constexpr std::uint16_t b1 = 0x3F80, b2 = 0x4000, bm1 = 0xBF80;

Buf<std::uint16_t> half(DataType t, std::vector<std::uint16_t> v) {
  const auto n = static_cast<std::int64_t>(v.size());
  return Buf<std::uint16_t>{std::move(v), {n}, t};
}

}  // namespace

TEST_CASE("Min, Max and Mod on f16 and bf16 compute in f32") {
  auto a = half(DataType::f16, {h1, hm1, h5}), b = half(DataType::f16, {h2, hm5, h3}), y = half(DataType::f16, {0, 0, 0});
  const auto f16x3 = desc(DataType::f16, "3");
  run(*ge::compile_op("Max", {f16x3, f16x3}, {}), {a.view(), b.view()}, {y.view()});
  CHECK(y.data == std::vector<std::uint16_t>{h2, hm1, h5});
  run(*ge::compile_op("Min", {f16x3, f16x3}, {}), {a.view(), b.view()}, {y.view()});
  CHECK(y.data == std::vector<std::uint16_t>{h1, hm5, h3});
  // fmod: 1 mod 2 = 1, -1 mod -5 = -1, 5 mod 3 = 2 (the dividend's sign).
  run(*ge::compile_op("Mod", {f16x3, f16x3}, {}, {{"fmod", std::int64_t{1}}}), {a.view(), b.view()}, {y.view()});
  CHECK(y.data == std::vector<std::uint16_t>{h1, hm1, h2});
  auto c = half(DataType::f16, {hhalf});
  auto y1 = half(DataType::f16, {0, 0, 0});
  run(*ge::compile_op("Max", {f16x3, desc(DataType::f16, "1")}, {}), {a.view(), c.view()}, {y1.view()});
  CHECK(y1.data == std::vector<std::uint16_t>{h1, hhalf, h5});  // broadcast
  auto ba = half(DataType::bf16, {b1, bm1}), bb = half(DataType::bf16, {b2, bm1}), by = half(DataType::bf16, {0, 0});
  const auto bf16x2 = desc(DataType::bf16, "2");
  run(*ge::compile_op("Max", {bf16x2, bf16x2}, {}), {ba.view(), bb.view()}, {by.view()});
  CHECK(by.data == std::vector<std::uint16_t>{b2, bm1});
  // Mod of floats needs fmod 1: the schema refuses fmod 0.
  expect_error([&] { (void)ge::compile_op("Mod", {f16x3, f16x3}, {}); }, Errc::bad_attribute, "'fmod'");
}
