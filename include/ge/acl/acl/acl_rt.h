/* ge's acl C API: the runtime: the device, contexts, streams, events, memory, callbacks.
 *
 * There is one device, 0: the CPU, and the application runs on it, so device and host
 * memory are the same memory and every copy kind is a copy. Work given to a stream (a
 * copy, a memset, a single op, a model run) runs when it is issued, so it is done when the
 * call returns; a callback (aclrtLaunchCallback) is the one kind of work that waits: it runs
 * on the thread subscribed to its stream, in that thread's aclrtProcessReport, and
 * aclrtSynchronizeStream waits for it as for any work. Contexts are GE's: one current
 * context per thread; aclrtSetDevice makes the device's default context current,
 * aclrtCreateContext makes (and makes current) another; a stream or an event belongs to the
 * context current when it was made. docs/acl.md ("Runtime") gives GE's behaviour and ge's.
 *
 *   aclrtRunMode mode;  aclrtGetRunMode(&mode);          // ACL_HOST unless GE_ACL_RUN_MODE=device
 *   aclrtSetDevice(0);  aclrtStream s;  aclrtCreateStream(&s);
 *   void *p;            aclrtMalloc(&p, 1024, ACL_MEM_MALLOC_HUGE_FIRST);
 *   aclrtMemcpyAsync(p, 1024, host, 1024, ACL_MEMCPY_HOST_TO_DEVICE, s);
 *   aclrtSynchronizeStream(s);
 *   aclrtFree(p);       aclrtDestroyStream(s);  aclrtResetDevice(0);
 */
#ifndef GE_ACL_ACL_RT_H_
#define GE_ACL_ACL_RT_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the acl API these headers follow (aclrtGetVersion). */
#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 17
#define ACL_PATCH_VERSION 0

/* Event flags (aclrtCreateEventWithFlag; the values are GE's). */
#define ACL_EVENT_SYNC 0x00000001U
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x00000002U
#define ACL_EVENT_TIME_LINE 0x00000008U
#define ACL_EVENT_DEVICE_USE_ONLY 0x00000010U
#define ACL_EVENT_EXTERNAL 0x00000020U
#define ACL_EVENT_IPC 0x00000040U

/* Stream flags (aclrtCreateStreamWithConfig). */
#define ACL_STREAM_FAST_LAUNCH 0x00000001U
#define ACL_STREAM_FAST_SYNC 0x00000002U
#define ACL_STREAM_PERSISTENT 0x00000004U
#define ACL_STREAM_HUGE 0x00000008U
#define ACL_STREAM_CPU_SCHEDULE 0x00000010U
#define ACL_STREAM_DEVICE_USE_ONLY 0x00000020U

/* Stream failure modes (aclrtSetStreamFailureMode). */
#define ACL_CONTINUE_ON_FAILURE 0x00000000U
#define ACL_STOP_ON_FAILURE 0x00000001U

/* Where the application runs: on the device's own CPU (ACL_DEVICE) or on a host driving a
 * device (ACL_HOST). */
typedef enum aclrtRunMode {
  ACL_DEVICE,
  ACL_HOST
} aclrtRunMode;

/* The task scheduler of aclrtSetTsDevice. */
typedef enum aclrtTsId {
  ACL_TS_ID_AICORE = 0,
  ACL_TS_ID_AIVECTOR = 1,
  ACL_TS_ID_RESERVED = 2
} aclrtTsId;

/* aclrtQueryEvent's answer. */
typedef enum aclrtEventStatus {
  ACL_EVENT_STATUS_COMPLETE = 0,
  ACL_EVENT_STATUS_NOT_READY = 1,
  ACL_EVENT_STATUS_RESERVED = 2
} aclrtEventStatus;

/* aclrtQueryEventStatus's answer. */
typedef enum aclrtEventRecordedStatus {
  ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
  ACL_EVENT_RECORDED_STATUS_COMPLETE = 1
} aclrtEventRecordedStatus;

/* aclrtQueryEventWaitStatus's answer. */
typedef enum aclrtEventWaitStatus {
  ACL_EVENT_WAIT_STATUS_COMPLETE = 0,
  ACL_EVENT_WAIT_STATUS_NOT_READY = 1,
  ACL_EVENT_WAIT_STATUS_RESERVED = 0xFFFF
} aclrtEventWaitStatus;

/* aclrtStreamQuery's answer. */
typedef enum aclrtStreamStatus {
  ACL_STREAM_STATUS_COMPLETE = 0,
  ACL_STREAM_STATUS_NOT_READY = 1,
  ACL_STREAM_STATUS_RESERVED = 0xFFFF
} aclrtStreamStatus;

