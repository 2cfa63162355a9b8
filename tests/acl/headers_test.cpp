// The acl headers compile as C++ (extern "C", no C-only constructs) and hold GE's values;
// the error mapping and the conversions of src/acl/acl_internal.hpp.
#include <doctest/doctest.h>

#include "acl/acl.h"
#include "acl/ops/acl_cblas.h"

#include <type_traits>

#include "acl/acl_internal.hpp"

static_assert(std::is_same_v<aclError, int>);
static_assert(ACL_ERROR_INVALID_PARAM == 100000 && ACL_ERROR_OP_NOT_FOUND == 100024 &&
              ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG == 148048 && ACL_ERROR_GE_FAILURE == 500002);
static_assert(ACL_BF16 == 27 && ACL_DT_UNDEFINED == -1 && ACL_FORMAT_NCL == 47 && ACL_FORMAT_FRACTAL_NZ == 29);
static_assert(ACL_OP_JIT_COMPILE == 10 && ACL_OP_DEBUG_OPTION == 16 && ACL_OP_COMPILE_FUZZ == 1);
static_assert(ACL_ENGINE_VECTOR == 2 && ACL_COMPILE_UNREGISTERED == 1 && ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT == 2);
static_assert(ACL_MEMCPY_DEVICE_TO_DEVICE == 3 && ACL_MEM_MALLOC_NORMAL_ONLY == 2);
static_assert(ACL_UNKNOWN_RANK == 0xFFFFFFFFFFFFFFFEull && ACL_TENSOR_SHAPE_RANGE_NUM == 2);
// The runtime's and BLAS's values (GE's headers).
static_assert(ACL_ERROR_RT_PARAM_INVALID == 107000 && ACL_ERROR_RT_CONTEXT_NULL == 107002 &&
              ACL_ERROR_RT_STREAM_CONTEXT == 107003 && ACL_ERROR_RT_STREAM_NO_CB_REG == 107015 &&
              ACL_ERROR_RT_FEATURE_NOT_SUPPORT == 207000 && ACL_ERROR_RT_STREAM_SYNC_TIMEOUT == 507046);
static_assert(ACL_ERROR_INVALID_DEVICE == 200002 && ACL_ERROR_STORAGE_OVER_LIMIT == 300000 &&
              ACL_ERROR_REPEAT_SUBSCRIBE == 100033 && ACL_ERROR_WAIT_CALLBACK_TIMEOUT == 100036 &&
              ACL_ERROR_RT_FAILURE == 500003 && ACL_ERROR_PROFILING_FAILURE == 500005);
static_assert(ACL_DEVICE == 0 && ACL_HOST == 1 && ACL_CALLBACK_BLOCK == 1 && ACL_EVENT_RECORDED_STATUS_COMPLETE == 1);
static_assert(ACL_MEMCPY_INTER_DEVICE_TO_DEVICE == 7 && ACL_MEM_MALLOC_HUGE1G_ONLY_P2P == 7 && ACL_MEM_P2P_HUGE1G == 17);
static_assert(ACL_EVENT_TIME_LINE == 8u && ACL_STREAM_DEVICE_USE_ONLY == 0x20u && ACL_STOP_ON_FAILURE == 1u);
static_assert(ACL_TRANS_NZ_T == 3 && ACL_COMPUTE_LOW_PRECISION == 1 && ACL_INT4 == 29 && ACL_FLOAT4_E1M2 == 41);
static_assert(sizeof(aclmdlIODims) == 128 + sizeof(size_t) + 128 * sizeof(int64_t));
static_assert(sizeof(aclmdlHW) == sizeof(size_t) + 128 * 2 * sizeof(uint64_t));

// GE's values in the headers of the rest of issue 31 (acl_dvpp.h, acl_prof.h, acl_dump.h,
// the model extras, the kernel API).
#include "acl/acl_prof.h"
#include "acl/ops/acl_dvpp.h"
static_assert(PIXEL_FORMAT_YUV_SEMIPLANAR_420 == 1 && PIXEL_FORMAT_BGR_888 == 13 && PIXEL_FORMAT_BGRA_8565 == 40 &&
              PIXEL_FORMAT_RGB_BAYER_16BPP == 54 && PIXEL_FORMAT_S64C1 == 84 && PIXEL_FORMAT_FLOAT32 == 1002 &&
              PIXEL_FORMAT_UNKNOWN == 10000);
