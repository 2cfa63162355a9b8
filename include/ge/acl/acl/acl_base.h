/* ge's acl C API: the base types (errors, data types, formats, tensor descriptions,
 * data buffers) shared by the single-op, runtime and model headers.
 *
 * Plain C (C11) and C++: names, values and signatures follow GE's acl headers so that a
 * program written for GE compiles unchanged against these. Every function returning
 * aclError reports misuse (null pointers, bad counts) as ACL_ERROR_INVALID_PARAM and never
 * lets a C++ exception through; aclGetRecentErrMsg() tells what failed. docs/acl.md maps
 * each code to the rule behind it.
 *
 *   aclTensorDesc *d = aclCreateTensorDesc(ACL_FLOAT, 2, (int64_t[]){-1, 16}, ACL_FORMAT_ND);
 *   int64_t range[2][ACL_TENSOR_SHAPE_RANGE_NUM] = {{1, 8}, {16, 16}};
 *   aclSetTensorShapeRange(d, 2, range);   // dim 0 is any of 1..8
 *   aclDestroyTensorDesc(d);
 */
#ifndef GE_ACL_ACL_BASE_H_
#define GE_ACL_ACL_BASE_H_

#include <stddef.h>
#include <stdint.h>

#include "error_codes/ge_error_codes.h"
#include "error_codes/rt_error_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#else
#define ACL_FUNC_VISIBILITY
#endif

/* Marks a call GE keeps for old programs (a compiler warning names the newer one). */
#if defined(__GNUC__) || defined(__clang__)
#define ACL_DEPRECATED __attribute__((deprecated))
#define ACL_DEPRECATED_MESSAGE(message) __attribute__((deprecated(message)))
#else
#define ACL_DEPRECATED
#define ACL_DEPRECATED_MESSAGE(message)
#endif

/* An error code: ACL_SUCCESS or one of ACL_ERROR_*. */
typedef int aclError;
/* A half-precision value's bits. */
typedef uint16_t aclFloat16;

/* Opaque handles; a stream is a pointer the runtime hands out (see acl_rt.h). */
typedef void *aclrtStream;
typedef void *aclrtEvent;
typedef void *aclrtContext;
typedef struct aclDataBuffer aclDataBuffer;
typedef struct aclTensorDesc aclTensorDesc;

/* Success. */
#define ACL_SUCCESS 0
#define ACL_ERROR_NONE 0