/* Whether the stream waits for a callback to finish (ACL_CALLBACK_BLOCK) or only for it to
 * be handed to the subscribed thread. */
typedef enum aclrtCallbackBlockType {
  ACL_CALLBACK_NO_BLOCK,
  ACL_CALLBACK_BLOCK
} aclrtCallbackBlockType;

/* The direction of a copy (all are memcpy here; the values are GE's). */
typedef enum aclrtMemcpyKind {
  ACL_MEMCPY_HOST_TO_HOST,
  ACL_MEMCPY_HOST_TO_DEVICE,
  ACL_MEMCPY_DEVICE_TO_HOST,
  ACL_MEMCPY_DEVICE_TO_DEVICE,
  ACL_MEMCPY_DEFAULT,
  ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
  ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
  ACL_MEMCPY_INTER_DEVICE_TO_DEVICE
} aclrtMemcpyKind;

/* How device memory is allocated (accepted and recorded; the values are GE's). */
typedef enum aclrtMemMallocPolicy {
  ACL_MEM_MALLOC_HUGE_FIRST,
  ACL_MEM_MALLOC_HUGE_ONLY,
  ACL_MEM_MALLOC_NORMAL_ONLY,
  ACL_MEM_MALLOC_HUGE_FIRST_P2P,
  ACL_MEM_MALLOC_HUGE_ONLY_P2P,
  ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
  ACL_MEM_MALLOC_HUGE1G_ONLY,
  ACL_MEM_MALLOC_HUGE1G_ONLY_P2P,
  ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
  ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000
} aclrtMemMallocPolicy;

/* The kind of memory aclrtGetMemInfo reports on (all are the host's memory here). */
typedef enum aclrtMemAttr {
  ACL_DDR_MEM,
  ACL_HBM_MEM,
  ACL_DDR_MEM_HUGE,
  ACL_DDR_MEM_NORMAL,
  ACL_HBM_MEM_HUGE,
  ACL_HBM_MEM_NORMAL,
  ACL_DDR_MEM_P2P_HUGE,
  ACL_DDR_MEM_P2P_NORMAL,
  ACL_HBM_MEM_P2P_HUGE,
  ACL_HBM_MEM_P2P_NORMAL,
  ACL_HBM_MEM_HUGE1G,
  ACL_HBM_MEM_P2P_HUGE1G,
  ACL_MEM_NORMAL,
  ACL_MEM_HUGE,
  ACL_MEM_HUGE1G,
  ACL_MEM_P2P_NORMAL,
  ACL_MEM_P2P_HUGE,
  ACL_MEM_P2P_HUGE1G
} aclrtMemAttr;

/* The scope of aclrtGetLastError: the calling thread. */
typedef enum aclrtLastErrLevel {
  ACL_RT_THREAD_LEVEL = 0
} aclrtLastErrLevel;

/* What an exception callback is told about a failed task (read with the getters below). */
typedef struct rtExceptionInfo aclrtExceptionInfo;

/* A callback of aclrtLaunchCallback. */
typedef void (*aclrtCallback)(void *userData);
/* A function of aclrtLaunchHostFunc. */
typedef void (*aclrtHostFunc)(void *args);
/* A callback of aclrtSetExceptionInfoCallback. */
typedef void (*aclrtExceptionInfoCallback)(aclrtExceptionInfo *exceptionInfo);

/* --- device and run mode ---------------------------------------------------------- */

/* Uses device `deviceId` (only 0, the CPU; others ACL_ERROR_RT_INVALID_DEVICEID) and makes
 * its default context current on this thread. Counted: each call needs one aclrtResetDevice. */
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);
/* Releases one aclrtSetDevice; the last destroys the default context with its streams and
 * events (contexts of aclrtCreateContext stay). */
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);
/* aclrtResetDevice however many aclrtSetDevice calls there were. */
ACL_FUNC_VISIBILITY aclError aclrtResetDeviceForce(int32_t deviceId);
/* The device of this thread's current context (ACL_ERROR_RT_CONTEXT_NULL without one). */
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId);
/* The number of devices: 1. */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count);
/* Where the application runs: ACL_HOST, or ACL_DEVICE when the environment variable
 * GE_ACL_RUN_MODE is "device" (both work: memory is shared). */
ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode *runMode);
/* Chooses a task scheduler (accepted; the CPU has one). */
ACL_FUNC_VISIBILITY aclError aclrtSetTsDevice(aclrtTsId tsId);
/* Waits for the work of every stream (its callbacks) to finish. */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);
/* aclrtSynchronizeDevice, giving up after `timeout` ms (-1: none):
 * ACL_ERROR_RT_STREAM_SYNC_TIMEOUT. */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout);
