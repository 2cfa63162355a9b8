/* ge's acl C API: single-op attributes, execution, handles and shape inference.
 *
 * An op is named by its Ascend IR type ("Add", "MatMulV2", "Conv2D", ...; docs/acl.md lists
 * how each maps onto ge's ops) or by a ge op name. Execution finds the op compiled
 * beforehand (acl_op_compiler.h) by type, descriptions, attributes and constant data; a
 * compiled range or a fuzzy compile serves every real shape it holds.
 *
 *   aclopAttr *attr = aclopCreateAttr();
 *   aclopSetAttrBool(attr, "transpose_x2", 1);
 *   aclopCompile("MatMulV2", 2, in, 1, out, attr, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL);
 *   aclopExecuteV2("MatMulV2", 2, in, inBuf, 1, out, outBuf, attr, stream);  // out: real dims
 */
#ifndef GE_ACL_ACL_OP_H_
#define GE_ACL_ACL_OP_H_

#include "acl_base.h"
#include "acl_dump.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclopHandle aclopHandle;
typedef struct aclopAttr aclopAttr;

/* Which engine runs an op: the system's choice, AI Core (ge's vector engine), vector. */
typedef enum aclEngineType {
  ACL_ENGINE_SYS,
  ACL_ENGINE_AICORE,
  ACL_ENGINE_VECTOR
} aclopEngineType;

/* An empty set of attributes (null when out of memory). */
ACL_FUNC_VISIBILITY aclopAttr *aclopCreateAttr(void);
ACL_FUNC_VISIBILITY void aclopDestroyAttr(const aclopAttr *attr);