/* Parameters and initialisation. */
#define ACL_ERROR_INVALID_PARAM 100000
#define ACL_ERROR_UNINITIALIZE 100001
#define ACL_ERROR_REPEAT_INITIALIZE 100002
#define ACL_ERROR_INVALID_FILE 100003
#define ACL_ERROR_WRITE_FILE 100004
#define ACL_ERROR_INVALID_FILE_SIZE 100005
#define ACL_ERROR_PARSE_FILE 100006
#define ACL_ERROR_FILE_MISSING_ATTR 100007
#define ACL_ERROR_FILE_ATTR_INVALID 100008
#define ACL_ERROR_INVALID_DUMP_CONFIG 100009
#define ACL_ERROR_INVALID_PROFILING_CONFIG 100010
/* Models. */
#define ACL_ERROR_INVALID_MODEL_ID 100011
#define ACL_ERROR_DESERIALIZE_MODEL 100012
#define ACL_ERROR_PARSE_MODEL 100013
#define ACL_ERROR_READ_MODEL_FAILURE 100014
#define ACL_ERROR_MODEL_SIZE_INVALID 100015
#define ACL_ERROR_MODEL_MISSING_ATTR 100016
#define ACL_ERROR_MODEL_INPUT_NOT_MATCH 100017
#define ACL_ERROR_MODEL_OUTPUT_NOT_MATCH 100018
#define ACL_ERROR_MODEL_NOT_DYNAMIC 100019
/* Single ops. */
#define ACL_ERROR_OP_TYPE_NOT_MATCH 100020
#define ACL_ERROR_OP_INPUT_NOT_MATCH 100021
#define ACL_ERROR_OP_OUTPUT_NOT_MATCH 100022
#define ACL_ERROR_OP_ATTR_NOT_MATCH 100023
#define ACL_ERROR_OP_NOT_FOUND 100024
#define ACL_ERROR_OP_LOAD_FAILED 100025
#define ACL_ERROR_UNSUPPORTED_DATA_TYPE 100026
#define ACL_ERROR_FORMAT_NOT_MATCH 100027
#define ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED 100028
#define ACL_ERROR_KERNEL_NOT_FOUND 100029
#define ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED 100030
#define ACL_ERROR_KERNEL_ALREADY_REGISTERED 100031
/* Queues, callback subscriptions (aclrtSubscribeReport) and the process. */
#define ACL_ERROR_INVALID_QUEUE_ID 100032
#define ACL_ERROR_REPEAT_SUBSCRIBE 100033
#define ACL_ERROR_STREAM_NOT_SUBSCRIBE 100034
#define ACL_ERROR_THREAD_NOT_SUBSCRIBE 100035
#define ACL_ERROR_WAIT_CALLBACK_TIMEOUT 100036
#define ACL_ERROR_REPEAT_FINALIZE 100037
#define ACL_ERROR_NOT_STATIC_AIPP 100038
#define ACL_ERROR_COMPILING_STUB_MODE 100039
#define ACL_ERROR_GROUP_NOT_SET 100040
#define ACL_ERROR_GROUP_NOT_CREATE 100041
#define ACL_ERROR_PROF_ALREADY_RUN 100042
#define ACL_ERROR_PROF_NOT_RUN 100043
#define ACL_ERROR_DUMP_ALREADY_RUN 100044
#define ACL_ERROR_DUMP_NOT_RUN 100045
#define ACL_ERROR_PROF_REPEAT_SUBSCRIBE 148046
#define ACL_ERROR_PROF_API_CONFLICT 148047
#define ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG 148048
#define ACL_ERROR_INVALID_OPP_PATH 148049
#define ACL_ERROR_OP_UNSUPPORTED_DYNAMIC 148050
#define ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED 148051
#define ACL_ERROR_UNSUPPORTED_JPEG 148052
#define ACL_ERROR_INVALID_BUNDLE_MODEL_ID 148053
/* Resources. */
#define ACL_ERROR_BAD_ALLOC 200000
#define ACL_ERROR_API_NOT_SUPPORT 200001
#define ACL_ERROR_INVALID_DEVICE 200002
#define ACL_ERROR_MEMORY_ADDRESS_UNALIGNED 200003
#define ACL_ERROR_RESOURCE_NOT_MATCH 200004
#define ACL_ERROR_INVALID_RESOURCE_HANDLE 200005
#define ACL_ERROR_FEATURE_UNSUPPORTED 200006
#define ACL_ERROR_PROF_MODULES_UNSUPPORTED 200007
/* Storage. */
#define ACL_ERROR_STORAGE_OVER_LIMIT 300000
/* Internal. */
#define ACL_ERROR_INTERNAL_ERROR 500000
#define ACL_ERROR_FAILURE 500001
#define ACL_ERROR_GE_FAILURE 500002
#define ACL_ERROR_RT_FAILURE 500003
#define ACL_ERROR_DRV_FAILURE 500004
#define ACL_ERROR_PROFILING_FAILURE 500005
/* What the aclrtGet*FromExceptionInfo calls return for a null exception info. */
#define ACL_ERROR_INVALID_EXCEPTION_INFO -1

/* One [lo, hi] pair per dim in aclSetTensorShapeRange; hi -1 is unbounded. */
#define ACL_TENSOR_SHAPE_RANGE_NUM 2
/* What aclGetTensorDescNumDims returns for unknown rank (dims exactly {-2}). */
#define ACL_UNKNOWN_RANK 0xFFFFFFFFFFFFFFFE

