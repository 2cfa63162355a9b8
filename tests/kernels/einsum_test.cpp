// Tests of kernels/cpu/sequence/einsum.hpp against a naive reference that walks every index of
// every label: the two-operand forms exporters write, transposes, outer products,
// diagonals, sums, three operands, broadcasting dims of 1, and the refusals.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "kernel_test.hpp"
#include "kernels/cpu/sequence/einsum.hpp"

using ge::Errc;
using ge::test::Buf;
using ge::test::check_close;
using ge::test::expect_error;
using ge::test::kernels_tag;
using ge::test::random_f32;
namespace cpu = ge::cpu;
using Ints = std::vector<std::int64_t>;

namespace {

// Labels from letters: "bij" -> {1, 8, 9}.
std::vector<int> labels(const std::string& s) {
  std::vector<int> v;
  for (const char c : s) v.push_back(c - 'a');
  return v;
}

// The reference: over every assignment of every label, output[out labels] += the
// product of the inputs (a dim of 1 is read at 0: broadcast).
std::vector<float> reference(const std::vector<std::string>& terms, const std::string& out,
                             const std::vector<Buf<float>>& in) {
  std::map<char, std::int64_t> size;
  for (std::size_t i = 0; i < terms.size(); ++i)
    for (std::size_t d = 0; d < terms[i].size(); ++d) {
      auto& s = size[terms[i][d]];
      s = std::max(s, in[i].dims[d]);
    }
  std::vector<char> all;
  for (const auto& [c, s] : size) all.push_back(c);
  std::int64_t total = 1, out_n = 1;
  for (const char c : all) total *= size[c];
  for (const char c : out) out_n *= size[c];
  std::vector<double> y(static_cast<std::size_t>(out_n), 0.0);
  std::map<char, std::int64_t> idx;
  for (std::int64_t t = 0; t < total; ++t) {
    std::int64_t r = t;
    for (std::size_t k = all.size(); k-- > 0;) idx[all[k]] = r % size[all[k]], r /= size[all[k]];
    double prod = 1;
    for (std::size_t i = 0; i < terms.size(); ++i) {
      std::int64_t off = 0;
      for (std::size_t d = 0; d < terms[i].size(); ++d)
        off = off * in[i].dims[d] + (in[i].dims[d] == 1 ? 0 : idx[terms[i][d]]);
      prod *= in[i][off];
    }
    std::int64_t o = 0;
    for (const char c : out) o = o * size[c] + idx[c];
    y[static_cast<std::size_t>(o)] += prod;
  }
  return std::vector<float>(y.begin(), y.end());
}

std::vector<float> run(const std::vector<std::string>& terms, const std::string& out, const std::vector<Buf<float>>& in,
                       const Ints& out_dims) {
  cpu::EinsumParams p;
  for (const auto& t : terms) p.inputs.push_back(labels(t));
  p.output = labels(out);
  std::vector<ge::TensorView> views;
  for (const auto& b : in) views.push_back(b.view());
  Buf<float> y(out_dims);
  cpu::einsum(p, views, y.view());
  return y.v;
}

void check(const std::vector<std::string>& terms, const std::string& out, const std::vector<Ints>& dims,
           const Ints& out_dims) {
  std::vector<Buf<float>> in;
  for (std::size_t i = 0; i < dims.size(); ++i) in.push_back(random_f32(dims[i], static_cast<std::uint32_t>(11 + i)));
  check_close(run(terms, out, in, out_dims), reference(terms, out, in), 1e-4f, 1e-4f);
}

}  // namespace

TEST_CASE("einsum: the batched matmul forms torch exports") {
  check({"bij", "bjk"}, "bik", {{3, 4, 5}, {3, 5, 6}}, {3, 4, 6});
  check({"bhid", "bhjd"}, "bhij", {{2, 3, 5, 8}, {2, 3, 7, 8}}, {2, 3, 5, 7});   // Q K^T: B transposed in place
  check({"bhij", "bhjd"}, "bhid", {{2, 3, 5, 7}, {2, 3, 7, 8}}, {2, 3, 5, 8});   // attention x V
  check({"ij", "jk"}, "ik", {{17, 33}, {33, 20}}, {17, 20});
  check({"bnd", "nd"}, "bn", {{4, 6, 5}, {6, 5}}, {4, 6});                        // batch label moved first
  check({"ij", "kj"}, "ik", {{4, 3}, {5, 3}}, {4, 5});
  check({"ji", "jk"}, "ik", {{3, 4}, {3, 5}}, {4, 5});                            // A transposed in place
  check({"bij", "bjk"}, "bki", {{2, 3, 4}, {2, 4, 5}}, {2, 5, 3});                // output permuted
  check({"i", "j"}, "ij", {{4}, {5}}, {4, 5});
  check({"i", "i"}, "", {{7}, {7}}, {});
  check({"bi", "bi"}, "b", {{3, 9}, {3, 9}}, {3});
}

