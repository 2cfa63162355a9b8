/* A user's C program against ge::acl: includes "acl/acl.h" as GE's samples do, runs one
 * single op, prints "consumer acl: ok". */
#include <stdio.h>

#include "acl/acl.h"

int main(void) {
  if (aclInit(NULL) != ACL_SUCCESS) return 1;
  const int64_t dims[1] = {3};
  float x[3] = {-1, 0, 2}, y[3] = {0, 0, 0};
  aclTensorDesc *desc[2] = {aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND),
                            aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND)};
  aclDataBuffer *in = aclCreateDataBuffer(x, sizeof x), *out = aclCreateDataBuffer(y, sizeof y);
  const aclError e = aclopCompileAndExecuteV2("Relu", 1, &desc[0], &in, 1, &desc[1], &out, NULL, ACL_ENGINE_SYS,
                                              ACL_COMPILE_SYS, NULL, NULL);
  aclDestroyTensorDesc(desc[0]);
  aclDestroyTensorDesc(desc[1]);
  aclDestroyDataBuffer(in);
  aclDestroyDataBuffer(out);
  aclFinalize();
  if (e != ACL_SUCCESS || y[0] != 0 || y[2] != 2) {
    printf("consumer acl: failed (%d)\n", e);
    return 1;
  }
  printf("consumer acl: ok\n");
  return 0;
}
