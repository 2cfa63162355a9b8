/* ge's acl C API: everything (base types, runtime, single ops, models) and the process
 * calls. A GE program's `#include "acl/acl.h"` finds this file through the ge::acl target.
 *
 *   aclInit(NULL);            // or the path of a JSON file
 *   aclrtSetDevice(0);        // device 0: the CPU
 *   ...                       // single ops (acl_op.h, acl_op_compiler.h), models (acl_mdl.h)
 *   aclrtResetDevice(0);
 *   aclFinalize();
 */
#ifndef GE_ACL_ACL_H_
#define GE_ACL_ACL_H_

#include "acl_base.h"
#include "acl_rt.h"
#include "acl_op.h"
#include "acl_op_compiler.h"
#include "acl_mdl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Starts the library. configPath: null or "" (no configuration), or the path of a JSON file, which must exist and
 * hold a JSON object (ACL_ERROR_INVALID_FILE otherwise; its keys are not used).
 * A second call before aclFinalize is ACL_ERROR_REPEAT_INITIALIZE. */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
/* Ends what aclInit started: destroys the contexts, streams and events and drops the
 * compiled single ops. Before aclInit: ACL_ERROR_UNINITIALIZE; again after aclFinalize:
 * ACL_ERROR_REPEAT_FINALIZE. aclInit may be called again afterwards. */
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

#ifdef __cplusplus
}
#endif

#endif /* GE_ACL_ACL_H_ */