/* The acl version these headers follow (ACL_MAJOR_VERSION ...). */
ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion);
/* The time a single op may wait for another (accepted and recorded: ge's ops do not wait). */
ACL_FUNC_VISIBILITY aclError aclrtSetOpWaitTimeout(uint32_t timeout);
/* The time a single op may run (accepted and recorded). */
ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOut(uint32_t timeout);

/* --- contexts ---------------------------------------------------------------------- */

/* A new context on `deviceId` (only 0), made current on this thread. */
ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId);
/* Destroys a context of aclrtCreateContext with its streams and events (the default
 * context, or one destroyed already: ACL_ERROR_INVALID_PARAM). */
ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);
/* Makes `context` this thread's current context. */
ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);
/* This thread's current context (ACL_ERROR_RT_CONTEXT_NULL without one, or when it was
 * destroyed). */
ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context);

/* The value of a system option in the current context (never set:
 * ACL_ERROR_RT_SYSPARAMOPT_NOT_SET). Accepted and kept: ge's kernels are deterministic
 * whatever ACL_OPT_DETERMINISTIC says. */
ACL_FUNC_VISIBILITY aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value);
/* Sets a system option of the current context. */
ACL_FUNC_VISIBILITY aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value);
/* The value of a system option of the process (never set: ACL_ERROR_RT_SYSPARAMOPT_NOT_SET). */
ACL_FUNC_VISIBILITY aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value);
/* Sets a system option of the process. */
ACL_FUNC_VISIBILITY aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value);

/* --- streams ----------------------------------------------------------------------- */

/* A new stream of the current context into *stream. */
ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream);
/* A new stream with a priority (0..7) and ACL_STREAM_* flags (both accepted and recorded). */
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag);
/* Waits for the stream's work: its blocking callbacks. Null: the default stream. */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);
/* aclrtSynchronizeStream, giving up after `timeout` ms (-1: none):
 * ACL_ERROR_RT_STREAM_SYNC_TIMEOUT. */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout);
/* Whether the stream's work is done (callbacks still to run: ACL_STREAM_STATUS_NOT_READY). */
ACL_FUNC_VISIBILITY aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status);
/* Destroys a stream made by aclrtCreateStream; its callbacks not yet run run first. */
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);
/* Makes `stream` wait for `event` (work runs when issued, so the event has happened). */
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);
/* Whether a failed task stops the stream (accepted and recorded). */
ACL_FUNC_VISIBILITY aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode);

/* --- events ------------------------------------------------------------------------ */

/* A new event of the current context. */
ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent *event);
/* A new event with ACL_EVENT_* flags (others: ACL_ERROR_INVALID_PARAM). */
ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag);
/* The same as aclrtCreateEventWithFlag (events are reusable here). */
ACL_FUNC_VISIBILITY aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag);
/* Destroys an event. */
ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event);
/* Records the event on a stream of its context: the work before it is done, so it is
 * complete at once, stamped with the time. */
ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
/* Makes the event unrecorded again. */
ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream);
/* ACL_EVENT_STATUS_COMPLETE once recorded, else ACL_EVENT_STATUS_NOT_READY. */
ACL_DEPRECATED_MESSAGE("aclrtQueryEvent is deprecated, use aclrtQueryEventStatus instead")
ACL_FUNC_VISIBILITY aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status);
/* ACL_EVENT_RECORDED_STATUS_COMPLETE once recorded, else ..._NOT_READY. */
ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status);
/* ACL_EVENT_WAIT_STATUS_COMPLETE once recorded, else ..._NOT_READY. */
ACL_FUNC_VISIBILITY aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status);
/* Waits for the event (recorded or not: nothing is left to wait for). */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event);
/* aclrtSynchronizeEvent with a timeout in ms (-1: none). */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout);
/* The milliseconds between two recorded events (either unrecorded:
 * ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID; end before start: ..._REVERSAL). */
ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent);

/* --- memory ------------------------------------------------------------------------ */

/* `size` bytes (> 0) of device memory, 64-byte aligned, into *devPtr. */
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
/* aclrtMalloc (the size is not padded here). */
ACL_FUNC_VISIBILITY aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
/* aclrtMalloc of cached memory (the CPU's caches are coherent: aclrtMemFlush and
 * aclrtMemInvalidate only check their arguments). Freed by aclrtFree. */
