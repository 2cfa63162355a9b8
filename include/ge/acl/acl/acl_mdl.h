/* ge's acl C API: compiled models: load, describe, datasets, gears and execution.
 *
 * A model built with gears has one extra input, ACL_DYNAMIC_TENSOR_NAME; an application
 * finds it with aclmdlGetInputIndexByName, gives it a buffer, and picks a gear with one
 * aclmdlSetDynamic* call (none: the largest gear runs). A model built with ranges takes
 * the real input descriptions through aclmdlSetDatasetTensorDesc and reports the real
 * outputs through aclmdlGetDatasetTensorDesc.
 *
 *   uint32_t id;  aclmdlLoadFromFile("resnet.gem", &id);
 *   aclmdlDesc *d = aclmdlCreateDesc();  aclmdlGetDesc(d, id);
 *   aclmdlDataset *in = aclmdlCreateDataset(), *out = aclmdlCreateDataset();
 *   ...                                   // aclmdlAddDatasetBuffer per input and output
 *   aclmdlSetDynamicBatchSize(id, in, index, 4);
 *   aclmdlExecute(id, in, out);
 */
#ifndef GE_ACL_ACL_MDL_H_
#define GE_ACL_ACL_MDL_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_MAX_DIM_CNT 128
#define ACL_MAX_TENSOR_NAME_LEN 128
#define ACL_MAX_BATCH_NUM 128
#define ACL_MAX_HW_NUM 128
/* The name of the extra input of a model built with gears. */
#define ACL_DYNAMIC_TENSOR_NAME "ascend_mbatch_shape_data"
/* The name of a dynamic AIPP input (ge's models have none). */
#define ACL_DYNAMIC_AIPP_NAME "ascend_dynamic_aipp_data"
#define ACL_INVALID_NODE_INDEX 0xFFFFFFFF

/* aclmdlLoadWithConfig's ACL_MDL_LOAD_TYPE_SIZET values. */
#define ACL_MDL_LOAD_FROM_FILE 1
#define ACL_MDL_LOAD_FROM_FILE_WITH_MEM 2
#define ACL_MDL_LOAD_FROM_MEM 3
#define ACL_MDL_LOAD_FROM_MEM_WITH_MEM 4
#define ACL_MDL_LOAD_FROM_FILE_WITH_Q 5
#define ACL_MDL_LOAD_FROM_MEM_WITH_Q 6

typedef struct aclmdlDataset aclmdlDataset;
typedef struct aclmdlDesc aclmdlDesc;
typedef struct aclmdlConfigHandle aclmdlConfigHandle;

/* What aclmdlSetConfigOpt sets: attrValue points to a value of the suffix's type
 * (_PTR: a pointer, _SIZET: size_t, _INT32: int32_t) and valueSize is its size. */
typedef enum {
  ACL_MDL_PRIORITY_INT32 = 0,
  ACL_MDL_LOAD_TYPE_SIZET,
  ACL_MDL_PATH_PTR,
  ACL_MDL_MEM_ADDR_PTR,
  ACL_MDL_MEM_SIZET,
  ACL_MDL_WEIGHT_ADDR_PTR,
  ACL_MDL_WEIGHT_SIZET,
  ACL_MDL_WORKSPACE_ADDR_PTR,
  ACL_MDL_WORKSPACE_SIZET,
  ACL_MDL_INPUTQ_NUM_SIZET,
  ACL_MDL_INPUTQ_ADDR_PTR,
  ACL_MDL_OUTPUTQ_NUM_SIZET,
  ACL_MDL_OUTPUTQ_ADDR_PTR,
  ACL_MDL_WORKSPACE_MEM_OPTIMIZE,
  ACL_MDL_WEIGHT_PATH_PTR,
  ACL_MDL_MODEL_DESC_PTR,
  ACL_MDL_MODEL_DESC_SIZET,
  ACL_MDL_KERNEL_PTR,
  ACL_MDL_KERNEL_SIZET,
  ACL_MDL_KERNEL_ARGS_PTR,
  ACL_MDL_KERNEL_ARGS_SIZET,
  ACL_MDL_STATIC_TASK_PTR,
  ACL_MDL_STATIC_TASK_SIZET,
  ACL_MDL_DYNAMIC_TASK_PTR,
  ACL_MDL_DYNAMIC_TASK_SIZET,
  ACL_MDL_MEM_MALLOC_POLICY_SIZET,
  ACL_MDL_FIFO_PTR,
  ACL_MDL_FIFO_SIZET,
  ACL_MDL_WITHOUT_GRAPH_INT32,
  ACL_NPU_PERF_MODE,
  ACL_MDL_RESERVED = 0xFFFF
} aclmdlConfigAttr;

