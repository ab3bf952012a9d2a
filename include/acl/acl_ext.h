/*
 * aclrt extensions: what a program needs to drive the emulated device, which has no kernel
 * binaries of its own. All names start with "aclx" so they never collide with vendor names.
 *
 * Device configuration is read at aclInit from the environment, or set in code with
 * aclxConfigureDevices before aclInit:
 *   ACLRT_DEVICE_COUNT       number of emulated devices (default 1)
 *   ACLRT_DEVICE_MEMORY      memory per device in bytes; K, M, G suffixes (default 32G, or
 *                            the host's memory if smaller)
 *   ASCEND_RT_VISIBLE_DEVICES  comma list of visible device ids, as with real hardware
 */
#ifndef ACLRT_ACL_ACL_EXT_H_
#define ACLRT_ACL_ACL_EXT_H_

#include <stdint.h>
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A host kernel: returns ACL_SUCCESS, or the aclError the device task fails with. */
typedef aclError (*aclxHostKernel)(void *args);

/*
 * Queues fn(args) on the stream as a device task. It runs on the stream's worker thread after
 * every earlier task and before every later one. A non-zero return fails the task with that
 * code: the exception callback (aclrtSetExceptionInfoCallback) receives it, the stream's next
 * synchronise returns it, and with ACL_STOP_ON_FAILURE the context's streams stop.
 * name (may be NULL) labels the task in traces and messages. fn NULL: ACL_ERROR_RT_PARAM_INVALID.
 * Inside fn, synchronising, allocating or launching returns ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclxLaunchHostKernel(aclrtStream stream, aclError (*fn)(void *args),
                                                  void *args, const char *name);

/* aclxMemAccess.mode bits: the kernel reads and/or writes the range. */
#define ACLX_ACCESS_READ 1u
#define ACLX_ACCESS_WRITE 2u

/* One byte range a host kernel touches. */
typedef struct {
    const void *ptr;
    size_t size;
    uint32_t mode; /* ACLX_ACCESS_READ | ACLX_ACCESS_WRITE */
} aclxMemAccess;

/*
 * aclxLaunchHostKernel, declaring the memory the kernel reads and writes: traces show it, and
 * the checker (ACLRT_CHECK) reports races between the kernel and other work on overlapping
 * bytes. accesses may be NULL when count is 0; an entry with a NULL ptr, size 0 or no mode bit
 * is ignored; a mode with other bits, or accesses NULL with count > 0: ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclError aclxLaunchHostKernelWithAccess(aclrtStream stream,
                                                            aclError (*fn)(void *args), void *args,
                                                            const char *name,
                                                            const aclxMemAccess *accesses,
                                                            size_t count);

/*
 * Names the stream for traces (ACLRT_TRACE): its track reads "name (stream N)" instead of
 * "stream N". stream NULL is the current context's default stream; an empty name removes the
 * name. name NULL: ACL_ERROR_INVALID_PARAM; a stream that is not live:
 * ACL_ERROR_RT_INVALID_HANDLE. Host threads are named by their OS names (pthread_setname_np).
 */
ACL_FUNC_VISIBILITY aclError aclxSetStreamName(aclrtStream stream, const char *name);

/*
 * Sets the number of emulated devices and each one's memory capacity in bytes, overriding
 * ACLRT_DEVICE_COUNT / ACLRT_DEVICE_MEMORY. Only before aclInit (or after aclFinalize);
 * otherwise, or with a zero count or capacity, ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclError aclxConfigureDevices(uint32_t deviceCount, uint64_t memoryBytes);

/* Objects currently alive in the runtime, for leak checks. */
typedef struct aclxLiveObjects {
    uint64_t contexts;        /* default contexts included */
    uint64_t streams;         /* default streams included */
    uint64_t events;
    uint64_t allocations;     /* aclrtMalloc and aclrtMallocHost blocks */
    uint64_t callbackThreads; /* threads subscribed with aclrtSubscribeReport */
} aclxLiveObjects;

/* Fills *objects; NULL: ACL_ERROR_INVALID_PARAM. Works before aclInit too. */
ACL_FUNC_VISIBILITY aclError aclxGetLiveObjects(aclxLiveObjects *objects);

#ifdef __cplusplus
}
#endif

#endif /* ACLRT_ACL_ACL_EXT_H_ */
