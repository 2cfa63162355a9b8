// GE's media processing (acl/ops/acl_dvpp.h) on a CPU: the memory calls allocate, the
// descriptions hold what is set, and every call that needs GE's media engine returns
// ACL_ERROR_FEATURE_UNSUPPORTED (docs/acl.md, "Media (DVPP)").
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

#include "acl/acl_internal.hpp"
#include "acl/ops/acl_dvpp.h"

struct acldvppPicDesc {
  void* data = nullptr;
  uint32_t size = 0;
  acldvppPixelFormat format = PIXEL_FORMAT_YUV_400;
  uint32_t width = 0, height = 0, width_stride = 0, height_stride = 0, ret_code = 0;
};
struct acldvppRoiConfig {
  uint32_t left = 0, right = 0, top = 0, bottom = 0;
};
struct acldvppResizeConfig {
  uint32_t interpolation = 0;
};
struct acldvppJpegeConfig {
  uint32_t level = 0;
};
struct acldvppChannelDesc {
  uint32_t mode = DVPP_CHNMODE_VPC | DVPP_CHNMODE_JPEGD | DVPP_CHNMODE_JPEGE;
};
struct acldvppStreamDesc {
  void* data = nullptr;
  uint32_t size = 0;
  acldvppStreamFormat format = H265_MAIN_LEVEL;
  uint64_t timestamp = 0;
  uint32_t ret_code = 0;
  uint8_t eos = 0;
};
struct aclvdecChannelDesc {
  uint32_t channel_id = 0;
  uint64_t thread_id = 0;
  aclvdecCallback callback = nullptr;
  acldvppStreamFormat en_type = H265_MAIN_LEVEL;
  acldvppPixelFormat out_format = PIXEL_FORMAT_YUV_SEMIPLANAR_420;
  uint32_t out_width = 0, out_height = 0, ref_frame_num = 0, out_mode = 0;
};
struct aclvdecFrameConfig {};

namespace {

struct MediaMemory {
  std::mutex mutex;
  std::set<void*> blocks;
};

MediaMemory& media_memory() {
  static MediaMemory m;
  return m;
}

// Sets a field of a description, or ACL_ERROR_INVALID_PARAM for a null one.
template <class D, class F>
aclError set_field(const char* api, D* desc, F&& assign) {
  return acl::guard(api, [&] {
    acl::require(desc != nullptr, "the description is null");
    assign(*desc);
    return ACL_SUCCESS;
  });
}

template <class D>
aclError destroy(const char* api, D* desc) {
  return acl::guard(api, [&] {
    acl::require(desc != nullptr, "the description is null");
    delete desc;
    return ACL_SUCCESS;
  });
}

template <class D>
D* create(const char* api) {
  return acl::guard_value<D*>(api, nullptr, [] { return new D; });
}

// A call of the media engine: its pointer arguments are checked, then it is refused.
aclError unsupported(const char* api, bool args_ok) {
  return acl::guard(api, [&] {
    acl::require(args_ok, "a description or pointer argument is null");
    throw acl::CallError(ACL_ERROR_FEATURE_UNSUPPORTED,
                         std::string("[acl] ") + api +
                             ": ge runs on the CPU and has no media engine (DVPP: JPEG, video, resize, crop)");
    return ACL_SUCCESS;
  });
}

}  // namespace

