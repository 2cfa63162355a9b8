/* ge's acl C API: single-op compile and its options.
 *
 * aclopCompile compiles one op for descriptions that may hold ranges (-1 with
 * aclSetTensorShapeRange) or unknown rank ({-2}); an equal request later is a cache hit.
 * Shape-generalised ("fuzzy") compiles, set with aclopSetCompileFlag(ACL_OP_COMPILE_FUZZ)
 * or aclSetCompileopt(ACL_OP_JIT_COMPILE, "disable"), serve every shape of the same rank.
 *
 *   aclopCompile("Add", 2, in, 1, out, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL);
 */
#ifndef GE_ACL_ACL_OP_COMPILER_H_
#define GE_ACL_ACL_OP_COMPILER_H_

#include "acl_base.h"
#include "acl_op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ACL_COMPILE_SYS: an op of the library; ACL_COMPILE_UNREGISTERED: one with a compile
 * function of the caller's (not offered here: ACL_ERROR_API_NOT_SUPPORT). */
typedef enum aclCompileType {
  ACL_COMPILE_SYS,
  ACL_COMPILE_UNREGISTERED
} aclopCompileType;

/* Compile options (aclSetCompileopt); the values are GE's. */
typedef enum {
  ACL_PRECISION_MODE,
  ACL_AICORE_NUM,
  ACL_AUTO_TUNE_MODE,
  ACL_OP_SELECT_IMPL_MODE,
  ACL_OPTYPELIST_FOR_IMPLMODE,
  ACL_OP_DEBUG_LEVEL,
  ACL_DEBUG_DIR,
  ACL_OP_COMPILER_CACHE_MODE,
  ACL_OP_COMPILER_CACHE_DIR,
  ACL_OP_PERFORMANCE_MODE,
  ACL_OP_JIT_COMPILE,
  ACL_OP_DETERMINISTIC,
  ACL_CUSTOMIZE_DTYPES,
  ACL_OP_PRECISION_MODE,
  ACL_ALLOW_HF32,
  ACL_PRECISION_MODE_V2,
  ACL_OP_DEBUG_OPTION
} aclCompileOpt;

/* ACL_OP_COMPILE_FUZZ: shape-generalised compiles. */
typedef enum aclCompileFlag {
  ACL_OP_COMPILE_DEFAULT,
  ACL_OP_COMPILE_FUZZ
} aclOpCompileFlag;

/* Compiles one op (see the file comment). inputDesc holds numInputs descriptions,
 * outputDesc numOutputs; attr may be null; opPath is reserved and must be null. */
ACL_FUNC_VISIBILITY aclError aclopCompile(const char *opType, int numInputs, const aclTensorDesc *const inputDesc[],
                                          int numOutputs, const aclTensorDesc *const outputDesc[],
                                          const aclopAttr *attr, aclopEngineType engineType,
                                          aclopCompileType compileFlag, const char *opPath);

/* aclopCompile for the descriptions as given, then runs the op on the buffers. */
ACL_FUNC_VISIBILITY aclError aclopCompileAndExecute(const char *opType, int numInputs,
                                                    const aclTensorDesc *const inputDesc[],
                                                    const aclDataBuffer *const inputs[], int numOutputs,
                                                    const aclTensorDesc *const outputDesc[],
                                                    aclDataBuffer *const outputs[], const aclopAttr *attr,
                                                    aclopEngineType engineType, aclopCompileType compileFlag,
                                                    const char *opPath, aclrtStream stream);

/* As aclopCompileAndExecute, and rewrites each outputDesc with the real output dims. */
ACL_FUNC_VISIBILITY aclError aclopCompileAndExecuteV2(const char *opType, int numInputs, aclTensorDesc *inputDesc[],
                                                      aclDataBuffer *inputs[], int numOutputs,
                                                      aclTensorDesc *outputDesc[], aclDataBuffer *outputs[],
                                                      aclopAttr *attr, aclopEngineType engineType,
                                                      aclopCompileType compileFlag, const char *opPath,
                                                      aclrtStream stream);

/* Sets a compile option for later compiles. ACL_OP_JIT_COMPILE takes "enable" or "disable"
 * ("disable": shape-generalised); ACL_PRECISION_MODE "force_fp32", "allow_fp32_to_bf16",
 * ...; other options are kept and reported back as given. */
ACL_FUNC_VISIBILITY aclError aclSetCompileopt(aclCompileOpt opt, const char *value);
/* The bytes aclGetCompileopt needs for the option's value (with its terminating zero). */
ACL_FUNC_VISIBILITY size_t aclGetCompileoptSize(aclCompileOpt opt);
/* The option's value ("" when never set) into value[0..length). */
ACL_FUNC_VISIBILITY aclError aclGetCompileopt(aclCompileOpt opt, char *value, size_t length);
/* Sets how later compiles generalise shapes. */
ACL_FUNC_VISIBILITY aclError aclopSetCompileFlag(aclOpCompileFlag flag);

#ifdef __cplusplus
}
#endif

#endif /* GE_ACL_ACL_OP_COMPILER_H_ */
