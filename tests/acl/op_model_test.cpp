// The op model files of src/acl/op_model.hpp (gec --singleop, aclopSetModelDir,
// aclopLoad): what make_op_model writes loads back to the op it describes, and no
// damaged file crashes the loader or loads as something else silently.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl_internal.hpp"
#include "acl/op_model.hpp"

static_assert(ACL_ERROR_READ_MODEL_FAILURE == 100014);  // GE's value (aclopSetModelDir of a missing folder)

namespace {

// Rewrites the last 8 bytes with the checksum of the rest (FNV-1a 64, little-endian), so
// that a deliberate change reaches the parser.
void reseal(std::vector<std::byte>& b) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i + 8 < b.size(); ++i) h = (h ^ static_cast<std::uint64_t>(b[i])) * 0x100000001b3ull;
  for (std::size_t i = 0; i < 8; ++i) b[b.size() - 8 + i] = static_cast<std::byte>((h >> (8 * i)) & 0xffu);
}

// A model of MatMulV2 f32[2,3] x f32[4,3]^T with both transpose attributes.
std::vector<std::byte> matmul_model() {
  const int64_t a[] = {2, 3}, b[] = {4, 3}, y[] = {2, 4};
  aclTensorDesc* in[] = {aclCreateTensorDesc(ACL_FLOAT, 2, a, ACL_FORMAT_ND),
                         aclCreateTensorDesc(ACL_FLOAT, 2, b, ACL_FORMAT_ND)};
  aclTensorDesc* out[] = {aclCreateTensorDesc(ACL_FLOAT, 2, y, ACL_FORMAT_ND)};
  aclopAttr* attr = aclopCreateAttr();
  REQUIRE(aclopSetAttrBool(attr, "transpose_x1", 0) == ACL_SUCCESS);
  REQUIRE(aclopSetAttrBool(attr, "transpose_x2", 1) == ACL_SUCCESS);
  auto bytes = acl::make_op_model("MatMulV2", 2, in, 1, out, attr, false);
  for (auto* d : in) aclDestroyTensorDesc(d);
  aclDestroyTensorDesc(out[0]);
  aclopDestroyAttr(attr);
  return bytes;
}

}  // namespace

TEST_CASE("acl op models: GE's default file name, type, format and dims of every tensor") {
  const int64_t d[] = {3, 3}, r[] = {-1};
  aclTensorDesc* in[] = {aclCreateTensorDesc(ACL_INT32, 2, d, ACL_FORMAT_ND),
                         aclCreateTensorDesc(ACL_FLOAT16, 1, r, ACL_FORMAT_NCHW)};
  aclTensorDesc* out[] = {aclCreateTensorDesc(ACL_INT32, 2, d, ACL_FORMAT_ND)};
  CHECK(acl::op_model_file_name(0, "Add", 2, in, 1, out) == "0_Add_3_2_3_3_1_0_-1_3_2_3_3.om");
  for (auto* x : in) aclDestroyTensorDesc(x);
  aclDestroyTensorDesc(out[0]);
}

