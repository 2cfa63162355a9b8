#include <doctest/doctest.h>

#include <set>
#include <string>

#include "ge/options/target.hpp"
#include "support/expect_error.hpp"

using ge::test::expect_error;

TEST_CASE("the target table holds the product rules of the reference") {
  const auto& cpu = ge::default_target();
  CHECK(cpu.name == "cpu");
  CHECK(cpu.max_gears == 256);
  CHECK((cpu.supports_gears && cpu.supports_ranges && cpu.supports_ac_parallel));

  const auto& a950 = ge::find_target("ascend950");
  CHECK(a950.max_gears == 256);
  CHECK(!a950.supports_single_op_compile);

  for (const char* name : {"atlas_a3", "atlas_a2", "atlas_inference", "atlas_training"}) {
    const auto& t = ge::find_target(name);
    CHECK(t.max_gears == 100);
    CHECK((t.supports_gears && t.supports_ranges && t.supports_ac_parallel && t.supports_single_op_compile));
  }
  const auto& a200 = ge::find_target("atlas_200i_500_a2");
  CHECK(a200.max_gears == 100);
  CHECK(a200.supports_gears);
  CHECK(!a200.supports_ranges);
  CHECK(!a200.supports_ac_parallel);

  const auto& ipv = ge::find_target("ipv350");
  CHECK(!ipv.supports_gears);
  CHECK(ipv.max_gears == 0);
  CHECK(!ipv.supports_ranges);
  CHECK(!ipv.supports_ac_parallel);
}

TEST_CASE("target names are unique and the default comes first") {
  std::set<std::string> names;
  for (const auto& t : ge::targets()) {
    CHECK(names.insert(std::string(t.name)).second);
    CHECK(!t.product.empty());
    CHECK((t.max_gears == 0) == !t.supports_gears);
  }
  CHECK(&ge::targets().front() == &ge::default_target());
  CHECK(names.size() == 8);
}

TEST_CASE("an unknown target throws unknown_target with a suggestion and the list") {
  expect_error([&] { return ge::find_target("atlas-a2"); }, ge::Errc::unknown_target, "[ge.options]", "'atlas-a2'",
               "did you mean 'atlas_a2'?");
  expect_error([&] { return ge::find_target("ascend910"); }, ge::Errc::unknown_target, "'ascend910'", "expected one of",
               "cpu", "ipv350");
  expect_error([&] { return ge::find_target(""); }, ge::Errc::unknown_target, "''");
  expect_error([&] { return ge::find_target("CPU"); }, ge::Errc::unknown_target, "did you mean 'cpu'?");
}