/* The image formats AIPP reads. */
typedef enum {
  ACL_YUV420SP_U8 = 1,
  ACL_XRGB8888_U8 = 2,
  ACL_RGB888_U8 = 3,
  ACL_YUV400_U8 = 4,
  ACL_NC1HWC0DI_FP16 = 5,
  ACL_NC1HWC0DI_S8 = 6,
  ACL_ARGB8888_U8 = 7,
  ACL_YUYV_U8 = 8,
  ACL_YUV422SP_U8 = 9,
  ACL_AYUV444_U8 = 10,
  ACL_RAW10 = 11,
  ACL_RAW12 = 12,
  ACL_RAW16 = 13,
  ACL_RAW24 = 14,
  ACL_AIPP_RESERVED = 0xFFFF
} aclAippInputFormat;

/* Dynamic AIPP parameters (aclmdlCreateAIPP, aclmdlSetAIPP*): kept and checked; no ge
 * model has a dynamic AIPP input to take them (aclmdlSetInputAIPP says so). */
typedef struct aclmdlAIPP aclmdlAIPP;

/* How an input is preprocessed by the NPU's AIPP unit (ge's models: never). */
typedef enum {
  ACL_DATA_WITHOUT_AIPP = 0,
  ACL_DATA_WITH_STATIC_AIPP,
  ACL_DATA_WITH_DYNAMIC_AIPP,
  ACL_DYNAMIC_AIPP_NODE
} aclmdlInputAippType;

/* A tensor's name and dims (-1 where a dim varies). */
typedef struct aclmdlIODims {
  char name[ACL_MAX_TENSOR_NAME_LEN];
  size_t dimCount;
  int64_t dims[ACL_MAX_DIM_CNT];
} aclmdlIODims;

/* A [lo, hi] range per dim (hi -1: unbounded). */
typedef struct aclmdlIODimsRange {
  size_t rangeCount;
  int64_t range[ACL_MAX_DIM_CNT][2];
} aclmdlIODimsRange;

/* The batch gears of a model. */
typedef struct aclmdlBatch {
  size_t batchCount;
  uint64_t batch[ACL_MAX_BATCH_NUM];
} aclmdlBatch;

/* The image-size gears of a model: {height, width} each. */
typedef struct aclmdlHW {
  size_t hwCount;
  uint64_t hw[ACL_MAX_HW_NUM][2];
} aclmdlHW;

/* --- loading ----------------------------------------------------------------------- */

/* Loads a compiled model file; its id into *modelId. */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromFile(const char *modelPath, uint32_t *modelId);
/* Loads a compiled model from memory (the bytes are copied; the caller may free them). */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromMem(const void *model, size_t modelSize, uint32_t *modelId);
/* The memory a model file needs when the caller provides it: *workSize for the values
 * between the steps (the arena of its largest gear or plan), *weightSize for its weights. */
ACL_FUNC_VISIBILITY aclError aclmdlQuerySize(const char *fileName, size_t *workSize, size_t *weightSize);
ACL_FUNC_VISIBILITY aclError aclmdlQuerySizeFromMem(const void *model, size_t modelSize, size_t *workSize,
                                                    size_t *weightSize);
/* Loads with the caller's memory: the runs' arena in workPtr, the weights copied into
 * weightPtr (either null: ge's own). Both stay the caller's, valid until aclmdlUnload;
 * runs of the model take turns on workPtr. */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromFileWithMem(const char *modelPath, uint32_t *modelId, void *workPtr,
                                                       size_t workSize, void *weightPtr, size_t weightSize);
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromMemWithMem(const void *model, size_t modelSize, uint32_t *modelId,
                                                      void *workPtr, size_t workSize, void *weightPtr,
                                                      size_t weightSize);
