/* ge's acl C API: dump control (GE: acl/acl_dump.h, included by acl_op.h).
 *
 * GE writes the data of model and single-op runs, or the op information of single-op
 * runs, to the folders of a dump configuration. ge runs on the CPU with no device-side
 * dump: the calls check their arguments and state as GE's do and succeed without
 * writing files (docs/acl.md, "Dump and profiling").
 *
 *   aclmdlInitDump();
 *   aclmdlSetDump("acl_dump.json");   // a readable JSON object
 *   ...                               // runs
 *   aclmdlFinalizeDump();
 */
#ifndef GE_ACL_ACL_DUMP_H_
#define GE_ACL_ACL_DUMP_H_

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The dump type of aclopStartDumpArgs / aclopStopDumpArgs (the only one GE has). */
#define ACL_OP_DUMP_OP_AICORE_ARGS 0x00000001U

/* The kinds of dump whose folder acldumpGetPath tells. */
typedef enum acldumpType {
  AIC_ERR_BRIEF_DUMP = 1,
  AIC_ERR_NORM_DUMP = 2,
  AIC_ERR_DETAIL_DUMP = 3,
  DATA_DUMP = 4,
  OVERFLOW_DUMP = 5
} acldumpType;

/* Starts the dump state (after aclInit; a second call before aclmdlFinalizeDump:
 * ACL_ERROR_DUMP_ALREADY_RUN, 100044). */
ACL_FUNC_VISIBILITY aclError aclmdlInitDump(void);
/* Reads a dump configuration: a readable JSON object (ACL_ERROR_INVALID_FILE otherwise);
 * before aclmdlInitDump: ACL_ERROR_DUMP_NOT_RUN (100045). */
ACL_FUNC_VISIBILITY aclError aclmdlSetDump(const char *dumpCfgPath);
/* Ends the dump state (none started: ACL_ERROR_DUMP_NOT_RUN). */
ACL_FUNC_VISIBILITY aclError aclmdlFinalizeDump(void);
/* Starts (stops) recording op information of single-op runs into `path`. dumpType must
 * hold ACL_OP_DUMP_OP_AICORE_ARGS and path be non-null: ACL_ERROR_FAILURE otherwise, as GE. */
ACL_FUNC_VISIBILITY aclError aclopStartDumpArgs(uint32_t dumpType, const char *path);
ACL_FUNC_VISIBILITY aclError aclopStopDumpArgs(uint32_t dumpType);
/* The folder of a kind of dump: the path given to aclopStartDumpArgs for DATA_DUMP while
 * it runs, else null (no dump folder configured). */
ACL_FUNC_VISIBILITY const char *acldumpGetPath(acldumpType dumpType);

#ifdef __cplusplus
}
#endif

#endif /* GE_ACL_ACL_DUMP_H_ */
