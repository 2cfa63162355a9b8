// aclopExecute: GE's first single-op run call (deprecated there for aclopExecuteV2): the
// same lookup and run, with const descriptions that it leaves as they are.
#include "acl/single_op.hpp"

extern "C" {

aclError aclopExecute(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
                      const aclDataBuffer* const inputs[], int numOutputs, const aclTensorDesc* const outputDesc[],
                      aclDataBuffer* const outputs[], const aclopAttr* attr, aclrtStream stream) {
  return acl::guard("aclopExecute", [&] {
    acl::require_initialized("aclopExecute");
    acl::require_stream(stream, "aclopExecute");
    const acl::GeCall call = acl::read_call(opType, numInputs, inputDesc, numOutputs, outputDesc, attr);
    const auto dims = acl::real_dims(numInputs, inputDesc);
    const auto op = acl::find_compiled(call);
    (void)acl::run(*op, call, dims, numInputs, inputs, numOutputs, outputs);
    return ACL_SUCCESS;
  });
}

}  // extern "C"
