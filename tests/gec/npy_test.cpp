// Tests of gec's .npy files (src/tools/gec/npy.hpp): half floats in and out.
#include <doctest/doctest.h>

#include <bit>
#include <cstring>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "npy.hpp"
#include "support/expect_error.hpp"

namespace {
std::string temp_file(const char* name) { return (std::filesystem::temp_directory_path() / name).string(); }
}  // namespace

TEST_CASE("npy: f16 arrays round-trip as '<f2'") {
  std::vector<std::uint16_t> h = {0x3c00, 0xc000, 0x3800, 0x0000, 0x7bff, 0x8001};  // 1, -2, 0.5, 0, max, tiny
  const std::vector<std::int64_t> dims = {2, 3};
  const std::string path = temp_file("ge_npy_f16_test.npy");
  gec::write_npy(path, ge::TensorView{h.data(), ge::DataType::f16, dims});
  const gec::NpyArray a = gec::read_npy(path);
  std::remove(path.c_str());
  CHECK(a.dtype == ge::DataType::f16);
  CHECK(a.dims == dims);
  REQUIRE(a.bytes.size() == h.size() * 2);
  CHECK(std::memcmp(a.bytes.data(), h.data(), a.bytes.size()) == 0);
}

TEST_CASE("npy: a bf16 array is written as f32 with the same values") {
  std::vector<std::uint16_t> h = {0x3f80, 0xc040, 0x3e00};  // 1, -3, 0.125
  const std::vector<std::int64_t> dims = {3};
  const std::string path = temp_file("ge_npy_bf16_test.npy");
  gec::write_npy(path, ge::TensorView{h.data(), ge::DataType::bf16, dims});
  const gec::NpyArray a = gec::read_npy(path);
  std::remove(path.c_str());
  CHECK(a.dtype == ge::DataType::f32);
  REQUIRE(a.bytes.size() == 12);
  const auto* f = reinterpret_cast<const float*>(a.bytes.data());
  CHECK(f[0] == 1.0f);
  CHECK(f[1] == -3.0f);
  CHECK(f[2] == 0.125f);
}

TEST_CASE("npy: random f16 and bf16 inputs lie in [-1, 1]") {
  std::mt19937_64 rng(3);
  for (const ge::DataType t : {ge::DataType::f16, ge::DataType::bf16}) {
    const gec::NpyArray a = gec::random_array(t, {64}, rng);
    REQUIRE(a.bytes.size() == 128);
    const auto* h = reinterpret_cast<const std::uint16_t*>(a.bytes.data());
    bool some_nonzero = false;
    for (int i = 0; i < 64; ++i) {
      // Both types: |x| <= 1 means the bits without the sign are at most those of 1.0.
      const std::uint16_t mag = h[i] & 0x7fff;
      CHECK(mag <= (t == ge::DataType::f16 ? 0x3c00 : 0x3f80));
      some_nonzero = some_nonzero || mag != 0;
    }
    CHECK(some_nonzero);
  }
}

TEST_CASE("npy: an unsupported type is a clear error") {
  const std::string path = temp_file("ge_npy_c8_test.npy");
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f != nullptr);
    std::string header = "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }";
    header.append(128 - 10 - header.size() - 1, ' ');
    header += '\n';
    const unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<unsigned char>(header.size()), 0};
    std::fwrite(pre, 1, 10, f);
    std::fwrite(header.data(), 1, header.size(), f);
    const float z[2] = {0, 0};
    std::fwrite(z, 4, 2, f);
    std::fclose(f);
  }
  ge::test::expect_error([&] { (void)gec::read_npy(path); }, ge::Errc::bad_tensor, "'<c8' is not supported");
  std::remove(path.c_str());
}