TEST_CASE("einsum: one operand: transposes, sums, diagonals, trace") {
  check({"ij"}, "ji", {{3, 4}}, {4, 3});
  check({"bij"}, "bji", {{2, 3, 4}}, {2, 4, 3});
  check({"ij"}, "i", {{3, 4}}, {3});
  check({"ijk"}, "", {{2, 3, 4}}, {});
  check({"ii"}, "i", {{4, 4}}, {4});
  check({"ii"}, "", {{4, 4}}, {});
  check({"bii"}, "bi", {{3, 4, 4}}, {3, 4});
  check({"ij"}, "ij", {{3, 4}}, {3, 4});
}

TEST_CASE("einsum: three operands, labels summed before the product, dims of 1 broadcast") {
  check({"ij", "jk", "kl"}, "il", {{3, 4}, {4, 5}, {5, 2}}, {3, 2});
  check({"ij", "jk"}, "k", {{3, 4}, {4, 5}}, {5});   // i summed in A first
  check({"bij", "bjk"}, "bik", {{1, 3, 4}, {5, 4, 2}}, {5, 3, 2});
  check({"ij", "ij"}, "ij", {{1, 4}, {3, 4}}, {3, 4});
  check({"bij", "jk"}, "bik", {{2, 3, 4}, {4, 1}}, {2, 3, 1});
}

TEST_CASE("einsum: a label of extent 0 gives zeros; an empty output does nothing") {
  std::vector<Buf<float>> in{Buf<float>({3, 0}), Buf<float>({0, 2})};
  CHECK(run({"ij", "jk"}, "ik", in, {3, 2}) == std::vector<float>(6, 0.f));
  std::vector<Buf<float>> e{Buf<float>({0, 4}), Buf<float>({4, 2})};
  CHECK(run({"ij", "jk"}, "ik", e, {0, 2}).empty());
}

TEST_CASE("einsum: refusals") {
  Buf<float> a({2, 3}), b({4, 5}), y({2, 5});
  const ge::TensorView ab[] = {a.view(), b.view()};
  expect_error(
      [&] {
        cpu::einsum({{labels("ij"), labels("jk")}, labels("ik")}, ab, y.view());
      },
      Errc::bad_op_inputs, kernels_tag);
  expect_error(
      [&] {
        cpu::einsum({{labels("ijk"), labels("jk")}, labels("ik")}, ab, y.view());
      },
      Errc::bad_op_inputs, kernels_tag);
  expect_error([&] { cpu::einsum({{labels("ij")}, labels("i")}, ab, y.view()); }, Errc::bad_op_inputs, kernels_tag);
  expect_error(
      [&] {
        cpu::einsum({{labels("ij"), labels("kl")}, labels("iz")}, ab, y.view());
      },
      Errc::bad_attribute, kernels_tag);
  expect_error(
      [&] {
        cpu::einsum({{labels("ij"), labels("kl")}, labels("ii")}, ab, y.view());
      },
      Errc::bad_attribute, kernels_tag);
  Buf<float> wrong({5, 2});
  expect_error(
      [&] {
        cpu::einsum({{labels("ij"), labels("kl")}, labels("il")}, ab, wrong.view());
      },
      Errc::bad_op_inputs, kernels_tag);
  Buf<std::int32_t> ai({2, 3});
  const ge::TensorView mixed[] = {ai.view(), b.view()};
  expect_error(
      [&] {
        cpu::einsum({{labels("ij"), labels("kl")}, labels("il")}, mixed, y.view());
      },
      Errc::type_mismatch, kernels_tag);
}

TEST_CASE("einsum: f64 through the plain product, same results as the reference") {
  const Buf<float> af = random_f32({2, 3, 4}, 5), bf = random_f32({2, 4, 5}, 6);
  Buf<double> a({2, 3, 4}), b({2, 4, 5}), y({2, 5, 3});
  for (std::int64_t i = 0; i < a.size(); ++i) a[i] = af[i];
  for (std::int64_t i = 0; i < b.size(); ++i) b[i] = bf[i];
  const ge::TensorView ab[] = {a.view(), b.view()};
  cpu::einsum({{labels("bij"), labels("bjk")}, labels("bki")}, ab, y.view());
  const std::vector<float> want = reference({"bij", "bjk"}, "bki", {af, bf});
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(y.v[i] == doctest::Approx(want[i]).epsilon(1e-6));
  const ge::TensorView mixed[] = {a.view(), bf.view()};
  expect_error(
      [&] {
        cpu::einsum({{labels("bij"), labels("bjk")}, labels("bki")}, mixed, y.view());
      },
      Errc::type_mismatch, kernels_tag);
}
