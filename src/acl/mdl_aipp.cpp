// aclmdl*AIPP*: the parameters of dynamic AIPP (image preprocessing by the NPU before a
// model input: color space conversion, crop, resize, padding, mean/min/variance per
// channel). The parameter set is kept and each setting checked as it is set; giving it to
// a model (aclmdlSetInputAIPP, aclmdlSetAIPPByInputIndex) is refused, since ge compiles no
// AIPP into a model, so no input takes them (docs/acl.md "Models").
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "acl/mdl.hpp"

// One set of dynamic AIPP parameters: the shared settings, then one entry per image.
struct aclmdlAIPP {
  struct Image {
    std::int8_t scf = 0, crop = 0, padding = 0;
    std::array<std::int32_t, 4> scf_sizes{};   // input w, h, output w, h
    std::array<std::int32_t, 4> crop_box{};    // start w, h, size w, h
    std::array<std::int32_t, 4> paddings{};    // top, bottom, left, right
    std::array<std::int16_t, 4> mean{};
    std::array<float, 4> min{}, var_reci{1, 1, 1, 1};
  };
  int input_format = 0;  // 0: not set
  std::int8_t csc = 0, rbuv_swap = 0, ax_swap = 0;
  std::array<std::int16_t, 9> csc_matrix{};
  std::array<std::uint8_t, 6> csc_bias{};  // output r0..r2, input r0..r2
  std::int32_t src_w = 0, src_h = 0;
  std::vector<Image> images;
};

