/*
 * aclrt: kernels for the emulated device, loaded and launched through the vendor kernel API
 * (aclrtBinaryLoadFromFile, aclrtBinaryGetFunction, aclrtKernelArgs*, aclrtLaunchKernel*).
 *
 * A "binary" is a host shared library (.so) built for this machine; a kernel is a function it
 * exports, by the name passed to aclrtBinaryGetFunction, with this signature:
 *
 *     ACL_HOST_KERNEL(name)   (uint32_t numBlocks, void *args, size_t argsSize) { ... }
 *
 * numBlocks is the launch's block count. args points to an 8-byte aligned copy of the argument
 * bytes exactly as packed: the argsData bytes of aclrtLaunchKernel / aclrtLaunchKernelV2, read
 * when the kernel runs, or the parameters of an args handle as they were at launch, appended
 * back to back without padding (a placeholder is a pointer to a copy of its buffer taken at
 * launch). args is NULL
 * when argsSize is 0. The kernel runs once per launch, in stream order, on the stream's
 * worker thread; it returns ACL_SUCCESS, or a code that fails the task like a device fault,
 * reported by the next synchronise. The library stays loaded until every launch queued from
 * it ran, even after aclrtBinaryUnLoad.
 *
 * For the memory checker and traces, a kernel may declare the memory it touches: the library
 * exports ACL_HOST_KERNEL_ACCESSES(name), called at each launch (on the launching thread) with
 * the launch's argument bytes; it writes up to `capacity` ranges and returns how many it has
 * (called again with room for all when that is more). Without it, every pointer-sized,
 * pointer-aligned word of the arguments that points into a live runtime allocation counts as a
 * read and a write of that whole allocation.
 *
 * A kernel may also declare its parameters' sizes, in order, with ACL_HOST_KERNEL_PARAMS(name,
 * sizeof(a), sizeof(b), ...): an exported size_t array ended by a 0 (so
 * ACL_HOST_KERNEL_PARAMS(name, 0) declares none). aclrtFunctionGetParamCount and
 * aclrtFunctionGetParamInfo read it (parameter i starts where parameter i - 1 ends: packed
 * without padding, as an args handle packs them), and aclrtLaunchKernelWithArgsArray packs
 * args[i] by it; without it those calls are ACL_ERROR_RT_PARAM_INVALID (107000).
 *
 * An exported variable of the library is a device variable: its address is the `symbol` of
 * aclrtGetSymbolAddress / aclrtGetSymbolSize / aclrtMemcpyToSymbol / aclrtMemcpyFromSymbol
 * (while the binary is loaded), and aclrtBinaryGetGlobal finds it by name. Kernels read and
 * write it where it is.
 */
#ifndef ACLRT_ACL_HOST_KERNEL_H_
#define ACLRT_ACL_HOST_KERNEL_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"
#include "acl_ext.h"

#ifdef __cplusplus
#define ACL_HOST_KERNEL_LINKAGE extern "C"
#define ACL_HOST_KERNEL_DATA_LINKAGE extern "C"
#else
#define ACL_HOST_KERNEL_LINKAGE
#define ACL_HOST_KERNEL_DATA_LINKAGE extern
#endif

/* A kernel's entry point. */
typedef aclError (*aclHostKernel)(uint32_t numBlocks, void *args, size_t argsSize);

/* Defines an exported kernel: ACL_HOST_KERNEL(add)(uint32_t numBlocks, void *args,
 * size_t argsSize) { ... } */
#define ACL_HOST_KERNEL(name) \
    ACL_HOST_KERNEL_LINKAGE __attribute__((visibility("default"))) aclError name

/* Defines the exported access declaration of kernel `name`:
 * ACL_HOST_KERNEL_ACCESSES(add)(const void *args, size_t argsSize, aclxMemAccess *accesses,
 * size_t capacity) { ... return count; } */
#define ACL_HOST_KERNEL_ACCESSES(name) \
    ACL_HOST_KERNEL_LINKAGE __attribute__((visibility("default"))) size_t aclHostKernelAccesses_##name

/* Defines the exported parameter declaration of kernel `name`: the sizes of its parameters in
 * order, ended by a 0 the macro adds. */
#define ACL_HOST_KERNEL_PARAMS(name, ...)                                                        \
    ACL_HOST_KERNEL_DATA_LINKAGE __attribute__((visibility("default"))) const size_t             \
        aclHostKernelParams_##name[];                                                            \
    const size_t aclHostKernelParams_##name[] = {__VA_ARGS__, 0}

/* The prefix of the parameter declaration's symbol. */
#define ACL_HOST_KERNEL_PARAMS_PREFIX "aclHostKernelParams_"

/* The prefix of the access declaration's symbol. */
#define ACL_HOST_KERNEL_ACCESSES_PREFIX "aclHostKernelAccesses_"

#endif /* ACLRT_ACL_HOST_KERNEL_H_ */