TEST_CASE("acl op models: a file loads; every damaged form is refused or loads an op, never crashes") {
  const auto good = matmul_model();
  REQUIRE(good.size() > 40);
  CHECK(aclopLoad(good.data(), good.size()) == ACL_SUCCESS);
  // Each byte after the mark changed three ways, the checksum made right again.
  int refused = 0, loaded = 0;
  for (std::size_t i = 8; i + 8 < good.size(); ++i) {
    for (const unsigned x : {0x01u, 0x80u, 0xffu}) {
      auto bad = good;
      bad[i] ^= static_cast<std::byte>(x);
      reseal(bad);
      const aclError e = aclopLoad(bad.data(), bad.size());
      CHECK_MESSAGE((e == ACL_SUCCESS || e == ACL_ERROR_PARSE_MODEL || e == ACL_ERROR_OP_LOAD_FAILED), "byte ", i,
                    " ^ ", x, ": ", e, " ", aclGetRecentErrMsg());
      (e == ACL_SUCCESS ? loaded : refused) += 1;
    }
  }
  CHECK(refused > loaded);  // most changes break the op; some only rename an input, say
  // Every length short of the whole: refused.
  for (std::size_t n = 1; n < good.size(); ++n) CHECK(aclopLoad(good.data(), n) == ACL_ERROR_PARSE_MODEL);
  // Bytes after the op (a longer file whose checksum covers them): refused.
  auto longer = good;
  longer.insert(longer.end() - 8, std::byte{0});
  reseal(longer);
  CHECK(aclopLoad(longer.data(), longer.size()) == ACL_ERROR_PARSE_MODEL);
  CHECK(std::string(aclGetRecentErrMsg()).find("1 bytes follow the op") != std::string::npos);
  // Another format version.
  auto v2 = good;
  v2[8] = std::byte{2};
  reseal(v2);
  CHECK(aclopLoad(v2.data(), v2.size()) == ACL_ERROR_PARSE_MODEL);
  CHECK(std::string(aclGetRecentErrMsg()).find("format version 2") != std::string::npos);
}

TEST_CASE("acl op models: ranges must be none or one per dim, placements an aclMemType (checksum resealed)") {
  // Relu over f32[2,-1] with ranges {2,2},{1,8}: then the file's range count is made 1
  // (one pair dropped), which once let the loader read past the ranges it kept.
  const int64_t d[] = {2, -1};
  int64_t range[2][ACL_TENSOR_SHAPE_RANGE_NUM] = {{2, 2}, {1, 8}};
  aclTensorDesc* in[] = {aclCreateTensorDesc(ACL_FLOAT, 2, d, ACL_FORMAT_ND)};
  aclTensorDesc* out[] = {aclCreateTensorDesc(ACL_FLOAT, 2, d, ACL_FORMAT_ND)};
  REQUIRE(aclSetTensorShapeRange(in[0], 2, range) == ACL_SUCCESS);
  REQUIRE(aclSetTensorShapeRange(out[0], 2, range) == ACL_SUCCESS);
  const auto good = acl::make_op_model("Relu", 1, in, 1, out, nullptr, false);
  aclDestroyTensorDesc(in[0]);
  aclDestroyTensorDesc(out[0]);
  REQUIRE(aclopLoad(good.data(), good.size()) == ACL_SUCCESS);

  // u32 2, then i64 2, 2, 1, 8: the input's ranges.
  std::vector<std::byte> pattern;
  const auto put = [&](std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) pattern.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xffu));
  };
  put(2, 4);
  for (const std::uint64_t v : {2, 2, 1, 8}) put(v, 8);
  const auto at = std::search(good.begin(), good.end(), pattern.begin(), pattern.end());
  REQUIRE(at != good.end());
  auto bad = good;
  const auto off = static_cast<std::ptrdiff_t>(at - good.begin());
  bad[static_cast<std::size_t>(off)] = std::byte{1};
  bad.erase(bad.begin() + off + 4 + 16, bad.begin() + off + 4 + 32);
  reseal(bad);
  CHECK(aclopLoad(bad.data(), bad.size()) == ACL_ERROR_PARSE_MODEL);
  CHECK(std::string(aclGetRecentErrMsg()).find("1 ranges for 2 dims") != std::string::npos);

  // The input's placement (the i32 after its constant flag) made 77.
  auto placed = good;
  const std::size_t flag = static_cast<std::size_t>(off) + 4 + 32;
  REQUIRE(placed[flag] == std::byte{0});  // no constant data
  placed[flag + 1] = std::byte{77};
  reseal(placed);
  CHECK(aclopLoad(placed.data(), placed.size()) == ACL_ERROR_PARSE_MODEL);
  CHECK(std::string(aclGetRecentErrMsg()).find("placement of 77") != std::string::npos);
}