namespace {

using acl::require;

aclmdlAIPP& params(aclmdlAIPP* p, const char* api) {
  require(p != nullptr, std::string(api) + ": the AIPP parameter set is null");
  return *p;
}

void require_switch(std::int8_t v, const char* api, const char* what) {
  require(v == 0 || v == 1, std::string(api) + ": " + what + " is " + std::to_string(v) + "; expected 0 (off) or 1 (on)");
}

aclmdlAIPP::Image& image(aclmdlAIPP& p, std::uint64_t batchIndex, const char* api) {
  require(batchIndex < p.images.size(), std::string(api) + ": batchIndex " + std::to_string(batchIndex) +
                                            "; the parameter set is for " + std::to_string(p.images.size()) +
                                            " images (aclmdlCreateAIPP)");
  return p.images[batchIndex];
}

void require_sizes(std::initializer_list<std::int32_t> sizes, const char* api) {
  for (const std::int32_t s : sizes) require(s >= 0, std::string(api) + ": a size or position is " + std::to_string(s));
}

// Giving the parameters to input `index` of model `modelId`: no ge model has a dynamic
// AIPP input, so after the checks of the arguments this names the input and refuses.
aclError give_to_model(const char* api, uint32_t modelId, const aclmdlDataset* dataset, size_t index,
                       const aclmdlAIPP* p) {
  const auto loaded = acl::find_model(modelId, api);
  require(dataset != nullptr && p != nullptr, std::string(api) + ": the dataset or the AIPP parameter set is null");
  const ge::CompiledModel& m = *loaded->model;
  const std::size_t inputs = m.inputs().size() + (acl::has_gear_input(m) ? 1 : 0);
  require(index < inputs, std::string(api) + ": input " + std::to_string(index) + " of " + std::to_string(inputs));
  require(false, std::string(api) + ": input " + std::to_string(index) + " of model " + std::to_string(modelId) +
                     " has no dynamic AIPP (aclmdlGetAippType: ACL_DATA_WITHOUT_AIPP); ge compiles no AIPP into "
                     "models: preprocess the images before the run");
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclmdlAIPP* aclmdlCreateAIPP(uint64_t batchSize) {
  return acl::guard_value<aclmdlAIPP*>("aclmdlCreateAIPP", nullptr, [&] {
    require(batchSize >= 1 && batchSize <= 4096, "aclmdlCreateAIPP: batchSize " + std::to_string(batchSize) +
                                                     "; expected 1 to 4096 images");
    auto* p = new aclmdlAIPP();
    p->images.resize(batchSize);
    return p;
  });
}

aclError aclmdlDestroyAIPP(const aclmdlAIPP* aippParmsSet) {
  return acl::guard("aclmdlDestroyAIPP", [&] {
    require(aippParmsSet != nullptr, "aclmdlDestroyAIPP: the AIPP parameter set is null");
    delete aippParmsSet;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPInputFormat(aclmdlAIPP* aippParmsSet, aclAippInputFormat inputFormat) {
  return acl::guard("aclmdlSetAIPPInputFormat", [&] {
    aclmdlAIPP& p = params(aippParmsSet, "aclmdlSetAIPPInputFormat");
    const int f = acl::raw(inputFormat);
    require(f >= ACL_YUV420SP_U8 && f <= ACL_RAW24, "aclmdlSetAIPPInputFormat: " + std::to_string(f) + " is no aclAippInputFormat");
    p.input_format = f;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPCscParams(aclmdlAIPP* aippParmsSet, int8_t cscSwitch, int16_t cscMatrixR0C0, int16_t cscMatrixR0C1,
                                int16_t cscMatrixR0C2, int16_t cscMatrixR1C0, int16_t cscMatrixR1C1,
                                int16_t cscMatrixR1C2, int16_t cscMatrixR2C0, int16_t cscMatrixR2C1,
                                int16_t cscMatrixR2C2, uint8_t cscOutputBiasR0, uint8_t cscOutputBiasR1,
                                uint8_t cscOutputBiasR2, uint8_t cscInputBiasR0, uint8_t cscInputBiasR1,
                                uint8_t cscInputBiasR2) {
  return acl::guard("aclmdlSetAIPPCscParams", [&] {
    aclmdlAIPP& p = params(aippParmsSet, "aclmdlSetAIPPCscParams");
    require_switch(cscSwitch, "aclmdlSetAIPPCscParams", "cscSwitch");
    p.csc = cscSwitch;
    p.csc_matrix = {cscMatrixR0C0, cscMatrixR0C1, cscMatrixR0C2, cscMatrixR1C0, cscMatrixR1C1,
                    cscMatrixR1C2, cscMatrixR2C0, cscMatrixR2C1, cscMatrixR2C2};
    p.csc_bias = {cscOutputBiasR0, cscOutputBiasR1, cscOutputBiasR2, cscInputBiasR0, cscInputBiasR1, cscInputBiasR2};
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPRbuvSwapSwitch(aclmdlAIPP* aippParmsSet, int8_t rbuvSwapSwitch) {
  return acl::guard("aclmdlSetAIPPRbuvSwapSwitch", [&] {
    aclmdlAIPP& p = params(aippParmsSet, "aclmdlSetAIPPRbuvSwapSwitch");
    require_switch(rbuvSwapSwitch, "aclmdlSetAIPPRbuvSwapSwitch", "rbuvSwapSwitch");
    p.rbuv_swap = rbuvSwapSwitch;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPAxSwapSwitch(aclmdlAIPP* aippParmsSet, int8_t axSwapSwitch) {
  return acl::guard("aclmdlSetAIPPAxSwapSwitch", [&] {
    aclmdlAIPP& p = params(aippParmsSet, "aclmdlSetAIPPAxSwapSwitch");
    require_switch(axSwapSwitch, "aclmdlSetAIPPAxSwapSwitch", "axSwapSwitch");
    p.ax_swap = axSwapSwitch;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPSrcImageSize(aclmdlAIPP* aippParmsSet, int32_t srcImageSizeW, int32_t srcImageSizeH) {
  return acl::guard("aclmdlSetAIPPSrcImageSize", [&] {
    aclmdlAIPP& p = params(aippParmsSet, "aclmdlSetAIPPSrcImageSize");
    require(srcImageSizeW > 0 && srcImageSizeH > 0, "aclmdlSetAIPPSrcImageSize: " + std::to_string(srcImageSizeW) + "x" +
                                                        std::to_string(srcImageSizeH) + "; expected a positive width and height");
    p.src_w = srcImageSizeW;
    p.src_h = srcImageSizeH;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPScfParams(aclmdlAIPP* aippParmsSet, int8_t scfSwitch, int32_t scfInputSizeW, int32_t scfInputSizeH,
                                int32_t scfOutputSizeW, int32_t scfOutputSizeH, uint64_t batchIndex) {
  return acl::guard("aclmdlSetAIPPScfParams", [&] {
    const char* api = "aclmdlSetAIPPScfParams";
    aclmdlAIPP::Image& im = image(params(aippParmsSet, api), batchIndex, api);
    require_switch(scfSwitch, api, "scfSwitch");
    require_sizes({scfInputSizeW, scfInputSizeH, scfOutputSizeW, scfOutputSizeH}, api);
    im.scf = scfSwitch;
    im.scf_sizes = {scfInputSizeW, scfInputSizeH, scfOutputSizeW, scfOutputSizeH};
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPCropParams(aclmdlAIPP* aippParmsSet, int8_t cropSwitch, int32_t cropStartPosW, int32_t cropStartPosH,
                                 int32_t cropSizeW, int32_t cropSizeH, uint64_t batchIndex) {
  return acl::guard("aclmdlSetAIPPCropParams", [&] {
    const char* api = "aclmdlSetAIPPCropParams";
    aclmdlAIPP::Image& im = image(params(aippParmsSet, api), batchIndex, api);
    require_switch(cropSwitch, api, "cropSwitch");
    require_sizes({cropStartPosW, cropStartPosH, cropSizeW, cropSizeH}, api);
    im.crop = cropSwitch;
    im.crop_box = {cropStartPosW, cropStartPosH, cropSizeW, cropSizeH};
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPPaddingParams(aclmdlAIPP* aippParmsSet, int8_t paddingSwitch, int32_t paddingSizeTop,
                                    int32_t paddingSizeBottom, int32_t paddingSizeLeft, int32_t paddingSizeRight,
                                    uint64_t batchIndex) {
  return acl::guard("aclmdlSetAIPPPaddingParams", [&] {
    const char* api = "aclmdlSetAIPPPaddingParams";
    aclmdlAIPP::Image& im = image(params(aippParmsSet, api), batchIndex, api);
    require_switch(paddingSwitch, api, "paddingSwitch");
    require_sizes({paddingSizeTop, paddingSizeBottom, paddingSizeLeft, paddingSizeRight}, api);
    im.padding = paddingSwitch;
    im.paddings = {paddingSizeTop, paddingSizeBottom, paddingSizeLeft, paddingSizeRight};
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPDtcPixelMean(aclmdlAIPP* aippParmsSet, int16_t dtcPixelMeanChn0, int16_t dtcPixelMeanChn1,
                                   int16_t dtcPixelMeanChn2, int16_t dtcPixelMeanChn3, uint64_t batchIndex) {
  return acl::guard("aclmdlSetAIPPDtcPixelMean", [&] {
    const char* api = "aclmdlSetAIPPDtcPixelMean";
    image(params(aippParmsSet, api), batchIndex, api).mean = {dtcPixelMeanChn0, dtcPixelMeanChn1, dtcPixelMeanChn2,
                                                             dtcPixelMeanChn3};
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPDtcPixelMin(aclmdlAIPP* aippParmsSet, float dtcPixelMinChn0, float dtcPixelMinChn1,
                                  float dtcPixelMinChn2, float dtcPixelMinChn3, uint64_t batchIndex) {
  return acl::guard("aclmdlSetAIPPDtcPixelMin", [&] {
    const char* api = "aclmdlSetAIPPDtcPixelMin";
    image(params(aippParmsSet, api), batchIndex, api).min = {dtcPixelMinChn0, dtcPixelMinChn1, dtcPixelMinChn2,
                                                            dtcPixelMinChn3};
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPPixelVarReci(aclmdlAIPP* aippParmsSet, float dtcPixelVarReciChn0, float dtcPixelVarReciChn1,
                                   float dtcPixelVarReciChn2, float dtcPixelVarReciChn3, uint64_t batchIndex) {
  return acl::guard("aclmdlSetAIPPPixelVarReci", [&] {
    const char* api = "aclmdlSetAIPPPixelVarReci";
    image(params(aippParmsSet, api), batchIndex, api).var_reci = {dtcPixelVarReciChn0, dtcPixelVarReciChn1,
                                                                 dtcPixelVarReciChn2, dtcPixelVarReciChn3};
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetInputAIPP(uint32_t modelId, aclmdlDataset* dataset, size_t index, const aclmdlAIPP* aippParmsSet) {
  return acl::guard("aclmdlSetInputAIPP",
                    [&] { return give_to_model("aclmdlSetInputAIPP", modelId, dataset, index, aippParmsSet); });
}

aclError aclmdlSetAIPPByInputIndex(uint32_t modelId, aclmdlDataset* dataset, size_t index, const aclmdlAIPP* aippParmsSet) {
  return acl::guard("aclmdlSetAIPPByInputIndex",
                    [&] { return give_to_model("aclmdlSetAIPPByInputIndex", modelId, dataset, index, aippParmsSet); });
}

}  // extern "C"