/* Element types (the values are GE's). */
typedef enum {
  ACL_DT_UNDEFINED = -1,
  ACL_FLOAT = 0,
  ACL_FLOAT16 = 1,
  ACL_INT8 = 2,
  ACL_INT32 = 3,
  ACL_UINT8 = 4,
  ACL_INT16 = 6,
  ACL_UINT16 = 7,
  ACL_UINT32 = 8,
  ACL_INT64 = 9,
  ACL_UINT64 = 10,
  ACL_DOUBLE = 11,
  ACL_BOOL = 12,
  ACL_STRING = 13,
  ACL_COMPLEX64 = 16,
  ACL_COMPLEX128 = 17,
  ACL_BF16 = 27,
  /* GE's packed and narrow float types: no ge tensor holds them
   * (aclCreateTensorDesc refuses them). */
  ACL_INT4 = 29,
  ACL_UINT1 = 30,
  ACL_COMPLEX32 = 33,
  ACL_HIFLOAT8 = 34,
  ACL_FLOAT8_E5M2 = 35,
  ACL_FLOAT8_E4M3FN = 36,
  ACL_FLOAT8_E8M0 = 37,
  ACL_FLOAT6_E3M2 = 38,
  ACL_FLOAT6_E2M3 = 39,
  ACL_FLOAT4_E2M1 = 40,
  ACL_FLOAT4_E1M2 = 41
} aclDataType;

/* --- half floats (ACL_FLOAT16): IEEE binary16 bits in an aclFloat16 --------------------- */

/* The float an aclFloat16 holds, exactly (subnormals, infinities and NaN included). */
ACL_FUNC_VISIBILITY float aclFloat16ToFloat(aclFloat16 value);
/* The aclFloat16 nearest `value` (ties to even); beyond 65504 (from 65520 up) infinity,
 * NaN a quiet NaN of the same sign, below 2^-14 a subnormal or zero. */
ACL_FUNC_VISIBILITY aclFloat16 aclFloatToFloat16(float value);

/* Memory layouts (the values are GE's). */
typedef enum {
  ACL_FORMAT_UNDEFINED = -1,
  ACL_FORMAT_NCHW = 0,
  ACL_FORMAT_NHWC = 1,
  ACL_FORMAT_ND = 2,
  ACL_FORMAT_NC1HWC0 = 3,
  ACL_FORMAT_FRACTAL_Z = 4,
  ACL_FORMAT_HWCN = 16,
  ACL_FORMAT_NDHWC = 27,
  ACL_FORMAT_FRACTAL_NZ = 29,
  ACL_FORMAT_NCDHW = 30,
  ACL_FORMAT_NC = 35,
  ACL_FORMAT_NCL = 47,
  /* GE's other packed device layouts (not accepted by ge, as NC1HWC0). */
  ACL_FORMAT_NC1HWC0_C04 = 12,
  ACL_FORMAT_NDC1HWC0 = 32,
  ACL_FRACTAL_Z_3D = 33,
  ACL_FORMAT_FRACTAL_NZ_C0_16 = 50,
  ACL_FORMAT_FRACTAL_NZ_C0_32 = 51
} aclFormat;

/* The options of aclrtCtxSetSysParamOpt / aclrtSetSysParamOpt (the values are GE's). */
typedef enum {
  ACL_OPT_DETERMINISTIC = 0,
  ACL_OPT_ENABLE_DEBUG_KERNEL = 1,
  ACL_OPT_STRONG_CONSISTENCY = 2,
  ACL_OPT_ENABLE_KERNEL_EARLY_START = 3
} aclSysParamOpt;

/* The level of a message of aclAppLog. */
typedef enum {
  ACL_DEBUG = 0,
  ACL_INFO = 1,
  ACL_WARNING = 2,
  ACL_ERROR = 3
} aclLogLevel;

/* Where a tensor's data lives (aclSetTensorPlaceMent). */
typedef enum {
  ACL_MEMTYPE_DEVICE = 0,
  ACL_MEMTYPE_HOST = 1,
  ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT = 2
} aclMemType;

/* The message of the last failed call on this thread ("" when none). */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

/* A message of the application's, printed to stderr when `logLevel` is at least the level
 * of the environment's ASCEND_GLOBAL_LOG_LEVEL (0 debug .. 3 error; default 3). */
