/* aclmdlGetFirstAippInfo, aclmdlCreateAndGetOpDesc, execution configurations and
 * aclmdlExecute[Async]V2, over fixed.gem (x f32[2,3]; y = 2x + 1).
 * argv[1]: the folder of model files. */
#include <stdint.h>
#include <stdio.h>

#include "check.h"


static const char *model_dir = ".";

static void test_model_extras(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/fixed.gem", model_dir);
  uint32_t id = 0;
  CHECK_OK(aclmdlLoadFromFile(path, &id));
  aclAippInfo info;
  CHECK_ACL(aclmdlGetFirstAippInfo(id, 0, &info), (aclError)ACL_ERROR_GE_AIPP_NOT_EXIST);
  CHECK(strstr(aclGetRecentErrMsg(), "static AIPP") != NULL);
  CHECK_ACL(aclmdlGetFirstAippInfo(id, 5, &info), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlGetFirstAippInfo(id + 1000, 0, &info), ACL_ERROR_INVALID_MODEL_ID);
  CHECK_ACL(aclmdlGetFirstAippInfo(id, 0, NULL), ACL_ERROR_INVALID_PARAM);

  float x[6] = {0, 1, 2, 3, 4, 5}, y[6] = {0};
  aclmdlDataset *in = aclmdlCreateDataset(), *out = aclmdlCreateDataset();
  aclDataBuffer *xb = aclCreateDataBuffer(x, sizeof x), *yb = aclCreateDataBuffer(y, sizeof y);
  CHECK_OK(aclmdlAddDatasetBuffer(in, xb));
  CHECK_OK(aclmdlAddDatasetBuffer(out, yb));
  aclmdlExecConfigHandle *cfg = aclmdlCreateExecConfigHandle();
  CHECK(cfg != NULL);
  int32_t timeout = 1000;
  CHECK_OK(aclmdlSetExecConfigOpt(cfg, ACL_MDL_STREAM_SYNC_TIMEOUT, &timeout, sizeof timeout));
  size_t work = 0;
  CHECK_OK(aclmdlSetExecConfigOpt(cfg, ACL_MDL_WORK_SIZET, &work, sizeof work));
  CHECK_ACL(aclmdlSetExecConfigOpt(cfg, ACL_MDL_WORK_SIZET, &work, 4), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlSetExecConfigOpt(cfg, (aclmdlExecConfigAttr)99, &work, sizeof work), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlSetExecConfigOpt(NULL, ACL_MDL_WORK_SIZET, &work, sizeof work), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclmdlSetExecConfigOpt(cfg, ACL_MDL_WORK_SIZET, NULL, sizeof work), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclmdlExecuteV2(id, in, out, NULL, cfg));
  int wrong = 0;
  for (int i = 0; i < 6; ++i) wrong += y[i] != 2 * x[i] + 1;
  CHECK(wrong == 0);
  memset(y, 0, sizeof y);
  aclrtStream stream = NULL;
  CHECK_OK(aclrtCreateStream(&stream));
  CHECK_OK(aclmdlExecuteAsyncV2(id, in, out, stream, NULL));
  CHECK_OK(aclrtSynchronizeStream(stream));
  CHECK(y[5] == 11.0f);
  CHECK_ACL(aclmdlExecuteV2(id + 1000, in, out, NULL, cfg), ACL_ERROR_INVALID_MODEL_ID);
  CHECK_ACL(aclmdlExecuteAsyncV2(id, NULL, out, stream, cfg), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtDestroyStream(stream));
  CHECK_OK(aclmdlDestroyExecConfigHandle(cfg));
  CHECK_ACL(aclmdlDestroyExecConfigHandle(NULL), ACL_ERROR_INVALID_PARAM);

  char name[64];
  aclTensorDesc *ins = NULL, *outs = NULL;
  size_t nin = 0, nout = 0;
  CHECK_ACL(aclmdlCreateAndGetOpDesc(0, 0, 1, name, sizeof name, &ins, &nin, &outs, &nout), ACL_ERROR_INVALID_PARAM);
  CHECK(strstr(aclGetRecentErrMsg(), "no device tasks") != NULL);
  CHECK(ins == NULL && outs == NULL);
  CHECK_ACL(aclmdlCreateAndGetOpDesc(0, 0, 1, NULL, 0, &ins, &nin, &outs, &nout), ACL_ERROR_INVALID_PARAM);

  aclmdlDestroyDataset(in);
  aclmdlDestroyDataset(out);
  aclDestroyDataBuffer(xb);
  aclDestroyDataBuffer(yb);
  CHECK_OK(aclmdlUnload(id));
}

int main(int argc, char **argv) {
  if (argc > 1) model_dir = argv[1];
  CHECK_OK(aclInit(NULL));
  CHECK_OK(aclrtSetDevice(0)); /* a current context for the stream, as the samples set it */
  test_model_extras();
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclFinalize());
  return check_report("acl mdl_more");
}
