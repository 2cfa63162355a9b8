/* ge's acl C API: GE's media processing (DVPP: JPEG and video codecs, resize, crop).
 *
 * ge runs on the CPU and has no media engine. The memory calls work (acldvppMalloc
 * allocates as aclrtMalloc does; only acldvppFree frees it), and the descriptions
 * (pictures, streams, regions, configurations, channel descriptions) hold and return
 * what is set on them, so programs that include this header and keep media buffers
 * run. Every call that would use the engine (channels, resize, crop, JPEG, video)
 * returns ACL_ERROR_FEATURE_UNSUPPORTED with aclGetRecentErrMsg saying so
 * (docs/acl.md, "Media (DVPP)"). Names, values and signatures are GE's.
 *
 *   void *buf;
 *   acldvppMalloc(&buf, size);
 *   acldvppPicDesc *pic = acldvppCreatePicDesc();
 *   acldvppSetPicDescData(pic, buf);
 *   acldvppSetPicDescFormat(pic, PIXEL_FORMAT_YUV_SEMIPLANAR_420);
 *   ...
 *   acldvppDestroyPicDesc(pic);
 *   acldvppFree(buf);
 */
#ifndef GE_ACL_OPS_ACL_DVPP_H_
#define GE_ACL_OPS_ACL_DVPP_H_

#include <stddef.h>
#include <stdint.h>

#include "../acl.h"
#include "../acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct acldvppPicDesc acldvppPicDesc;
typedef struct acldvppBatchPicDesc acldvppBatchPicDesc;
typedef struct acldvppRoiConfig acldvppRoiConfig;
typedef struct acldvppResizeConfig acldvppResizeConfig;
typedef struct acldvppChannelDesc acldvppChannelDesc;
typedef struct acldvppJpegeConfig acldvppJpegeConfig;
typedef struct aclvdecChannelDesc aclvdecChannelDesc;
typedef struct acldvppStreamDesc acldvppStreamDesc;
typedef struct aclvdecFrameConfig aclvdecFrameConfig;
typedef struct aclvencChannelDesc aclvencChannelDesc;
typedef struct aclvencFrameConfig aclvencFrameConfig;
typedef void (*aclvdecCallback)(acldvppStreamDesc *input, acldvppPicDesc *output, void *userData);
typedef void (*aclvencCallback)(acldvppPicDesc *input, acldvppStreamDesc *output, void *userdata);