ACL_FUNC_VISIBILITY void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line,
                                   const char *fmt, ...);
#define ACL_APP_LOG(level, fmt, ...) aclAppLog(level, __FUNCTION__, __FILE__, __LINE__, fmt, ##__VA_ARGS__)

/* The name of the chip: "ge-cpu" (ge runs on the host's CPU). */
ACL_FUNC_VISIBILITY const char *aclrtGetSocName(void);

/* --- data buffers -------------------------------------------------------------------- */

/* Wraps memory the caller owns (data may be null with size 0). */
ACL_FUNC_VISIBILITY aclDataBuffer *aclCreateDataBuffer(void *data, size_t size);
/* Frees the wrapper, never the memory. */
ACL_FUNC_VISIBILITY aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer);
/* The wrapped address (null for a null buffer). */
ACL_FUNC_VISIBILITY void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer);
/* The wrapped size in bytes (0 for a null buffer). */
ACL_FUNC_VISIBILITY size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer);
/* The old form of aclGetDataBufferSizeV2: the size as 32 bits (0, with a message, for a
 * size of 4 GiB or more, which 32 bits cannot hold). */
ACL_DEPRECATED_MESSAGE("aclGetDataBufferSize is deprecated, use aclGetDataBufferSizeV2 instead")
ACL_FUNC_VISIBILITY uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer);
/* Makes the wrapper hold other memory of the caller's (the old memory stays the caller's). */
ACL_FUNC_VISIBILITY aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size);
/* Bytes per element of a type; 0 for ACL_DT_UNDEFINED, ACL_STRING and unknown values. */
ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType);

/* --- tensor descriptions ----------------------------------------------------------- */

/* A description: type, dims (-1: unknown extent, exactly {-2}: unknown rank), format.
 * (ACL_DT_UNDEFINED, 0, NULL, ACL_FORMAT_UNDEFINED) describes an unused optional input.
 * Null when numDims < 0, or dims is null with numDims > 0. */
ACL_FUNC_VISIBILITY aclTensorDesc *aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t *dims,
                                                       aclFormat format);
ACL_FUNC_VISIBILITY void aclDestroyTensorDesc(const aclTensorDesc *desc);
/* One [lo, hi] pair per dim (dimsCount must equal the number of dims); hi -1 is unbounded. */
ACL_FUNC_VISIBILITY aclError aclSetTensorShapeRange(aclTensorDesc *desc, size_t dimsCount,
                                                    int64_t dimsRange[][ACL_TENSOR_SHAPE_RANGE_NUM]);
/* Marks the tensor constant with a copy of its data (length: the bytes of the dims). */
ACL_FUNC_VISIBILITY aclError aclSetTensorConst(aclTensorDesc *desc, void *dataBuffer, size_t length);
/* Says where the tensor's data lives. */
ACL_FUNC_VISIBILITY aclError aclSetTensorPlaceMent(aclTensorDesc *desc, aclMemType memType);
ACL_FUNC_VISIBILITY aclDataType aclGetTensorDescType(const aclTensorDesc *desc);
ACL_FUNC_VISIBILITY aclFormat aclGetTensorDescFormat(const aclTensorDesc *desc);
/* Bytes of the data (0 while a dim is unknown; 0 with the reason in aclGetRecentErrMsg
 * when the bytes overflow a size_t). */
ACL_FUNC_VISIBILITY size_t aclGetTensorDescSize(const aclTensorDesc *desc);
/* Elements (1 for a scalar; 0 while a dim is unknown; 0 with the reason in
 * aclGetRecentErrMsg when the count overflows a size_t). */
