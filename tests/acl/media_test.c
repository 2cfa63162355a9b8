/* acl/ops/acl_dvpp.h (media memory and descriptions work; the media engine is refused
 * with ACL_ERROR_FEATURE_UNSUPPORTED), acl/acl_dump.h and acl/acl_prof.h (GE's state
 * rules; nothing written or collected). */
#include <stdint.h>
#include <stdio.h>

#include "acl/acl_prof.h"
#include "acl/ops/acl_dvpp.h"
#include "check.h"


static void test_memory(void) {
  void *p = NULL;
  CHECK_OK(acldvppMalloc(&p, 100));
  CHECK(p != NULL);
  memset(p, 0xab, 100 + 28 + 32); /* GE's rounding: up to 32, plus 32 bytes */
  void *q = NULL;
  CHECK_OK(aclrtMalloc(&q, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(acldvppFree(q), ACL_ERROR_INVALID_PARAM); /* aclrtMalloc's memory */
  CHECK_ACL(aclrtFree(p), ACL_ERROR_INVALID_PARAM);   /* acldvppMalloc's memory */
  CHECK_OK(aclrtMemcpy(q, 64, p, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
  CHECK(((unsigned char *)q)[63] == 0xab);
  CHECK_OK(acldvppFree(p));
  CHECK_ACL(acldvppFree(p), ACL_ERROR_INVALID_PARAM); /* twice */
  CHECK_OK(aclrtFree(q));
  CHECK_ACL(acldvppMalloc(NULL, 16), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(acldvppMalloc(&p, 0), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(acldvppMalloc(&p, SIZE_MAX), ACL_ERROR_BAD_ALLOC);
  CHECK_ACL(acldvppFree(NULL), ACL_ERROR_INVALID_PARAM);
  /* AclLite keeps acldvppFree as a plain free function */
  aclError (*freeFn)(void *) = acldvppFree;
  CHECK_OK(acldvppMalloc(&p, 1));
  CHECK_OK(freeFn(p));
}

static void test_descriptions(void) {
  acldvppPicDesc *pic = acldvppCreatePicDesc();
  CHECK(pic != NULL);
  CHECK(acldvppGetPicDescFormat(pic) == PIXEL_FORMAT_YUV_400 && acldvppGetPicDescData(pic) == NULL);
  int data = 0;
  CHECK_OK(acldvppSetPicDescData(pic, &data));
  CHECK_OK(acldvppSetPicDescFormat(pic, PIXEL_FORMAT_YUV_SEMIPLANAR_420));
  CHECK_OK(acldvppSetPicDescWidth(pic, 224));
  CHECK_OK(acldvppSetPicDescHeight(pic, 224));
  CHECK_OK(acldvppSetPicDescWidthStride(pic, 224));
  CHECK_OK(acldvppSetPicDescHeightStride(pic, 224));
  CHECK_OK(acldvppSetPicDescSize(pic, 224 * 224 * 3 / 2));
  CHECK(acldvppGetPicDescData(pic) == &data && acldvppGetPicDescFormat(pic) == PIXEL_FORMAT_YUV_SEMIPLANAR_420 &&
        acldvppGetPicDescWidth(pic) == 224 && acldvppGetPicDescSize(pic) == 75264);
  CHECK_ACL(acldvppSetPicDescFormat(pic, (acldvppPixelFormat)5000), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(acldvppSetPicDescWidth(NULL, 1), ACL_ERROR_INVALID_PARAM);
  CHECK(acldvppGetPicDescWidth(NULL) == 0);
  acldvppRoiConfig *roi = acldvppCreateRoiConfig(0, 99, 0, 99);
  CHECK(roi != NULL);
  CHECK_OK(acldvppSetRoiConfig(roi, 2, 11, 2, 11));
  CHECK_OK(acldvppSetRoiConfigLeft(roi, 4));
  acldvppResizeConfig *resize = acldvppCreateResizeConfig();
  CHECK_OK(acldvppSetResizeConfigInterpolation(resize, 1));
  CHECK(acldvppGetResizeConfigInterpolation(resize) == 1);
  acldvppJpegeConfig *jpege = acldvppCreateJpegeConfig();
  CHECK_OK(acldvppSetJpegeConfigLevel(jpege, 100));
  CHECK_ACL(acldvppSetJpegeConfigLevel(jpege, 101), ACL_ERROR_INVALID_PARAM);
  CHECK(acldvppGetJpegeConfigLevel(jpege) == 100);
  acldvppStreamDesc *stream = acldvppCreateStreamDesc();
  CHECK_OK(acldvppSetStreamDescFormat(stream, H264_MAIN_LEVEL));
  CHECK_OK(acldvppSetStreamDescEos(stream, 1));
  CHECK(acldvppGetStreamDescFormat(stream) == H264_MAIN_LEVEL && acldvppGetStreamDescEos(stream) == 1);
  aclvdecChannelDesc *vdec = aclvdecCreateChannelDesc();
  CHECK_OK(aclvdecSetChannelDescEnType(vdec, H265_MAIN_LEVEL));
  CHECK_OK(aclvdecSetChannelDescOutPicFormat(vdec, PIXEL_FORMAT_YVU_SEMIPLANAR_420));
  CHECK(aclvdecGetChannelDescOutPicFormat(vdec) == PIXEL_FORMAT_YVU_SEMIPLANAR_420);
  acldvppChannelDesc *channel = acldvppCreateChannelDesc();
  CHECK(channel != NULL);
  CHECK_OK(acldvppSetChannelDescMode(channel, DVPP_CHNMODE_VPC | DVPP_CHNMODE_JPEGD));
  CHECK_ACL(acldvppSetChannelDescMode(channel, 8), ACL_ERROR_INVALID_PARAM);
  /* the media engine */
  CHECK_ACL(acldvppCreateChannel(channel), ACL_ERROR_FEATURE_UNSUPPORTED);
  CHECK(strstr(aclGetRecentErrMsg(), "media engine") != NULL);
  CHECK_ACL(acldvppCreateChannel(NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(acldvppVpcResizeAsync(channel, pic, pic, resize, NULL), ACL_ERROR_FEATURE_UNSUPPORTED);
  CHECK_ACL(acldvppVpcResizeAsync(channel, NULL, pic, resize, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(acldvppVpcCropAsync(channel, pic, pic, roi, NULL), ACL_ERROR_FEATURE_UNSUPPORTED);
  CHECK_ACL(acldvppVpcCropAndPasteAsync(channel, pic, pic, roi, roi, NULL), ACL_ERROR_FEATURE_UNSUPPORTED);
  CHECK_ACL(acldvppJpegDecodeAsync(channel, &data, 4, pic, NULL), ACL_ERROR_FEATURE_UNSUPPORTED);
  uint32_t w = 0, h = 0, size = 0;
  int32_t c = 0;
  CHECK_ACL(acldvppJpegGetImageInfo(&data, 4, &w, &h, &c), ACL_ERROR_FEATURE_UNSUPPORTED);
  CHECK_ACL(acldvppJpegPredictDecSize(&data, 4, PIXEL_FORMAT_YUV_SEMIPLANAR_420, &size), ACL_ERROR_FEATURE_UNSUPPORTED);
  CHECK_ACL(aclvdecCreateChannel(vdec), ACL_ERROR_FEATURE_UNSUPPORTED);
  CHECK_OK(acldvppDestroyChannelDesc(channel));
  CHECK_OK(aclvdecDestroyChannelDesc(vdec));
  CHECK_OK(acldvppDestroyStreamDesc(stream));
  CHECK_OK(acldvppDestroyJpegeConfig(jpege));
  CHECK_OK(acldvppDestroyResizeConfig(resize));
  CHECK_OK(acldvppDestroyRoiConfig(roi));
  CHECK_OK(acldvppDestroyPicDesc(pic));
  CHECK_ACL(acldvppDestroyPicDesc(NULL), ACL_ERROR_INVALID_PARAM);
}

static void test_dump(const char *dir) {
  char cfg[512];
  snprintf(cfg, sizeof cfg, "%s/acl_dump_test.json", dir);
  FILE *f = fopen(cfg, "w");
  CHECK(f != NULL);
  if (f) {
    fputs("{\"dump\": {\"dump_path\": \"out\", \"dump_list\": []}}\n", f);
    fclose(f);
  }
  CHECK_ACL(aclmdlSetDump(cfg), ACL_ERROR_DUMP_NOT_RUN);
  CHECK_ACL(aclmdlFinalizeDump(), ACL_ERROR_DUMP_NOT_RUN);
  CHECK_OK(aclmdlInitDump());
  CHECK_ACL(aclmdlInitDump(), ACL_ERROR_DUMP_ALREADY_RUN);
  CHECK_OK(aclmdlSetDump(cfg));
  CHECK_ACL(aclmdlSetDump("/no/such/dump.json"), ACL_ERROR_INVALID_FILE);
  CHECK_ACL(aclmdlSetDump(NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclmdlFinalizeDump());
  CHECK(acldumpGetPath(DATA_DUMP) == NULL);
  CHECK_OK(aclopStartDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS, dir));
  CHECK(acldumpGetPath(DATA_DUMP) != NULL && strcmp(acldumpGetPath(DATA_DUMP), dir) == 0);
  CHECK_OK(aclopStopDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS));
  CHECK(acldumpGetPath(DATA_DUMP) == NULL);
  CHECK_ACL(aclopStartDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS, NULL), ACL_ERROR_FAILURE);
  CHECK_ACL(aclopStartDumpArgs(2, dir), ACL_ERROR_FAILURE);
}

static void test_prof(void) {
  uint32_t dev[1] = {0};
  aclprofConfig *c = aclprofCreateConfig(dev, 1, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API | ACL_PROF_TASK_TIME);
  CHECK(c != NULL);
  CHECK_ACL(aclprofStart(c), ACL_ERROR_PROF_NOT_RUN);
  CHECK_ACL(aclprofInit("prof", 3), ACL_ERROR_INVALID_PARAM); /* length is not the path's */
  CHECK_OK(aclprofInit("prof", 4));
  CHECK_ACL(aclprofInit("prof", 4), ACL_ERROR_REPEAT_INITIALIZE);
  CHECK_OK(aclprofStart(c));
  CHECK_ACL(aclprofStart(c), ACL_ERROR_PROF_ALREADY_RUN);
  CHECK_OK(aclprofStop(c));
  CHECK_ACL(aclprofStop(c), ACL_ERROR_PROF_NOT_RUN);
  CHECK_OK(aclprofDestroyConfig(c));
  CHECK_OK(aclprofFinalize());
  CHECK_ACL(aclprofFinalize(), ACL_ERROR_PROF_NOT_RUN);
  uint32_t dev1[1] = {1};
  CHECK(aclprofCreateConfig(dev1, 1, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API) == NULL);
  CHECK(aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API) == NULL);
  CHECK(aclprofCreateConfig(dev, 1, (aclprofAicoreMetrics)42, NULL, ACL_PROF_ACL_API) == NULL);
  CHECK_ACL(aclprofDestroyConfig(NULL), ACL_ERROR_INVALID_PARAM);
}

int main(int argc, char **argv) {
  void *p = NULL;
  CHECK_ACL(acldvppMalloc(&p, 16), ACL_ERROR_UNINITIALIZE);
  CHECK_ACL(aclmdlInitDump(), ACL_ERROR_UNINITIALIZE);
  CHECK_OK(aclInit(NULL));
  test_memory();
  test_descriptions();
  test_dump(argc > 1 ? argv[1] : ".");
  test_prof();
  CHECK_OK(aclFinalize());
  return check_report("acl media");
}