extern "C" {

aclError acldvppMalloc(void** devPtr, size_t size) {
  return acl::guard("acldvppMalloc", [&] {
    acl::require_initialized("acldvppMalloc");
    acl::require(devPtr != nullptr, "the pointer to store the address in is null");
    acl::require(size > 0, "size is 0");
    acl::require(size <= SIZE_MAX - 95, "size " + std::to_string(size) + " is too large", ACL_ERROR_BAD_ALLOC);
    const size_t bytes = (size + 31) / 32 * 32 + 32;  // GE's rounding: up to 32, plus 32
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    acl::require(p != nullptr, "out of memory for " + std::to_string(bytes) + " bytes", ACL_ERROR_BAD_ALLOC);
    MediaMemory& m = media_memory();
    std::lock_guard lock(m.mutex);
    m.blocks.insert(p);
    *devPtr = p;
    return ACL_SUCCESS;
  });
}

aclError acldvppFree(void* devPtr) {
  return acl::guard("acldvppFree", [&] {
    acl::require_initialized("acldvppFree");
    acl::require(devPtr != nullptr, "the address is null");
    MediaMemory& m = media_memory();
    std::lock_guard lock(m.mutex);
    acl::require(m.blocks.erase(devPtr) == 1,
                 "the address was not allocated by acldvppMalloc (or was freed already); aclrtMalloc's memory is "
                 "freed by aclrtFree");
    std::free(devPtr);
    return ACL_SUCCESS;
  });
}

acldvppChannelDesc* acldvppCreateChannelDesc(void) { return create<acldvppChannelDesc>("acldvppCreateChannelDesc"); }
aclError acldvppDestroyChannelDesc(acldvppChannelDesc* channelDesc) {
  return destroy("acldvppDestroyChannelDesc", channelDesc);
}
uint64_t acldvppGetChannelDescChannelId(const acldvppChannelDesc*) { return 0; }  // no channel is ever created
aclError acldvppSetChannelDescMode(acldvppChannelDesc* channelDesc, uint32_t mode) {
  return set_field("acldvppSetChannelDescMode", channelDesc, [&](acldvppChannelDesc& d) {
    acl::require(mode != 0 && (mode & ~7u) == 0, "mode " + std::to_string(mode) + " is not an OR of acldvppChannelMode");
    d.mode = mode;
  });
}

acldvppPicDesc* acldvppCreatePicDesc(void) { return create<acldvppPicDesc>("acldvppCreatePicDesc"); }
aclError acldvppDestroyPicDesc(acldvppPicDesc* picDesc) { return destroy("acldvppDestroyPicDesc", picDesc); }
aclError acldvppSetPicDescData(acldvppPicDesc* picDesc, void* dataDev) {
  return set_field("acldvppSetPicDescData", picDesc, [&](acldvppPicDesc& d) { d.data = dataDev; });
}
aclError acldvppSetPicDescSize(acldvppPicDesc* picDesc, uint32_t size) {
  return set_field("acldvppSetPicDescSize", picDesc, [&](acldvppPicDesc& d) { d.size = size; });
}
aclError acldvppSetPicDescFormat(acldvppPicDesc* picDesc, acldvppPixelFormat format) {
  return set_field("acldvppSetPicDescFormat", picDesc, [&](acldvppPicDesc& d) {
    const int f = acl::raw(format);
    acl::require(f >= 0 && (f <= PIXEL_FORMAT_BUTT || f == PIXEL_FORMAT_UNKNOWN),
                 "format " + std::to_string(f) + " is not an acldvppPixelFormat");
    d.format = format;
  });
}
aclError acldvppSetPicDescWidth(acldvppPicDesc* picDesc, uint32_t width) {
  return set_field("acldvppSetPicDescWidth", picDesc, [&](acldvppPicDesc& d) { d.width = width; });
}
aclError acldvppSetPicDescHeight(acldvppPicDesc* picDesc, uint32_t height) {
  return set_field("acldvppSetPicDescHeight", picDesc, [&](acldvppPicDesc& d) { d.height = height; });
}
aclError acldvppSetPicDescWidthStride(acldvppPicDesc* picDesc, uint32_t widthStride) {
  return set_field("acldvppSetPicDescWidthStride", picDesc, [&](acldvppPicDesc& d) { d.width_stride = widthStride; });
}
aclError acldvppSetPicDescHeightStride(acldvppPicDesc* picDesc, uint32_t heightStride) {
  return set_field("acldvppSetPicDescHeightStride", picDesc, [&](acldvppPicDesc& d) { d.height_stride = heightStride; });
}
aclError acldvppSetPicDescRetCode(acldvppPicDesc* picDesc, uint32_t retCode) {
  return set_field("acldvppSetPicDescRetCode", picDesc, [&](acldvppPicDesc& d) { d.ret_code = retCode; });
}
void* acldvppGetPicDescData(const acldvppPicDesc* p) { return p ? p->data : nullptr; }
uint32_t acldvppGetPicDescSize(const acldvppPicDesc* p) { return p ? p->size : 0; }
acldvppPixelFormat acldvppGetPicDescFormat(const acldvppPicDesc* p) { return p ? p->format : PIXEL_FORMAT_YUV_400; }
uint32_t acldvppGetPicDescWidth(const acldvppPicDesc* p) { return p ? p->width : 0; }
uint32_t acldvppGetPicDescHeight(const acldvppPicDesc* p) { return p ? p->height : 0; }
uint32_t acldvppGetPicDescWidthStride(const acldvppPicDesc* p) { return p ? p->width_stride : 0; }
uint32_t acldvppGetPicDescHeightStride(const acldvppPicDesc* p) { return p ? p->height_stride : 0; }
uint32_t acldvppGetPicDescRetCode(const acldvppPicDesc* p) { return p ? p->ret_code : 0; }

acldvppRoiConfig* acldvppCreateRoiConfig(uint32_t left, uint32_t right, uint32_t top, uint32_t bottom) {
  return acl::guard_value<acldvppRoiConfig*>("acldvppCreateRoiConfig", nullptr,
                                             [&] { return new acldvppRoiConfig{left, right, top, bottom}; });
}
aclError acldvppDestroyRoiConfig(acldvppRoiConfig* roiConfig) { return destroy("acldvppDestroyRoiConfig", roiConfig); }
aclError acldvppSetRoiConfigLeft(acldvppRoiConfig* config, uint32_t left) {
  return set_field("acldvppSetRoiConfigLeft", config, [&](acldvppRoiConfig& c) { c.left = left; });
}
aclError acldvppSetRoiConfigRight(acldvppRoiConfig* config, uint32_t right) {
  return set_field("acldvppSetRoiConfigRight", config, [&](acldvppRoiConfig& c) { c.right = right; });
}
aclError acldvppSetRoiConfigTop(acldvppRoiConfig* config, uint32_t top) {
  return set_field("acldvppSetRoiConfigTop", config, [&](acldvppRoiConfig& c) { c.top = top; });
}
aclError acldvppSetRoiConfigBottom(acldvppRoiConfig* config, uint32_t bottom) {
  return set_field("acldvppSetRoiConfigBottom", config, [&](acldvppRoiConfig& c) { c.bottom = bottom; });
}
aclError acldvppSetRoiConfig(acldvppRoiConfig* config, uint32_t left, uint32_t right, uint32_t top, uint32_t bottom) {
  return set_field("acldvppSetRoiConfig", config,
                   [&](acldvppRoiConfig& c) { c = acldvppRoiConfig{left, right, top, bottom}; });
}

acldvppResizeConfig* acldvppCreateResizeConfig(void) { return create<acldvppResizeConfig>("acldvppCreateResizeConfig"); }
aclError acldvppDestroyResizeConfig(acldvppResizeConfig* resizeConfig) {
  return destroy("acldvppDestroyResizeConfig", resizeConfig);
}
aclError acldvppSetResizeConfigInterpolation(acldvppResizeConfig* resizeConfig, uint32_t interpolation) {
  return set_field("acldvppSetResizeConfigInterpolation", resizeConfig,
                   [&](acldvppResizeConfig& c) { c.interpolation = interpolation; });
}
uint32_t acldvppGetResizeConfigInterpolation(const acldvppResizeConfig* c) { return c ? c->interpolation : 0; }

acldvppJpegeConfig* acldvppCreateJpegeConfig(void) { return create<acldvppJpegeConfig>("acldvppCreateJpegeConfig"); }
aclError acldvppDestroyJpegeConfig(acldvppJpegeConfig* jpegeConfig) {
  return destroy("acldvppDestroyJpegeConfig", jpegeConfig);
}
aclError acldvppSetJpegeConfigLevel(acldvppJpegeConfig* jpegeConfig, uint32_t level) {
  return set_field("acldvppSetJpegeConfigLevel", jpegeConfig, [&](acldvppJpegeConfig& c) {
    acl::require(level <= 100, "level " + std::to_string(level) + "; expected 0..100");
    c.level = level;
  });
}
uint32_t acldvppGetJpegeConfigLevel(const acldvppJpegeConfig* c) { return c ? c->level : 0; }

acldvppStreamDesc* acldvppCreateStreamDesc(void) { return create<acldvppStreamDesc>("acldvppCreateStreamDesc"); }
aclError acldvppDestroyStreamDesc(acldvppStreamDesc* streamDesc) {
  return destroy("acldvppDestroyStreamDesc", streamDesc);
}
aclError acldvppSetStreamDescData(acldvppStreamDesc* streamDesc, void* dataDev) {
  return set_field("acldvppSetStreamDescData", streamDesc, [&](acldvppStreamDesc& d) { d.data = dataDev; });
}
aclError acldvppSetStreamDescSize(acldvppStreamDesc* streamDesc, uint32_t size) {
  return set_field("acldvppSetStreamDescSize", streamDesc, [&](acldvppStreamDesc& d) { d.size = size; });
}
aclError acldvppSetStreamDescFormat(acldvppStreamDesc* streamDesc, acldvppStreamFormat format) {
  return set_field("acldvppSetStreamDescFormat", streamDesc, [&](acldvppStreamDesc& d) {
    const int f = acl::raw(format);
    acl::require(f >= H265_MAIN_LEVEL && f <= H264_HIGH_LEVEL, "format " + std::to_string(f) + " is not an acldvppStreamFormat");
    d.format = format;
  });
}
aclError acldvppSetStreamDescTimestamp(acldvppStreamDesc* streamDesc, uint64_t timestamp) {
  return set_field("acldvppSetStreamDescTimestamp", streamDesc, [&](acldvppStreamDesc& d) { d.timestamp = timestamp; });
}
aclError acldvppSetStreamDescRetCode(acldvppStreamDesc* streamDesc, uint32_t retCode) {
  return set_field("acldvppSetStreamDescRetCode", streamDesc, [&](acldvppStreamDesc& d) { d.ret_code = retCode; });
}
aclError acldvppSetStreamDescEos(acldvppStreamDesc* streamDesc, uint8_t eos) {
  return set_field("acldvppSetStreamDescEos", streamDesc, [&](acldvppStreamDesc& d) { d.eos = eos; });
}
void* acldvppGetStreamDescData(const acldvppStreamDesc* d) { return d ? d->data : nullptr; }
uint32_t acldvppGetStreamDescSize(const acldvppStreamDesc* d) { return d ? d->size : 0; }
acldvppStreamFormat acldvppGetStreamDescFormat(const acldvppStreamDesc* d) { return d ? d->format : H265_MAIN_LEVEL; }
uint64_t acldvppGetStreamDescTimestamp(const acldvppStreamDesc* d) { return d ? d->timestamp : 0; }
uint32_t acldvppGetStreamDescRetCode(const acldvppStreamDesc* d) { return d ? d->ret_code : 0; }
uint8_t acldvppGetStreamDescEos(const acldvppStreamDesc* d) { return d ? d->eos : 0; }

aclvdecChannelDesc* aclvdecCreateChannelDesc(void) { return create<aclvdecChannelDesc>("aclvdecCreateChannelDesc"); }
aclError aclvdecDestroyChannelDesc(aclvdecChannelDesc* channelDesc) {
  return destroy("aclvdecDestroyChannelDesc", channelDesc);
}
aclError aclvdecSetChannelDescChannelId(aclvdecChannelDesc* channelDesc, uint32_t channelId) {
  return set_field("aclvdecSetChannelDescChannelId", channelDesc, [&](aclvdecChannelDesc& d) { d.channel_id = channelId; });
}
aclError aclvdecSetChannelDescThreadId(aclvdecChannelDesc* channelDesc, uint64_t threadId) {
  return set_field("aclvdecSetChannelDescThreadId", channelDesc, [&](aclvdecChannelDesc& d) { d.thread_id = threadId; });
}
aclError aclvdecSetChannelDescCallback(aclvdecChannelDesc* channelDesc, aclvdecCallback callback) {
  return set_field("aclvdecSetChannelDescCallback", channelDesc, [&](aclvdecChannelDesc& d) { d.callback = callback; });
}
aclError aclvdecSetChannelDescEnType(aclvdecChannelDesc* channelDesc, acldvppStreamFormat enType) {
  return set_field("aclvdecSetChannelDescEnType", channelDesc, [&](aclvdecChannelDesc& d) {
    const int f = acl::raw(enType);
    acl::require(f >= H265_MAIN_LEVEL && f <= H264_HIGH_LEVEL, "type " + std::to_string(f) + " is not an acldvppStreamFormat");
    d.en_type = enType;
  });
}
aclError aclvdecSetChannelDescOutPicFormat(aclvdecChannelDesc* channelDesc, acldvppPixelFormat outPicFormat) {
  return set_field("aclvdecSetChannelDescOutPicFormat", channelDesc,
                   [&](aclvdecChannelDesc& d) { d.out_format = outPicFormat; });
}
aclError aclvdecSetChannelDescOutPicWidth(aclvdecChannelDesc* channelDesc, uint32_t outPicWidth) {
  return set_field("aclvdecSetChannelDescOutPicWidth", channelDesc, [&](aclvdecChannelDesc& d) { d.out_width = outPicWidth; });
}
aclError aclvdecSetChannelDescOutPicHeight(aclvdecChannelDesc* channelDesc, uint32_t outPicHeight) {
  return set_field("aclvdecSetChannelDescOutPicHeight", channelDesc,
                   [&](aclvdecChannelDesc& d) { d.out_height = outPicHeight; });
}
aclError aclvdecSetChannelDescRefFrameNum(aclvdecChannelDesc* channelDesc, uint32_t refFrameNum) {
  return set_field("aclvdecSetChannelDescRefFrameNum", channelDesc,
                   [&](aclvdecChannelDesc& d) { d.ref_frame_num = refFrameNum; });
}
aclError aclvdecSetChannelDescOutMode(aclvdecChannelDesc* channelDesc, uint32_t outMode) {
  return set_field("aclvdecSetChannelDescOutMode", channelDesc, [&](aclvdecChannelDesc& d) { d.out_mode = outMode; });
}
uint32_t aclvdecGetChannelDescChannelId(const aclvdecChannelDesc* d) { return d ? d->channel_id : 0; }
uint64_t aclvdecGetChannelDescThreadId(const aclvdecChannelDesc* d) { return d ? d->thread_id : 0; }
aclvdecCallback aclvdecGetChannelDescCallback(const aclvdecChannelDesc* d) { return d ? d->callback : nullptr; }
acldvppStreamFormat aclvdecGetChannelDescEnType(const aclvdecChannelDesc* d) { return d ? d->en_type : H265_MAIN_LEVEL; }
acldvppPixelFormat aclvdecGetChannelDescOutPicFormat(const aclvdecChannelDesc* d) {
  return d ? d->out_format : PIXEL_FORMAT_YUV_SEMIPLANAR_420;
}
uint32_t aclvdecGetChannelDescOutPicWidth(const aclvdecChannelDesc* d) { return d ? d->out_width : 0; }
uint32_t aclvdecGetChannelDescOutPicHeight(const aclvdecChannelDesc* d) { return d ? d->out_height : 0; }
uint32_t aclvdecGetChannelDescRefFrameNum(const aclvdecChannelDesc* d) { return d ? d->ref_frame_num : 0; }
aclvdecFrameConfig* aclvdecCreateFrameConfig(void) { return create<aclvdecFrameConfig>("aclvdecCreateFrameConfig"); }
aclError aclvdecDestroyFrameConfig(aclvdecFrameConfig* vdecFrameConfig) {
  return destroy("aclvdecDestroyFrameConfig", vdecFrameConfig);
}

aclError acldvppCreateChannel(acldvppChannelDesc* channelDesc) {
  return unsupported("acldvppCreateChannel", channelDesc != nullptr);
}
aclError acldvppDestroyChannel(acldvppChannelDesc* channelDesc) {
  return unsupported("acldvppDestroyChannel", channelDesc != nullptr);
}
aclError acldvppVpcResizeAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc, acldvppPicDesc* outputDesc,
                               acldvppResizeConfig* resizeConfig, aclrtStream) {
  return unsupported("acldvppVpcResizeAsync", channelDesc && inputDesc && outputDesc && resizeConfig);
}
aclError acldvppVpcCropAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc, acldvppPicDesc* outputDesc,
                             acldvppRoiConfig* cropArea, aclrtStream) {
  return unsupported("acldvppVpcCropAsync", channelDesc && inputDesc && outputDesc && cropArea);
}
aclError acldvppVpcCropAndPasteAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc,
                                     acldvppPicDesc* outputDesc, acldvppRoiConfig* cropArea,
                                     acldvppRoiConfig* pasteArea, aclrtStream) {
  return unsupported("acldvppVpcCropAndPasteAsync", channelDesc && inputDesc && outputDesc && cropArea && pasteArea);
}
aclError acldvppVpcConvertColorAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc,
                                     acldvppPicDesc* outputDesc, aclrtStream) {
  return unsupported("acldvppVpcConvertColorAsync", channelDesc && inputDesc && outputDesc);
}
aclError acldvppJpegDecodeAsync(acldvppChannelDesc* channelDesc, const void* data, uint32_t size,
                                acldvppPicDesc* outputDesc, aclrtStream) {
  return unsupported("acldvppJpegDecodeAsync", channelDesc && data && size > 0 && outputDesc);
}
aclError acldvppJpegEncodeAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc, const void* data,
                                uint32_t* size, acldvppJpegeConfig* config, aclrtStream) {
  return unsupported("acldvppJpegEncodeAsync", channelDesc && inputDesc && data && size && config);
}
aclError acldvppJpegGetImageInfo(const void* data, uint32_t size, uint32_t* width, uint32_t* height,
                                 int32_t* components) {
  return unsupported("acldvppJpegGetImageInfo", data && size > 0 && width && height && components);
}
aclError acldvppJpegPredictEncSize(const acldvppPicDesc* inputDesc, const acldvppJpegeConfig* config, uint32_t* size) {
  return unsupported("acldvppJpegPredictEncSize", inputDesc && config && size);
}
aclError acldvppJpegPredictDecSize(const void* data, uint32_t dataSize, acldvppPixelFormat, uint32_t* decSize) {
  return unsupported("acldvppJpegPredictDecSize", data && dataSize > 0 && decSize);
}
aclError aclvdecCreateChannel(aclvdecChannelDesc* channelDesc) {
  return unsupported("aclvdecCreateChannel", channelDesc != nullptr);
}
aclError aclvdecDestroyChannel(aclvdecChannelDesc* channelDesc) {
  return unsupported("aclvdecDestroyChannel", channelDesc != nullptr);
}
aclError aclvdecSendFrame(aclvdecChannelDesc* channelDesc, acldvppStreamDesc* input, acldvppPicDesc*,
                          aclvdecFrameConfig*, void*) {
  return unsupported("aclvdecSendFrame", channelDesc && input);
}

}  // extern "C"