ACL_FUNC_VISIBILITY aclError aclmdlUnload(uint32_t modelId);
/* Loading described by a config handle: ACL_MDL_LOAD_TYPE_SIZET (ACL_MDL_LOAD_FROM_*),
 * ACL_MDL_PATH_PTR or ACL_MDL_MEM_ADDR_PTR + ACL_MDL_MEM_SIZET, and with memory
 * ACL_MDL_WORKSPACE_* / ACL_MDL_WEIGHT_* (as aclmdlLoadFrom*WithMem). */
ACL_FUNC_VISIBILITY aclmdlConfigHandle *aclmdlCreateConfigHandle(void);
ACL_FUNC_VISIBILITY aclError aclmdlDestroyConfigHandle(aclmdlConfigHandle *handle);
ACL_FUNC_VISIBILITY aclError aclmdlSetConfigOpt(aclmdlConfigHandle *handle, aclmdlConfigAttr attr,
                                                const void *attrValue, size_t valueSize);
ACL_FUNC_VISIBILITY aclError aclmdlLoadWithConfig(const aclmdlConfigHandle *handle, uint32_t *modelId);

/* --- descriptions ------------------------------------------------------------------ */

ACL_FUNC_VISIBILITY aclmdlDesc *aclmdlCreateDesc(void);
ACL_FUNC_VISIBILITY aclError aclmdlDestroyDesc(aclmdlDesc *modelDesc);
/* Fills modelDesc with the description of a loaded model. */
ACL_FUNC_VISIBILITY aclError aclmdlGetDesc(aclmdlDesc *modelDesc, uint32_t modelId);
/* Fills modelDesc with the description of a model file, or of its bytes, without loading it. */
ACL_FUNC_VISIBILITY aclError aclmdlGetDescFromFile(aclmdlDesc *modelDesc, const char *modelPath);
ACL_FUNC_VISIBILITY aclError aclmdlGetDescFromMem(aclmdlDesc *modelDesc, const void *model, size_t modelSize);
ACL_FUNC_VISIBILITY size_t aclmdlGetNumInputs(aclmdlDesc *modelDesc);
ACL_FUNC_VISIBILITY size_t aclmdlGetNumOutputs(aclmdlDesc *modelDesc);
/* Bytes of an input or output at its largest. */
ACL_FUNC_VISIBILITY size_t aclmdlGetInputSizeByIndex(aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY size_t aclmdlGetOutputSizeByIndex(aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY const char *aclmdlGetInputNameByIndex(const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY const char *aclmdlGetOutputNameByIndex(const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclError aclmdlGetInputIndexByName(const aclmdlDesc *modelDesc, const char *name, size_t *index);
ACL_FUNC_VISIBILITY aclError aclmdlGetOutputIndexByName(const aclmdlDesc *modelDesc, const char *name, size_t *index);
/* The full name of an input or output given its name (ge keeps names whole); NULL when none has it. */
ACL_FUNC_VISIBILITY const char *aclmdlGetTensorRealName(const aclmdlDesc *modelDesc, const char *name);
/* ACL_DATA_WITHOUT_AIPP for every input of a ge model (*dynamicAttachedDataIndex: ACL_INVALID_NODE_INDEX). */
ACL_FUNC_VISIBILITY aclError aclmdlGetAippType(uint32_t modelId, size_t index, aclmdlInputAippType *type,
                                               size_t *dynamicAttachedDataIndex);
/* Types and layouts (ACL_DT_UNDEFINED / ACL_FORMAT_UNDEFINED for a bad call). */
ACL_FUNC_VISIBILITY aclDataType aclmdlGetInputDataType(const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclDataType aclmdlGetOutputDataType(const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclFormat aclmdlGetInputFormat(const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclFormat aclmdlGetOutputFormat(const aclmdlDesc *modelDesc, size_t index);
/* -1 where a dim varies (a gear's dim, a range). */
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims);
/* As aclmdlGetInputDims (ge models have no image preprocessing, AIPP, to tell apart). */
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDimsV2(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims);
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDimsRange(const aclmdlDesc *modelDesc, size_t index,
                                                     aclmdlIODimsRange *dimsRange);
/* A gear model's: the largest gear's dims (what buffers are sized for); else -1 where a dim varies. */
ACL_FUNC_VISIBILITY aclError aclmdlGetOutputDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims);
/* The output dims of the gear chosen last. */
ACL_FUNC_VISIBILITY aclError aclmdlGetCurOutputDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims);

/* --- datasets ---------------------------------------------------------------------- */

ACL_FUNC_VISIBILITY aclmdlDataset *aclmdlCreateDataset(void);
ACL_FUNC_VISIBILITY aclError aclmdlDestroyDataset(const aclmdlDataset *dataset);
/* Appends a buffer (the dataset does not own it). */
ACL_FUNC_VISIBILITY aclError aclmdlAddDatasetBuffer(aclmdlDataset *dataset, aclDataBuffer *dataBuffer);
ACL_FUNC_VISIBILITY size_t aclmdlGetDatasetNumBuffers(const aclmdlDataset *dataset);
ACL_FUNC_VISIBILITY aclDataBuffer *aclmdlGetDatasetBuffer(const aclmdlDataset *dataset, size_t index);
/* The real description of input `index` of a model built with ranges. */
ACL_FUNC_VISIBILITY aclError aclmdlSetDatasetTensorDesc(aclmdlDataset *dataset, aclTensorDesc *tensorDesc,
                                                        size_t index);
/* After aclmdlExecute: the real description of output `index`. */
ACL_FUNC_VISIBILITY aclTensorDesc *aclmdlGetDatasetTensorDesc(const aclmdlDataset *dataset, size_t index);

/* --- gears ------------------------------------------------------------------------- */

/* Picks the batch gear; `index` is the ACL_DYNAMIC_TENSOR_NAME input's. */
ACL_FUNC_VISIBILITY aclError aclmdlSetDynamicBatchSize(uint32_t modelId, aclmdlDataset *dataset, size_t index,
                                                       uint64_t batchSize);
/* Picks the image-size gear. */
ACL_FUNC_VISIBILITY aclError aclmdlSetDynamicHWSize(uint32_t modelId, aclmdlDataset *dataset, size_t index,
                                                    uint64_t height, uint64_t width);
/* Picks the dims gear. */
ACL_FUNC_VISIBILITY aclError aclmdlSetInputDynamicDims(uint32_t modelId, aclmdlDataset *dataset, size_t index,
                                                       const aclmdlIODims *dims);
ACL_FUNC_VISIBILITY aclError aclmdlGetDynamicBatch(const aclmdlDesc *modelDesc, aclmdlBatch *batch);
ACL_FUNC_VISIBILITY aclError aclmdlGetDynamicHW(const aclmdlDesc *modelDesc, size_t index, aclmdlHW *hw);
/* The number of dims gears (index -1: the model's). */
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDynamicGearCount(const aclmdlDesc *modelDesc, size_t index,
                                                            size_t *gearCount);
/* Per gear, the dims of all inputs joined in order (index -1: the model's). */
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDynamicDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims,
                                                       size_t gearCount);

/* --- dynamic AIPP (image preprocessing on the NPU; see docs/acl.md) ---------------- */

/* Parameters for `batchSize` images (at least 1). */
ACL_FUNC_VISIBILITY aclmdlAIPP *aclmdlCreateAIPP(uint64_t batchSize);
ACL_FUNC_VISIBILITY aclError aclmdlDestroyAIPP(const aclmdlAIPP *aippParmsSet);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPInputFormat(aclmdlAIPP *aippParmsSet, aclAippInputFormat inputFormat);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPCscParams(aclmdlAIPP *aippParmsSet, int8_t cscSwitch, int16_t cscMatrixR0C0,
                                                    int16_t cscMatrixR0C1, int16_t cscMatrixR0C2, int16_t cscMatrixR1C0,
                                                    int16_t cscMatrixR1C1, int16_t cscMatrixR1C2, int16_t cscMatrixR2C0,
                                                    int16_t cscMatrixR2C1, int16_t cscMatrixR2C2,
                                                    uint8_t cscOutputBiasR0, uint8_t cscOutputBiasR1,
                                                    uint8_t cscOutputBiasR2, uint8_t cscInputBiasR0,
                                                    uint8_t cscInputBiasR1, uint8_t cscInputBiasR2);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPRbuvSwapSwitch(aclmdlAIPP *aippParmsSet, int8_t rbuvSwapSwitch);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPAxSwapSwitch(aclmdlAIPP *aippParmsSet, int8_t axSwapSwitch);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPSrcImageSize(aclmdlAIPP *aippParmsSet, int32_t srcImageSizeW,
                                                       int32_t srcImageSizeH);
/* The per-image settings: batchIndex below the batch size given to aclmdlCreateAIPP. */
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPScfParams(aclmdlAIPP *aippParmsSet, int8_t scfSwitch, int32_t scfInputSizeW,
                                                    int32_t scfInputSizeH, int32_t scfOutputSizeW,
                                                    int32_t scfOutputSizeH, uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPCropParams(aclmdlAIPP *aippParmsSet, int8_t cropSwitch, int32_t cropStartPosW,
                                                     int32_t cropStartPosH, int32_t cropSizeW, int32_t cropSizeH,
                                                     uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPPaddingParams(aclmdlAIPP *aippParmsSet, int8_t paddingSwitch,
                                                        int32_t paddingSizeTop, int32_t paddingSizeBottom,
                                                        int32_t paddingSizeLeft, int32_t paddingSizeRight,
                                                        uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPDtcPixelMean(aclmdlAIPP *aippParmsSet, int16_t dtcPixelMeanChn0,
                                                       int16_t dtcPixelMeanChn1, int16_t dtcPixelMeanChn2,
                                                       int16_t dtcPixelMeanChn3, uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPDtcPixelMin(aclmdlAIPP *aippParmsSet, float dtcPixelMinChn0,
                                                      float dtcPixelMinChn1, float dtcPixelMinChn2,
                                                      float dtcPixelMinChn3, uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPPixelVarReci(aclmdlAIPP *aippParmsSet, float dtcPixelVarReciChn0,
                                                       float dtcPixelVarReciChn1, float dtcPixelVarReciChn2,
                                                       float dtcPixelVarReciChn3, uint64_t batchIndex);
/* Gives the parameters to a model's dynamic AIPP input: ge's models have none, so these
 * are ACL_ERROR_INVALID_PARAM naming the input (after the other checks). */
ACL_FUNC_VISIBILITY aclError aclmdlSetInputAIPP(uint32_t modelId, aclmdlDataset *dataset, size_t index,
                                                const aclmdlAIPP *aippParmsSet);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPByInputIndex(uint32_t modelId, aclmdlDataset *dataset, size_t index,
                                                       const aclmdlAIPP *aippParmsSet);

/* --- execution --------------------------------------------------------------------- */

/* Runs the model on the input buffers into the output buffers, synchronously. */
ACL_FUNC_VISIBILITY aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output);
/* The same, as work of `stream` (null: the default stream); aclrtSynchronizeStream waits for it.
 * ge's streams run their work as it is given, so the outputs are there when this returns. */
ACL_FUNC_VISIBILITY aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output,
                                                aclrtStream stream);

/* --- AIPP information, exception-time op descriptions, execution configurations ------ */

#define ACL_MAX_SHAPE_COUNT 128

typedef struct aclAippExtendInfo aclAippExtendInfo;
typedef struct aclmdlExecConfigHandle aclmdlExecConfigHandle;

/* An input's dims before the model's conversion and after its AIPP. */
typedef struct aclAippDims {
  aclmdlIODims srcDims;
  size_t srcSize;
  aclmdlIODims aippOutdims;
  size_t aippOutSize;
} aclAippDims;

/* The static AIPP of a model input (aclmdlGetFirstAippInfo); layout as GE's. */
typedef struct aclAippInfo {
  aclAippInputFormat inputFormat;
  int32_t srcImageSizeW;
  int32_t srcImageSizeH;
  int8_t cropSwitch;
  int32_t loadStartPosW;
  int32_t loadStartPosH;
  int32_t cropSizeW;
  int32_t cropSizeH;
  int8_t resizeSwitch;
  int32_t resizeOutputW;
  int32_t resizeOutputH;
  int8_t paddingSwitch;
  int32_t leftPaddingSize;
  int32_t rightPaddingSize;
  int32_t topPaddingSize;
  int32_t bottomPaddingSize;
  int8_t cscSwitch;
  int8_t rbuvSwapSwitch;
  int8_t axSwapSwitch;
  int8_t singleLineMode;
  int32_t matrixR0C0;
  int32_t matrixR0C1;
  int32_t matrixR0C2;
  int32_t matrixR1C0;
  int32_t matrixR1C1;
  int32_t matrixR1C2;
  int32_t matrixR2C0;
  int32_t matrixR2C1;
  int32_t matrixR2C2;
  int32_t outputBias0;
  int32_t outputBias1;
  int32_t outputBias2;
  int32_t inputBias0;
  int32_t inputBias1;
  int32_t inputBias2;
  int32_t meanChn0;
  int32_t meanChn1;
  int32_t meanChn2;
  int32_t meanChn3;
  float minChn0;
  float minChn1;
  float minChn2;
  float minChn3;
  float varReciChn0;
  float varReciChn1;
  float varReciChn2;
  float varReciChn3;
  aclFormat srcFormat;
  aclDataType srcDatatype;
  size_t srcDimNum;
  size_t shapeCount;
  aclAippDims outDims[ACL_MAX_SHAPE_COUNT];
  aclAippExtendInfo *aippExtend; /* reserved: null */
} aclAippInfo;

/* The options of an execution configuration (aclmdlSetExecConfigOpt). */
typedef enum {
  ACL_MDL_STREAM_SYNC_TIMEOUT = 0,
  ACL_MDL_EVENT_SYNC_TIMEOUT,
  ACL_MDL_WORK_ADDR_PTR,
  ACL_MDL_WORK_SIZET,
  ACL_MDL_MPAIMID_SIZET,
  ACL_MDL_AICQOS_SIZET,
  ACL_MDL_AICOST_SIZET,
  ACL_MDL_MEC_TIMETHR_SIZET,
  ACL_MDL_EXEC_PRIORITY_INT32,
  ACL_MDL_NPU_PERF_MODE
} aclmdlExecConfigAttr;

/* The static AIPP of input `index`. ge compiles no AIPP into a model: a valid model and
 * input give 145015 (GE's ACL_ERROR_GE_AIPP_NOT_EXIST), as GE for an input without AIPP. */
ACL_FUNC_VISIBILITY aclError aclmdlGetFirstAippInfo(uint32_t modelId, size_t index, aclAippInfo *aippInfo);
/* The op of a failed device task (an exception callback's ids), with descriptions the
 * caller frees (aclDestroyTensorDesc on each array). ge runs no device tasks: every
 * (deviceId, streamId, taskId) is ACL_ERROR_INVALID_PARAM, no task of that id. */
ACL_FUNC_VISIBILITY aclError aclmdlCreateAndGetOpDesc(uint32_t deviceId, uint32_t streamId, uint32_t taskId,
                                                      char *opName, size_t opNameLen, aclTensorDesc **inputDesc,
                                                      size_t *numInputs, aclTensorDesc **outputDesc,
                                                      size_t *numOutputs);
/* An execution configuration: options of aclmdlExecConfigAttr, each value checked for
 * its size (valueSize); ge keeps them and runs as aclmdlExecute (a timeout never
 * triggers: the run is done on return). */
ACL_FUNC_VISIBILITY aclmdlExecConfigHandle *aclmdlCreateExecConfigHandle(void);
ACL_FUNC_VISIBILITY aclError aclmdlDestroyExecConfigHandle(const aclmdlExecConfigHandle *handle);
ACL_FUNC_VISIBILITY aclError aclmdlSetExecConfigOpt(aclmdlExecConfigHandle *handle, aclmdlExecConfigAttr attr,
                                                    const void *attrValue, size_t valueSize);
/* aclmdlExecute / aclmdlExecuteAsync with a configuration (null handle: none). */
ACL_FUNC_VISIBILITY aclError aclmdlExecuteV2(uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output,
                                             aclrtStream stream, const aclmdlExecConfigHandle *handle);
ACL_FUNC_VISIBILITY aclError aclmdlExecuteAsyncV2(uint32_t modelId, const aclmdlDataset *input,
                                                  aclmdlDataset *output, aclrtStream stream,
                                                  const aclmdlExecConfigHandle *handle);

#ifdef __cplusplus
}
#endif

#endif /* GE_ACL_ACL_MDL_H_ */
