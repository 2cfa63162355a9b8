/* ge's acl C API: the runtime minimum: the device, streams and memory.
 *
 * There is one device, 0: the CPU. Device and host memory are the same memory, so every
 * aclrtMemcpy kind is a copy; a stream runs its work at once (single ops execute
 * synchronously), so aclrtSynchronizeStream only checks the stream.
 *
 *   aclrtStream s;  aclrtCreateStream(&s);
 *   void *p;        aclrtMalloc(&p, 1024, ACL_MEM_MALLOC_HUGE_FIRST);
 *   aclrtMemcpy(p, 1024, host, 1024, ACL_MEMCPY_HOST_TO_DEVICE);
 *   aclrtFree(p);   aclrtDestroyStream(s);
 */
#ifndef GE_ACL_ACL_RT_H_
#define GE_ACL_ACL_RT_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The direction of a copy (all are memcpy here; the values are GE's). */
typedef enum aclrtMemcpyKind {
  ACL_MEMCPY_HOST_TO_HOST,
  ACL_MEMCPY_HOST_TO_DEVICE,
  ACL_MEMCPY_DEVICE_TO_HOST,
  ACL_MEMCPY_DEVICE_TO_DEVICE,
  ACL_MEMCPY_DEFAULT
} aclrtMemcpyKind;

/* How device memory is allocated (accepted and recorded; the values are GE's). */
typedef enum aclrtMemMallocPolicy {
  ACL_MEM_MALLOC_HUGE_FIRST,
  ACL_MEM_MALLOC_HUGE_ONLY,
  ACL_MEM_MALLOC_NORMAL_ONLY,
  ACL_MEM_MALLOC_HUGE_FIRST_P2P,
  ACL_MEM_MALLOC_HUGE_ONLY_P2P,
  ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
  ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
  ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000
} aclrtMemMallocPolicy;

/* Uses device `deviceId` (only 0, the CPU; others ACL_ERROR_INVALID_PARAM). Counted: each
 * call needs one aclrtResetDevice. */
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);
/* Releases one aclrtSetDevice of the device. */
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);

/* A new stream into *stream. */
ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream);
/* Waits for the stream's work (a check here: work runs at once). Null: the default stream. */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);
/* Destroys a stream made by aclrtCreateStream. */
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);

/* `size` bytes (> 0) of device memory, 64-byte aligned, into *devPtr. */
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
/* Frees memory from aclrtMalloc (another pointer: ACL_ERROR_INVALID_PARAM). */
ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr);
/* `size` bytes (> 0) of host memory, 64-byte aligned, into *hostPtr. */
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size);
/* Frees memory from aclrtMallocHost. */
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr);
/* Copies `count` bytes from src to dst, which holds destMax (count > destMax: invalid). */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind);

#ifdef __cplusplus
}
#endif

#endif /* GE_ACL_ACL_RT_H_ */
