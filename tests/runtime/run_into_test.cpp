// Session::run_into: outputs into the caller's buffers, their real dims written back into
// the views, the plan reported; bad buffers are clear errors and the session stays usable.
#include <doctest/doctest.h>

#include <vector>

#include "ge/ge.hpp"
#include "support/expect_error.hpp"

namespace {

using ge::DataType;
using ge::Errc;
using ge::TensorView;
using ge::test::expect_error;

// x [?, 4] -> relu(x) * 2 + 1 -> y; and x itself as a second output (copied out).
ge::Graph two_outputs(std::string_view shape) {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, shape);
  b.output(x.relu("relu") * 2.0 + 1.0);
  b.output(x);
  return b.build();
}

std::vector<float> ramp_of(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) * 0.5f - 3.0f;
  return v;
}

}  // namespace

TEST_CASE("run_into: outputs land in the caller's buffers with their real dims, on every kind of plan") {
  const auto model = ge::compile(two_outputs("-1,4"), {{"ge.inputShape", "x:-1,4"}, {"ge.dynamicBatchSize", "1,4"},
                                                        {"ge.compileHybridMode", "1"}});
  for (const bool specialize : {true, false}) {
    CAPTURE(specialize);
    ge::Session s(model, {.threads = 2, .specialize_ranges = specialize});
    for (const std::int64_t batch : {1, 3, 4, 2}) {
      CAPTURE(batch);
      const std::vector<float> x = ramp_of(static_cast<std::size_t>(batch * 4));
      std::vector<float> y(64, -1.0f), z(64, -1.0f);  // room for more than any batch needs
      const TensorView in{const_cast<float*>(x.data()), DataType::f32, {batch, 4}};
      std::vector<TensorView> out{{y.data(), DataType::f32, {16, 4}}, {z.data(), DataType::f32, {64}}};
      const ge::RunInfo info = s.run_into(std::span<const TensorView>(&in, 1), out);
      const bool gear = batch == 1 || batch == 4;
      CHECK(info.plan == (gear ? ge::PlanKind::gear : specialize ? ge::PlanKind::signature : ge::PlanKind::range));
      CHECK((info.gear >= 0) == gear);
      CHECK(info.arena_bytes >= 0);
      CHECK(out[0].dims == ge::ViewDims{batch, 4});
      CHECK(out[1].dims == ge::ViewDims{batch, 4});
      CHECK(out[0].data == y.data());
      // The same numbers as run(), and nothing written past the real output.
      const ge::RunResult r = s.run({in});
      const auto want = r.outputs[0].values<float>();
      for (std::size_t i = 0; i < want.size(); ++i) CHECK(y[i] == want[i]);
      for (std::size_t i = 0; i < x.size(); ++i) CHECK(z[i] == x[i]);
      CHECK(y[want.size()] == -1.0f);
    }
  }
}

TEST_CASE("run_into: bad buffers are clear errors, and the session stays usable") {
  const auto model = ge::compile(two_outputs("-1,4"), {{"ge.inputShape", "x:1~8,4"}});
  ge::Session s(model, {.threads = 1});
  const std::vector<float> x = ramp_of(12);
  const TensorView in{const_cast<float*>(x.data()), DataType::f32, {3, 4}};
  const std::span<const TensorView> ins(&in, 1);
  std::vector<float> y(12), z(12), small(8);
  std::vector<std::int32_t> ints(12);
  const auto run = [&](std::vector<TensorView> out) { (void)s.run_into(ins, out); };
  expect_error([&] { run({{y.data(), DataType::f32, {12}}}); }, Errc::bad_tensor, "1 output buffers given",
               "2 outputs");
  expect_error([&] { run({{y.data(), DataType::f32, {12}}, {ints.data(), DataType::i32, {12}}}); }, Errc::bad_tensor,
               "output 1", "buffer is i32");
  expect_error([&] { run({{small.data(), DataType::f32, {8}}, {z.data(), DataType::f32, {12}}}); }, Errc::bad_tensor,
               "output 0", "needs 48 bytes", "holds 32");
  expect_error([&] { run({{y.data(), DataType::f32, {12}}, {y.data(), DataType::f32, {12}}}); }, Errc::bad_tensor,
               "overlap");
  expect_error([&] { run({{y.data(), DataType::f32, {12}, 16}, {z.data(), DataType::f32, {12}}}); }, Errc::bad_tensor,
               "output 0", "its buffer holds 16");
  // A bad input is the same error as run()'s.
  const TensorView wrong{const_cast<float*>(x.data()), DataType::f32, {3, 5}};
  std::vector<TensorView> out{{y.data(), DataType::f32, {12}}, {z.data(), DataType::f32, {12}}};
  expect_error([&] { (void)s.run_into(std::span<const TensorView>(&wrong, 1), out); }, Errc::out_of_range, "x:3,5");
  // Still usable.
  (void)s.run_into(ins, out);
  CHECK(out[0].dims == ge::ViewDims{3, 4});
  CHECK(y[0] == 1.0f);  // relu(-3) * 2 + 1
}

TEST_CASE("run_into: with pad_to_gear the caller's buffers are checked too, and the padded outputs land in them") {
  const auto model = ge::compile(two_outputs("-1,4"), {{"ge.inputShape", "x:-1,4"}, {"ge.dynamicBatchSize", "1,4"}});
  ge::Session s(model, {.threads = 1, .pad_to_gear = true});
  const std::vector<float> x = ramp_of(12);
  const TensorView in{const_cast<float*>(x.data()), DataType::f32, {3, 4}};
  const std::span<const TensorView> ins(&in, 1);
  std::vector<float> y(16, -1.0f), z(16, -1.0f), small(4);
  std::vector<TensorView> one{{y.data(), DataType::f32, {16}}};
  expect_error([&] { (void)s.run_into(ins, one); }, Errc::bad_tensor, "1 output buffers given", "2 outputs");
  std::vector<TensorView> tight{{y.data(), DataType::f32, {16}, 8}, {z.data(), DataType::f32, {16}}};
  expect_error([&] { (void)s.run_into(ins, tight); }, Errc::bad_tensor, "output 0", "its buffer holds 8");
  std::vector<TensorView> short_one{{small.data(), DataType::f32, {4}}, {z.data(), DataType::f32, {16}}};
  expect_error([&] { (void)s.run_into(ins, short_one); }, Errc::bad_tensor, "output 0", "needs 48 bytes");
  std::vector<TensorView> out{{y.data(), DataType::f32, {16}}, {z.data(), DataType::f32, {16}}};
  const ge::RunInfo info = s.run_into(ins, out);
  CHECK(info.plan == ge::PlanKind::gear);
  CHECK(info.padding_waste == doctest::Approx(0.25));
  CHECK(out[0].dims == ge::ViewDims{3, 4});
  CHECK(out[1].dims == ge::ViewDims{3, 4});
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(z[i] == x[i]);
  CHECK(y[0] == 1.0f);
  CHECK(y[12] == -1.0f);
}