ACL_FUNC_VISIBILITY aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
/* Writes cached memory back (nothing to do on the CPU). */
ACL_FUNC_VISIBILITY aclError aclrtMemFlush(void *devPtr, size_t size);
/* Drops cached copies of memory (nothing to do on the CPU). */
ACL_FUNC_VISIBILITY aclError aclrtMemInvalidate(void *devPtr, size_t size);
/* Frees memory from aclrtMalloc (another pointer: ACL_ERROR_INVALID_PARAM). */
ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr);
/* `size` bytes (> 0) of host memory, 64-byte aligned, into *hostPtr. */
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size);
/* Frees memory from aclrtMallocHost. */
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr);
/* The free and total bytes of the memory of `attr` (the host's memory). */
ACL_FUNC_VISIBILITY aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total);
/* Copies `count` bytes from src to dst, which holds destMax (count > destMax: invalid). */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind);
/* aclrtMemcpy issued to a stream (done when the call returns). */
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                              aclrtMemcpyKind kind, aclrtStream stream);
/* Copies `height` rows of `width` bytes (rows `spitch` apart in src, `dpitch` in dst). */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                           size_t height, aclrtMemcpyKind kind);
/* aclrtMemcpy2d issued to a stream. */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                                size_t width, size_t height, aclrtMemcpyKind kind,
                                                aclrtStream stream);
/* Sets `count` bytes (<= maxCount) to the byte `value`. */
ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);
/* aclrtMemset issued to a stream. */
ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                              aclrtStream stream);

/* --- callbacks --------------------------------------------------------------------- */

/* Makes thread `threadId` (a pthread_t) run the callbacks of `stream` (null: the default
 * stream), in its aclrtProcessReport. A stream has one such thread
 * (ACL_ERROR_REPEAT_SUBSCRIBE). */
ACL_FUNC_VISIBILITY aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream);
/* Adds `fn(userData)` to the stream's work; it runs on the subscribed thread (a stream
 * without one: ACL_ERROR_RT_STREAM_NO_CB_REG). */
ACL_FUNC_VISIBILITY aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
                                                 aclrtStream stream);
/* Runs the callbacks waiting for this thread, waiting up to `timeout` ms (> 0; -1: for ever) for
 * one: ACL_ERROR_WAIT_CALLBACK_TIMEOUT when none came; ACL_ERROR_THREAD_NOT_SUBSCRIBE
 * when this thread serves no stream. */
ACL_FUNC_VISIBILITY aclError aclrtProcessReport(int32_t timeout);
/* Adds `fn(args)` to the stream's work, run by the runtime (no subscription needed): here
 * in the calling thread before the call returns, the stream's earlier work being done. */
ACL_FUNC_VISIBILITY aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args);
/* Ends a subscription of aclrtSubscribeReport (ACL_ERROR_STREAM_NOT_SUBSCRIBE when there
 * is none); callbacks of the stream not yet run run in this call. */
ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream);

/* --- task failures ----------------------------------------------------------------- */

/* The code of this thread's last failed acl call (ACL_SUCCESS when none); another level:
 * ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclrtPeekAtLastError(aclrtLastErrLevel level);
/* aclrtPeekAtLastError, and the code is cleared. */
ACL_FUNC_VISIBILITY aclError aclrtGetLastError(aclrtLastErrLevel level);

/* The function called when a task on a stream fails (a single op, a model run or a BLAS
 * call whose kernel fails), before the failing call returns its error; null: none. */
ACL_DEPRECATED_MESSAGE("aclrtSetExceptionInfoCallback is deprecated, use aclrtExceptionInfoCallbackRegister")
ACL_FUNC_VISIBILITY aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback);
/* Adds a function called as aclrtSetExceptionInfoCallback's (once, however often added). */
ACL_FUNC_VISIBILITY aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback);
/* Removes a function of aclrtExceptionInfoCallbackRegister (one never added: success). */
ACL_FUNC_VISIBILITY aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback);
/* The number of the failed task in this process (0xFFFFFFFF for null). */
ACL_FUNC_VISIBILITY uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info);
/* The id of the failed task's stream (aclrtStreamGetId's; 0 for the default stream). */
ACL_FUNC_VISIBILITY uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info);
/* The (kernel) thread id of the thread that ran the failed task. */
ACL_FUNC_VISIBILITY uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo *info);
/* The device of the failed task: 0. */
ACL_FUNC_VISIBILITY uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info);
/* The aclError the failing call returns. */
ACL_FUNC_VISIBILITY uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info);
/* The id of a stream (0 for the default stream, null). */
ACL_FUNC_VISIBILITY aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId);

#ifdef __cplusplus
}
#endif

#endif /* GE_ACL_ACL_RT_H_ */
