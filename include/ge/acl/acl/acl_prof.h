/* ge's acl C API: profiling (GE: acl/acl_prof.h).
 *
 * GE collects device timelines and metrics into profilerResultPath. ge has no device
 * profiler: the calls keep GE's order rules (init, start with a config, stop with it,
 * finalize) and report misuse with GE's codes, and collect nothing (docs/acl.md, "Dump
 * and profiling").
 *
 *   aclprofInit("prof", 4);
 *   uint32_t dev[1] = {0};
 *   aclprofConfig *c = aclprofCreateConfig(dev, 1, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API);
 *   aclprofStart(c); ... aclprofStop(c);
 *   aclprofDestroyConfig(c);
 *   aclprofFinalize();
 */
#ifndef GE_ACL_ACL_PROF_H_
#define GE_ACL_ACL_PROF_H_

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What to collect (dataTypeConfig of aclprofCreateConfig: an OR of these). */
#define ACL_PROF_ACL_API 0x0001ULL
#define ACL_PROF_TASK_TIME 0x0002ULL
#define ACL_PROF_AICORE_METRICS 0x0004ULL
#define ACL_PROF_AICPU 0x0008ULL
#define ACL_PROF_L2CACHE 0x0010ULL
#define ACL_PROF_HCCL_TRACE 0x0020ULL
#define ACL_PROF_TRAINING_TRACE 0x0040ULL
#define ACL_PROF_MSPROFTX 0x0080ULL
#define ACL_PROF_RUNTIME_API 0x0100ULL

/* The AI Core metrics to collect. */
typedef enum {
  ACL_AICORE_ARITHMETIC_UTILIZATION = 0,
  ACL_AICORE_PIPE_UTILIZATION = 1,
  ACL_AICORE_MEMORY_BANDWIDTH = 2,
  ACL_AICORE_L0B_AND_WIDTH = 3,
  ACL_AICORE_RESOURCE_CONFLICT_RATIO = 4,
  ACL_AICORE_MEMORY_UB = 5,
  ACL_AICORE_L2_CACHE = 6,
  ACL_AICORE_NONE = 0xFF
} aclprofAicoreMetrics;

typedef struct aclprofConfig aclprofConfig;
typedef struct aclprofAicoreEvents aclprofAicoreEvents;

/* Starts profiling into profilerResultPath (length: its strlen, 1..4096). After aclInit;
 * a second call before aclprofFinalize: ACL_ERROR_REPEAT_INITIALIZE. */
ACL_FUNC_VISIBILITY aclError aclprofInit(const char *profilerResultPath, size_t length);
/* Ends it (no aclprofInit: ACL_ERROR_PROF_NOT_RUN, 100043). */
ACL_FUNC_VISIBILITY aclError aclprofFinalize(void);
/* A configuration: deviceNums ids (each device 0 on ge), metrics, events (must be null),
 * what to collect. Null on a bad argument (the reason in aclGetRecentErrMsg). */
ACL_FUNC_VISIBILITY aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums,
                                                       aclprofAicoreMetrics aicoreMetrics,
                                                       const aclprofAicoreEvents *aicoreEvents,
                                                       uint64_t dataTypeConfig);
ACL_FUNC_VISIBILITY aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig);
/* Starts (stops) collecting what the configuration names. Before aclprofInit:
 * ACL_ERROR_PROF_NOT_RUN; started twice: ACL_ERROR_PROF_ALREADY_RUN (100042). */
ACL_FUNC_VISIBILITY aclError aclprofStart(const aclprofConfig *profilerConfig);
ACL_FUNC_VISIBILITY aclError aclprofStop(const aclprofConfig *profilerConfig);

#ifdef __cplusplus
}
#endif

#endif /* GE_ACL_ACL_PROF_H_ */