/* Each setter adds or replaces attribute `attrName`. Lists: numValues >= 0 values. */
ACL_FUNC_VISIBILITY aclError aclopSetAttrBool(aclopAttr *attr, const char *attrName, uint8_t attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrInt(aclopAttr *attr, const char *attrName, int64_t attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrFloat(aclopAttr *attr, const char *attrName, float attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrString(aclopAttr *attr, const char *attrName, const char *attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrDataType(aclopAttr *attr, const char *attrName, aclDataType attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrListDataType(aclopAttr *attr, const char *attrName, int numValues,
                                                      const aclDataType values[]);
ACL_FUNC_VISIBILITY aclError aclopSetAttrListBool(aclopAttr *attr, const char *attrName, int numValues,
                                                  const uint8_t *values);
ACL_FUNC_VISIBILITY aclError aclopSetAttrListInt(aclopAttr *attr, const char *attrName, int numValues,
                                                 const int64_t *values);
ACL_FUNC_VISIBILITY aclError aclopSetAttrListFloat(aclopAttr *attr, const char *attrName, int numValues,
                                                   const float *values);
ACL_FUNC_VISIBILITY aclError aclopSetAttrListString(aclopAttr *attr, const char *attrName, int numValues,
                                                    const char **values);
/* numLists lists; list i has numValues[i] values at values[i] (all lists of one length). */
ACL_FUNC_VISIBILITY aclError aclopSetAttrListListInt(aclopAttr *attr, const char *attrName, int numLists,
                                                     const int *numValues, const int64_t *const values[]);

/* Runs the op compiled for these descriptions (ACL_ERROR_OP_NOT_FOUND when none was), and
 * rewrites each outputDesc with the real output dims. Input descriptions carry the real
 * (static) dims; constant inputs must carry the data they were compiled with. */
ACL_FUNC_VISIBILITY aclError aclopExecuteV2(const char *opType, int numInputs, aclTensorDesc *inputDesc[],
                                            aclDataBuffer *inputs[], int numOutputs, aclTensorDesc *outputDesc[],
                                            aclDataBuffer *outputs[], aclopAttr *attr, aclrtStream stream);

/* Offline single-op models, written by `gec --singleop ops.json --output DIR` (GE: atc
 * --singleop). aclopSetModelDir loads every *.om file of modelDir and of its folders up
 * to two levels below into the single-op store, where aclopExecuteV2 finds them as if
 * aclopCompile had compiled them; a .om file that is no op model is skipped (a warning in
 * ge's log). Once per process: a second call after one that succeeded is
 * ACL_ERROR_REPEAT_INITIALIZE. A folder that does not exist is
 * ACL_ERROR_READ_MODEL_FAILURE, a model whose op ge cannot compile
 * ACL_ERROR_OP_LOAD_FAILED. aclopLoad loads one model file's bytes (the caller keeps
 * them; not an op model: ACL_ERROR_PARSE_MODEL). Loaded ops stay loaded across aclFinalize. */
ACL_FUNC_VISIBILITY aclError aclopSetModelDir(const char *modelDir);
ACL_FUNC_VISIBILITY aclError aclopLoad(const void *model, size_t modelSize);

/* Deprecated in GE for aclopExecuteV2: the same run, leaving outputDesc as it is. */
ACL_FUNC_VISIBILITY aclError aclopExecute(const char *opType, int numInputs, const aclTensorDesc *const inputDesc[],
                                          const aclDataBuffer *const inputs[], int numOutputs,
                                          const aclTensorDesc *const outputDesc[], aclDataBuffer *const outputs[],
                                          const aclopAttr *attr, aclrtStream stream);

/* Finds the compiled op for these (static) descriptions once, for aclopExecWithHandle. */
ACL_FUNC_VISIBILITY aclError aclopCreateHandle(const char *opType, int numInputs,
                                               const aclTensorDesc *const inputDesc[], int numOutputs,
                                               const aclTensorDesc *const outputDesc[], const aclopAttr *opAttr,
                                               aclopHandle **handle);
ACL_FUNC_VISIBILITY void aclopDestroyHandle(aclopHandle *handle);
/* Runs the handle's op on buffers shaped as its descriptions. */
ACL_FUNC_VISIBILITY aclError aclopExecWithHandle(aclopHandle *handle, int numInputs,
                                                 const aclDataBuffer *const inputs[], int numOutputs,
                                                 aclDataBuffer *const outputs[], aclrtStream stream);

/* Sets the capacity of the cache of compiled ops (default 20000; 0 is
 * ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG); the least recently used go first. */
ACL_FUNC_VISIBILITY aclError aclopSetMaxOpQueueNum(uint64_t maxOpNum);

/* Infers the outputs' dims (and ranges, -1 where unknown, {-2} for unknown rank) into
 * outputDesc. Constant inputs, and integer inputs whose buffer is given, are read as
 * values (a Reshape's shape). Compiles nothing. */
ACL_FUNC_VISIBILITY aclError aclopInferShape(const char *opType, int numInputs, aclTensorDesc *inputDesc[],
                                             aclDataBuffer *inputs[], int numOutputs, aclTensorDesc *outputDesc[],
                                             aclopAttr *attr);

/* --- Cast (GE's convenience over the "Cast" single op) ------------------------------- */

/* Runs the Cast op compiled (aclopCompile, or an offline model) for srcDesc -> dstDesc
 * with the attributes GE gives it: "truncate" (bool) and "dst_type" (int, dstDesc's
 * type); as aclopExecuteV2 otherwise (ACL_ERROR_OP_NOT_FOUND when none was compiled). */
ACL_FUNC_VISIBILITY aclError aclopCast(const aclTensorDesc *srcDesc, const aclDataBuffer *srcBuffer,
                                       const aclTensorDesc *dstDesc, aclDataBuffer *dstBuffer, uint8_t truncate,
                                       aclrtStream stream);
/* aclopCreateHandle for that Cast (run with aclopExecWithHandle, one input, one output). */
ACL_FUNC_VISIBILITY aclError aclopCreateHandleForCast(aclTensorDesc *srcDesc, aclTensorDesc *dstDesc, uint8_t truncate,
                                                      aclopHandle **handle);

/* --- kernels of the caller's (GE: TIK/CCE binaries selected by a compile function) ----
 * ge keeps the registrations and runs the caller's selector (aclopUpdateParams), but
 * it cannot run NPU kernel binaries: executing such an op is ACL_ERROR_API_NOT_SUPPORT
 * (docs/acl.md, "Kernels of the caller's"). */

/* Frees a kernel binary handed to aclopCreateKernel. */
typedef void (*aclDataDeallocator)(void *data, size_t length);
/* aclopSetCompileFlag's flag that selects kernels with a registered compile function. */
static const int ACL_COMPILE_FLAG_BIN_SELECTOR = 1;
/* What a compile function fills in: the chosen kernel, its arguments and workspaces. */
typedef struct aclopKernelDesc aclopKernelDesc;
/* Chooses a kernel for an op's descriptions and attributes (aclopSetKernelArgs on
 * aclopKernelDesc); returns ACL_SUCCESS or an error of the caller's. */
typedef aclError (*aclopCompileFunc)(int numInputs, const aclTensorDesc *const inputDesc[], int numOutputs,
                                     const aclTensorDesc *const outputDesc[], const aclopAttr *opAttr,
                                     aclopKernelDesc *aclopKernelDesc);

/* Registers the compile function of op type opType (a second one for the same type:
 * ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED, 100030). */
ACL_FUNC_VISIBILITY aclError aclopRegisterCompileFunc(const char *opType, aclopCompileFunc func);
/* Removes it (none registered: ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED, 100028). */
ACL_FUNC_VISIBILITY aclError aclopUnregisterCompileFunc(const char *opType);
/* Registers kernel kernelId of opType: binData (binSize bytes, > 0) becomes ge's, freed
 * with deallocator (may be null) at exit. A kernelId registered already:
 * ACL_ERROR_KERNEL_ALREADY_REGISTERED (100031). */
ACL_FUNC_VISIBILITY aclError aclopCreateKernel(const char *opType, const char *kernelId, const char *kernelName,
                                               void *binData, int binSize, aclopEngineType enginetype,
                                               aclDataDeallocator deallocator);
/* Inside a compile function: the kernel chosen, its block dim and argument bytes. */
ACL_FUNC_VISIBILITY aclError aclopSetKernelArgs(aclopKernelDesc *kernelDesc, const char *kernelId, uint32_t blockDim,
                                                const void *args, uint32_t argSize);
/* Inside a compile function: the sizes of numWorkspaces (>= 0) workspaces. */
ACL_FUNC_VISIBILITY aclError aclopSetKernelWorkspaceSizes(aclopKernelDesc *kernelDesc, int numWorkspaces,
                                                          size_t *workspaceSizes);
/* Runs opType's compile function for these descriptions and attributes and checks the
 * kernel it chose was created (ACL_ERROR_KERNEL_NOT_FOUND, 100029, otherwise; no compile
 * function: ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED). */
ACL_FUNC_VISIBILITY aclError aclopUpdateParams(const char *opType, int numInputs,
                                               const aclTensorDesc *const inputDesc[], int numOutputs,
                                               const aclTensorDesc *const outputDesc[], const aclopAttr *attr);

#ifdef __cplusplus
}
#endif

#endif /* GE_ACL_ACL_OP_H_ */