/* Pixel formats of pictures (GE's values). */
typedef enum acldvppPixelFormat {
  PIXEL_FORMAT_YUV_400 = 0,
  PIXEL_FORMAT_YUV_SEMIPLANAR_420 = 1,
  PIXEL_FORMAT_YVU_SEMIPLANAR_420 = 2,
  PIXEL_FORMAT_YUV_SEMIPLANAR_422 = 3,
  PIXEL_FORMAT_YVU_SEMIPLANAR_422 = 4,
  PIXEL_FORMAT_YUV_SEMIPLANAR_444 = 5,
  PIXEL_FORMAT_YVU_SEMIPLANAR_444 = 6,
  PIXEL_FORMAT_YUYV_PACKED_422 = 7,
  PIXEL_FORMAT_UYVY_PACKED_422 = 8,
  PIXEL_FORMAT_YVYU_PACKED_422 = 9,
  PIXEL_FORMAT_VYUY_PACKED_422 = 10,
  PIXEL_FORMAT_YUV_PACKED_444 = 11,
  PIXEL_FORMAT_RGB_888 = 12,
  PIXEL_FORMAT_BGR_888 = 13,
  PIXEL_FORMAT_ARGB_8888 = 14,
  PIXEL_FORMAT_ABGR_8888 = 15,
  PIXEL_FORMAT_RGBA_8888 = 16,
  PIXEL_FORMAT_BGRA_8888 = 17,
  PIXEL_FORMAT_YUV_SEMI_PLANNER_420_10BIT = 18,
  PIXEL_FORMAT_YVU_SEMI_PLANNER_420_10BIT = 19,
  PIXEL_FORMAT_YVU_PLANAR_420 = 20,
  PIXEL_FORMAT_YVU_PLANAR_422 = 21,
  PIXEL_FORMAT_YVU_PLANAR_444 = 22,
  PIXEL_FORMAT_RGB_444 = 23,
  PIXEL_FORMAT_BGR_444 = 24,
  PIXEL_FORMAT_ARGB_4444 = 25,
  PIXEL_FORMAT_ABGR_4444 = 26,
  PIXEL_FORMAT_RGBA_4444 = 27,
  PIXEL_FORMAT_BGRA_4444 = 28,
  PIXEL_FORMAT_RGB_555 = 29,
  PIXEL_FORMAT_BGR_555 = 30,
  PIXEL_FORMAT_RGB_565 = 31,
  PIXEL_FORMAT_BGR_565 = 32,
  PIXEL_FORMAT_ARGB_1555 = 33,
  PIXEL_FORMAT_ABGR_1555 = 34,
  PIXEL_FORMAT_RGBA_1555 = 35,
  PIXEL_FORMAT_BGRA_1555 = 36,
  PIXEL_FORMAT_ARGB_8565 = 37,
  PIXEL_FORMAT_ABGR_8565 = 38,
  PIXEL_FORMAT_RGBA_8565 = 39,
  PIXEL_FORMAT_BGRA_8565 = 40,
  PIXEL_FORMAT_RGB_BAYER_8BPP = 50,
  PIXEL_FORMAT_RGB_BAYER_10BPP = 51,
  PIXEL_FORMAT_RGB_BAYER_12BPP = 52,
  PIXEL_FORMAT_RGB_BAYER_14BPP = 53,
  PIXEL_FORMAT_RGB_BAYER_16BPP = 54,
  PIXEL_FORMAT_BGR_888_PLANAR = 70,
  PIXEL_FORMAT_HSV_888_PACKAGE = 71,
  PIXEL_FORMAT_HSV_888_PLANAR = 72,
  PIXEL_FORMAT_LAB_888_PACKAGE = 73,
  PIXEL_FORMAT_LAB_888_PLANAR = 74,
  PIXEL_FORMAT_S8C1 = 75,
  PIXEL_FORMAT_S8C2_PACKAGE = 76,
  PIXEL_FORMAT_S8C2_PLANAR = 77,
  PIXEL_FORMAT_S16C1 = 78,
  PIXEL_FORMAT_U8C1 = 79,
  PIXEL_FORMAT_U16C1 = 80,
  PIXEL_FORMAT_S32C1 = 81,
  PIXEL_FORMAT_U32C1 = 82,
  PIXEL_FORMAT_U64C1 = 83,
  PIXEL_FORMAT_S64C1 = 84,
  PIXEL_FORMAT_YUV_SEMIPLANAR_440 = 1000,
  PIXEL_FORMAT_YVU_SEMIPLANAR_440 = 1001,
  PIXEL_FORMAT_FLOAT32 = 1002,
  PIXEL_FORMAT_BUTT = 1003,
  PIXEL_FORMAT_UNKNOWN = 10000
} acldvppPixelFormat;

/* Video stream formats. */
typedef enum acldvppStreamFormat {
  H265_MAIN_LEVEL = 0,
  H264_BASELINE_LEVEL = 1,
  H264_MAIN_LEVEL = 2,
  H264_HIGH_LEVEL = 3
} acldvppStreamFormat;

/* What a channel does (acldvppSetChannelDescMode: an OR of these). */
typedef enum acldvppChannelMode {
  DVPP_CHNMODE_VPC = 1,
  DVPP_CHNMODE_JPEGD = 2,
  DVPP_CHNMODE_JPEGE = 4
} acldvppChannelMode;

/* --- memory: works on ge --------------------------------------------------------------- */