static_assert(H265_MAIN_LEVEL == 0 && H264_HIGH_LEVEL == 3 && DVPP_CHNMODE_JPEGE == 4);
static_assert(ACL_AICORE_L2_CACHE == 6 && ACL_AICORE_NONE == 0xFF && ACL_PROF_RUNTIME_API == 0x100);
static_assert(ACL_OP_DUMP_OP_AICORE_ARGS == 1 && OVERFLOW_DUMP == 5);
static_assert(ACL_MDL_NPU_PERF_MODE == 9 && ACL_MAX_SHAPE_COUNT == 128 && ACL_TENSOR_VALUE_RANGE_NUM == 2);
static_assert(ACL_COMPILE_FLAG_BIN_SELECTOR == 1);
static_assert(std::is_same_v<decltype(&aclopCast), aclError (*)(const aclTensorDesc*, const aclDataBuffer*,
                                                                const aclTensorDesc*, aclDataBuffer*, uint8_t,
                                                                aclrtStream)>);
static_assert(std::is_same_v<decltype(&acldvppFree), aclError (*)(void*)>);

TEST_CASE("acl: ge error codes map onto acl codes") {
  CHECK(acl::to_acl_error(ge::Errc::ok) == ACL_SUCCESS);
  CHECK(acl::to_acl_error(ge::Errc::unknown_op) == ACL_ERROR_OP_NOT_FOUND);
  CHECK(acl::to_acl_error(ge::Errc::bad_attribute) == ACL_ERROR_OP_ATTR_NOT_MATCH);
  CHECK(acl::to_acl_error(ge::Errc::const_mismatch) == ACL_ERROR_OP_INPUT_NOT_MATCH);
  CHECK(acl::to_acl_error(ge::Errc::out_of_memory) == ACL_ERROR_BAD_ALLOC);
  CHECK(acl::to_acl_error(ge::Errc::bad_model) == ACL_ERROR_PARSE_MODEL);
  CHECK(acl::to_acl_error(ge::Errc::internal) == ACL_ERROR_INTERNAL_ERROR);
  CHECK(acl::to_acl_error(ge::Errc::bad_option_value) == ACL_ERROR_INVALID_PARAM);
}

TEST_CASE("acl: the guard turns every exception into an aclError and records its message") {
  CHECK(acl::guard("t", [] { return ACL_SUCCESS; }) == ACL_SUCCESS);
  CHECK(acl::guard("t", []() -> aclError { ge::raise(ge::Errc::no_kernel, "none fits"); }) == ACL_ERROR_OP_LOAD_FAILED);
  CHECK(std::string(aclGetRecentErrMsg()) == "t: none fits");
  CHECK(acl::guard("t", []() -> aclError { throw std::bad_alloc(); }) == ACL_ERROR_BAD_ALLOC);
  CHECK(acl::guard("t", []() -> aclError { throw 42; }) == ACL_ERROR_FAILURE);
  CHECK(acl::guard_value<int>("t", -1, []() -> int { throw std::runtime_error("x"); }) == -1);
}

TEST_CASE("acl: descriptions convert to ge's tensors") {
  aclTensorDesc d;
  d.dtype = ACL_FLOAT16;
  d.format = ACL_FORMAT_NCHW;
  d.dims = {-1, 3, 224, 224};
  d.ranges = {{{1, 8}}, {{3, 3}}, {{224, 224}}, {{224, 224}}};
  const ge::OpTensor t = acl::to_op_tensor(d, "input 0");
  CHECK(t.dtype == ge::DataType::f16);
  CHECK(t.format == ge::Format::nchw);
  CHECK(t.shape.to_string() == "1~8,3,224,224");
  d.ranges[0] = {{2, -1}};
  CHECK(acl::to_shape(d).to_string() == "2~inf,3,224,224");
  d.dims = {-2};
  d.ranges.clear();
  CHECK(!acl::to_shape(d).rank_known());
  CHECK(acl::to_op_tensor(aclTensorDesc{}, "input 1").is_undefined());
  aclTensorDesc out;
  acl::set_shape(out, ge::Shape::parse("4~9,7"));
  CHECK(out.dims == std::vector<std::int64_t>{-1, 7});
  CHECK(out.ranges[0] == std::array<std::int64_t, 2>{4, 9});
  CHECK(acl::to_acl_type(ge::DataType::bf16) == ACL_BF16);
}