ACL_FUNC_VISIBILITY size_t aclGetTensorDescElementCount(const aclTensorDesc *desc);
/* Number of dims; ACL_UNKNOWN_RANK for unknown rank. */
ACL_FUNC_VISIBILITY size_t aclGetTensorDescNumDims(const aclTensorDesc *desc);
/* Dim `index` (-1 when unknown). */
ACL_FUNC_VISIBILITY aclError aclGetTensorDescDimV2(const aclTensorDesc *desc, size_t index, int64_t *dimSize);
/* The range [lo, hi] of dim `index` into dimRange[0..1] (dimRangeNum >= 2); hi -1 is unbounded. */
ACL_FUNC_VISIBILITY aclError aclGetTensorDescDimRange(const aclTensorDesc *desc, size_t index, size_t dimRangeNum,
                                                      int64_t *dimRange);

/* One [lo, hi] pair per value in aclSetTensorValueRange. */
#define ACL_TENSOR_VALUE_RANGE_NUM 2
/* Deprecated in GE for aclGetTensorDescDimV2: dim `index`, or -1 for a null description
 * or an index out of range. */
ACL_FUNC_VISIBILITY int64_t aclGetTensorDescDim(const aclTensorDesc *desc, size_t index);
/* The tensor's name ("" until set; null name: ""). */
ACL_FUNC_VISIBILITY void aclSetTensorDescName(aclTensorDesc *desc, const char *name);
ACL_FUNC_VISIBILITY const char *aclGetTensorDescName(aclTensorDesc *desc);
/* Replace the format, or the dims (ranges dropped); numDims >= 0, dims non-null when > 0. */
ACL_FUNC_VISIBILITY aclError aclSetTensorFormat(aclTensorDesc *desc, aclFormat format);
ACL_FUNC_VISIBILITY aclError aclSetTensorShape(aclTensorDesc *desc, int numDims, const int64_t *dims);
/* The format and dims before a layout change (kept; ge runs on the format and dims). */
ACL_FUNC_VISIBILITY aclError aclSetTensorOriginFormat(aclTensorDesc *desc, aclFormat format);
ACL_FUNC_VISIBILITY aclError aclSetTensorOriginShape(aclTensorDesc *desc, int numDims, const int64_t *dims);
/* The layout of the data in memory: a plain one (ND, NCHW, NHWC, ...) is kept; a packed
 * device layout (NC1HWC0, FRACTAL_*) is accepted but an op or model given the
 * description returns ACL_ERROR_FORMAT_NOT_MATCH (the CPU reads plain layouts). */
ACL_FUNC_VISIBILITY aclError aclSetTensorStorageFormat(aclTensorDesc *desc, aclFormat format);
ACL_FUNC_VISIBILITY aclError aclSetTensorStorageShape(aclTensorDesc *desc, int numDims, const int64_t *dims);
/* A new description (free with aclDestroyTensorDesc) of srcDesc's data in dstFormat:
 * between NCHW, NHWC and HWCN (4 dims) the dims permuted; the same format or ND a copy;
 * a packed device layout ACL_ERROR_FORMAT_NOT_MATCH. */
ACL_FUNC_VISIBILITY aclError aclTransTensorDescFormat(const aclTensorDesc *srcDesc, aclFormat dstFormat,
                                                      aclTensorDesc **dstDesc);
/* Element `index` of an array of descriptions (aclmdlCreateAndGetOpDesc): index 0 is
 * desc itself; ge makes no such arrays, so any other index is null. */
ACL_FUNC_VISIBILITY aclTensorDesc *aclGetTensorDescByIndex(aclTensorDesc *desc, size_t index);
/* The device address of the tensor of a failed task's op (null: ge has none). */
ACL_FUNC_VISIBILITY void *aclGetTensorDescAddress(const aclTensorDesc *desc);
/* Names the dynamic input (a list input) the tensor belongs to. */
ACL_FUNC_VISIBILITY aclError aclSetTensorDynamicInput(aclTensorDesc *desc, const char *dynamicInputName);
/* The range [lo, hi] of each of valueCount values of the tensor (lo <= hi). */
ACL_FUNC_VISIBILITY aclError aclSetTensorValueRange(aclTensorDesc *desc, size_t valueCount,
                                                    int64_t valueRange[][ACL_TENSOR_VALUE_RANGE_NUM]);

#ifdef __cplusplus
}
#endif

#endif /* GE_ACL_ACL_BASE_H_ */