/* Allocates media memory (size > 0; ge rounds up to 32 bytes plus 32, as GE). After aclInit. */

ACL_FUNC_VISIBILITY aclError acldvppMalloc(void **devPtr, size_t size);
/* Frees memory of acldvppMalloc (other memory, or freed already: ACL_ERROR_INVALID_PARAM). */
ACL_FUNC_VISIBILITY aclError acldvppFree(void *devPtr);

/* --- descriptions: hold what is set (getters of a null description: 0 / null) ------- */

ACL_FUNC_VISIBILITY acldvppChannelDesc * acldvppCreateChannelDesc(void);
ACL_FUNC_VISIBILITY aclError acldvppDestroyChannelDesc(acldvppChannelDesc *channelDesc);
ACL_FUNC_VISIBILITY uint64_t acldvppGetChannelDescChannelId(const acldvppChannelDesc *channelDesc);
ACL_FUNC_VISIBILITY aclError acldvppSetChannelDescMode(acldvppChannelDesc *channelDesc, uint32_t mode);
ACL_FUNC_VISIBILITY acldvppPicDesc * acldvppCreatePicDesc(void);
ACL_FUNC_VISIBILITY aclError acldvppDestroyPicDesc(acldvppPicDesc *picDesc);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescData(acldvppPicDesc *picDesc, void *dataDev);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescSize(acldvppPicDesc *picDesc, uint32_t size);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescFormat(acldvppPicDesc *picDesc, acldvppPixelFormat format);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescWidth(acldvppPicDesc *picDesc, uint32_t width);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescHeight(acldvppPicDesc *picDesc, uint32_t height);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescWidthStride(acldvppPicDesc *picDesc, uint32_t widthStride);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescHeightStride(acldvppPicDesc *picDesc, uint32_t heightStride);
ACL_FUNC_VISIBILITY aclError acldvppSetPicDescRetCode(acldvppPicDesc *picDesc, uint32_t retCode);
ACL_FUNC_VISIBILITY void *acldvppGetPicDescData(const acldvppPicDesc *picDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescSize(const acldvppPicDesc *picDesc);
ACL_FUNC_VISIBILITY acldvppPixelFormat acldvppGetPicDescFormat(const acldvppPicDesc *picDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescWidth(const acldvppPicDesc *picDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescHeight(const acldvppPicDesc *picDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescWidthStride(const acldvppPicDesc *picDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescHeightStride(const acldvppPicDesc *picDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetPicDescRetCode(const acldvppPicDesc *picDesc);
/* A region [left, right] x [top, bottom] (inclusive). */
ACL_FUNC_VISIBILITY acldvppRoiConfig * acldvppCreateRoiConfig(uint32_t left, uint32_t right, uint32_t top, uint32_t bottom);
ACL_FUNC_VISIBILITY aclError acldvppDestroyRoiConfig(acldvppRoiConfig *roiConfig);
ACL_FUNC_VISIBILITY aclError acldvppSetRoiConfigLeft(acldvppRoiConfig *config, uint32_t left);
ACL_FUNC_VISIBILITY aclError acldvppSetRoiConfigRight(acldvppRoiConfig *config, uint32_t right);
ACL_FUNC_VISIBILITY aclError acldvppSetRoiConfigTop(acldvppRoiConfig *config, uint32_t top);
ACL_FUNC_VISIBILITY aclError acldvppSetRoiConfigBottom(acldvppRoiConfig *config, uint32_t bottom);
ACL_FUNC_VISIBILITY aclError acldvppSetRoiConfig(acldvppRoiConfig *config, uint32_t left, uint32_t right, uint32_t top, uint32_t bottom);
ACL_FUNC_VISIBILITY acldvppResizeConfig * acldvppCreateResizeConfig(void);
ACL_FUNC_VISIBILITY aclError acldvppDestroyResizeConfig(acldvppResizeConfig *resizeConfig);
ACL_FUNC_VISIBILITY aclError acldvppSetResizeConfigInterpolation(acldvppResizeConfig *resizeConfig, uint32_t interpolation);
ACL_FUNC_VISIBILITY uint32_t acldvppGetResizeConfigInterpolation(const acldvppResizeConfig *resizeConfig);
/* JPEG encoding quality: level 0..100. */
ACL_FUNC_VISIBILITY acldvppJpegeConfig * acldvppCreateJpegeConfig(void);
ACL_FUNC_VISIBILITY aclError acldvppDestroyJpegeConfig(acldvppJpegeConfig *jpegeConfig);
ACL_FUNC_VISIBILITY aclError acldvppSetJpegeConfigLevel(acldvppJpegeConfig *jpegeConfig, uint32_t level);
ACL_FUNC_VISIBILITY uint32_t acldvppGetJpegeConfigLevel(const acldvppJpegeConfig *jpegeConfig);
ACL_FUNC_VISIBILITY acldvppStreamDesc * acldvppCreateStreamDesc(void);
ACL_FUNC_VISIBILITY aclError acldvppDestroyStreamDesc(acldvppStreamDesc *streamDesc);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescData(acldvppStreamDesc *streamDesc, void *dataDev);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescSize(acldvppStreamDesc *streamDesc, uint32_t size);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescFormat(acldvppStreamDesc *streamDesc, acldvppStreamFormat format);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescTimestamp(acldvppStreamDesc *streamDesc, uint64_t timestamp);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescRetCode(acldvppStreamDesc *streamDesc, uint32_t retCode);
ACL_FUNC_VISIBILITY aclError acldvppSetStreamDescEos(acldvppStreamDesc *streamDesc, uint8_t eos);
ACL_FUNC_VISIBILITY void *acldvppGetStreamDescData(const acldvppStreamDesc *streamDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetStreamDescSize(const acldvppStreamDesc *streamDesc);
ACL_FUNC_VISIBILITY acldvppStreamFormat acldvppGetStreamDescFormat(const acldvppStreamDesc *streamDesc);
ACL_FUNC_VISIBILITY uint64_t acldvppGetStreamDescTimestamp(const acldvppStreamDesc *streamDesc);
ACL_FUNC_VISIBILITY uint32_t acldvppGetStreamDescRetCode(const acldvppStreamDesc *streamDesc);
ACL_FUNC_VISIBILITY uint8_t acldvppGetStreamDescEos(const acldvppStreamDesc *streamDesc);
ACL_FUNC_VISIBILITY aclvdecChannelDesc * aclvdecCreateChannelDesc(void);
ACL_FUNC_VISIBILITY aclError aclvdecDestroyChannelDesc(aclvdecChannelDesc *channelDesc);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescChannelId(aclvdecChannelDesc *channelDesc, uint32_t channelId);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescThreadId(aclvdecChannelDesc *channelDesc, uint64_t threadId);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescCallback(aclvdecChannelDesc *channelDesc, aclvdecCallback callback);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescEnType(aclvdecChannelDesc *channelDesc, acldvppStreamFormat enType);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescOutPicFormat(aclvdecChannelDesc *channelDesc, acldvppPixelFormat outPicFormat);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescOutPicWidth(aclvdecChannelDesc *channelDesc, uint32_t outPicWidth);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescOutPicHeight(aclvdecChannelDesc *channelDesc, uint32_t outPicHeight);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescRefFrameNum(aclvdecChannelDesc *channelDesc, uint32_t refFrameNum);
ACL_FUNC_VISIBILITY uint32_t aclvdecGetChannelDescChannelId(const aclvdecChannelDesc *channelDesc);
ACL_FUNC_VISIBILITY uint64_t aclvdecGetChannelDescThreadId(const aclvdecChannelDesc *channelDesc);
ACL_FUNC_VISIBILITY aclvdecCallback aclvdecGetChannelDescCallback(const aclvdecChannelDesc *channelDesc);
ACL_FUNC_VISIBILITY acldvppStreamFormat aclvdecGetChannelDescEnType(const aclvdecChannelDesc *channelDesc);
ACL_FUNC_VISIBILITY acldvppPixelFormat aclvdecGetChannelDescOutPicFormat(const aclvdecChannelDesc *channelDesc);
ACL_FUNC_VISIBILITY uint32_t aclvdecGetChannelDescOutPicWidth(const aclvdecChannelDesc *channelDesc);
ACL_FUNC_VISIBILITY uint32_t aclvdecGetChannelDescOutPicHeight(const aclvdecChannelDesc *channelDesc);
ACL_FUNC_VISIBILITY uint32_t aclvdecGetChannelDescRefFrameNum(const aclvdecChannelDesc *channelDesc);
ACL_FUNC_VISIBILITY aclError aclvdecSetChannelDescOutMode(aclvdecChannelDesc *channelDesc, uint32_t outMode);
ACL_FUNC_VISIBILITY aclvdecFrameConfig * aclvdecCreateFrameConfig(void);
ACL_FUNC_VISIBILITY aclError aclvdecDestroyFrameConfig(aclvdecFrameConfig *vdecFrameConfig);

/* --- the media engine: ACL_ERROR_FEATURE_UNSUPPORTED on ge ------------------------------
 * (after the arguments are checked as GE checks them: a null description or pointer is
 * ACL_ERROR_INVALID_PARAM). */

ACL_FUNC_VISIBILITY aclError acldvppCreateChannel(acldvppChannelDesc *channelDesc);
ACL_FUNC_VISIBILITY aclError acldvppDestroyChannel(acldvppChannelDesc *channelDesc);
ACL_FUNC_VISIBILITY aclError acldvppVpcResizeAsync(acldvppChannelDesc *channelDesc, acldvppPicDesc *inputDesc, acldvppPicDesc *outputDesc, acldvppResizeConfig *resizeConfig, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcCropAsync(acldvppChannelDesc *channelDesc, acldvppPicDesc *inputDesc, acldvppPicDesc *outputDesc, acldvppRoiConfig *cropArea, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcCropAndPasteAsync(acldvppChannelDesc *channelDesc, acldvppPicDesc *inputDesc, acldvppPicDesc *outputDesc, acldvppRoiConfig *cropArea, acldvppRoiConfig *pasteArea, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppVpcConvertColorAsync(acldvppChannelDesc *channelDesc, acldvppPicDesc *inputDesc, acldvppPicDesc *outputDesc, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppJpegDecodeAsync(acldvppChannelDesc *channelDesc, const void *data, uint32_t size, acldvppPicDesc *outputDesc, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppJpegEncodeAsync(acldvppChannelDesc *channelDesc, acldvppPicDesc *inputDesc, const void *data, uint32_t *size, acldvppJpegeConfig *config, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError acldvppJpegGetImageInfo(const void *data, uint32_t size, uint32_t *width, uint32_t *height, int32_t *components);
ACL_FUNC_VISIBILITY aclError acldvppJpegPredictEncSize(const acldvppPicDesc *inputDesc, const acldvppJpegeConfig *config, uint32_t *size);
ACL_FUNC_VISIBILITY aclError acldvppJpegPredictDecSize(const void *data, uint32_t dataSize, acldvppPixelFormat outputPixelFormat, uint32_t *decSize);
ACL_FUNC_VISIBILITY aclError aclvdecCreateChannel(aclvdecChannelDesc *channelDesc);
ACL_FUNC_VISIBILITY aclError aclvdecDestroyChannel(aclvdecChannelDesc *channelDesc);
ACL_FUNC_VISIBILITY aclError aclvdecSendFrame(aclvdecChannelDesc *channelDesc, acldvppStreamDesc *input, acldvppPicDesc *output, aclvdecFrameConfig *config, void *userData);

#ifdef __cplusplus
}
#endif

#endif /* GE_ACL_OPS_ACL_DVPP_H_ */
