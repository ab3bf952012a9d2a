/*
 * Host stand-ins for the device kernels of the vendor's runtime samples.
 *
 * A sample's kernel library (ascendc_library) exports host wrappers such as
 * EasyOP(blockDim, stream, x) that launch a device kernel with <<<blockDim, nullptr, stream>>>.
 * Here the same wrappers queue a host kernel on the stream (aclxLaunchHostKernel): it runs in
 * stream order on the emulated device and touches device memory through its host address.
 * Each block of the launch runs in turn, with its block index, as the device's cores would in
 * parallel. A kernel that returns an error fails its task as a device fault would.
 */
#ifndef ACLRT_VENDOR_SAMPLES_HOST_KERNEL_H_
#define ACLRT_VENDOR_SAMPLES_HOST_KERNEL_H_

#include <cstdint>
#include <new>

#include "acl/acl.h"
#include "acl/acl_ext.h"

namespace aclrt_samples {

// The arguments of one launch: owned by the queued task, freed when it has run.
template <typename Args>
struct Launch {
    uint32_t blocks;
    Args args;
    aclError (*block)(const Args &, uint32_t blockIdx, uint32_t blockNum);
};

template <typename Args>
aclError RunBlocks(void *p)
{
    auto *launch = static_cast<Launch<Args> *>(p);
    aclError ret = ACL_SUCCESS;
    for (uint32_t b = 0; b < launch->blocks && ret == ACL_SUCCESS; ++b) {
        ret = launch->block(launch->args, b, launch->blocks);
    }
    delete launch;
    return ret;
}

// Queues block(args, i, blockDim) for i in [0, blockDim) on stream (NULL: the default stream).
template <typename Args>
aclError LaunchBlocks(const char *name, uint32_t blockDim, void *stream, const Args &args,
                      aclError (*block)(const Args &, uint32_t, uint32_t))
{
    auto *launch = new (std::nothrow) Launch<Args>{blockDim, args, block};
    if (launch == nullptr) {
        return ACL_ERROR_BAD_ALLOC;
    }
    aclError ret = aclxLaunchHostKernel(static_cast<aclrtStream>(stream), RunBlocks<Args>, launch, name);
    if (ret != ACL_SUCCESS) {
        delete launch; // not queued: the task will not free it
    }
    return ret;
}

} // namespace aclrt_samples

#endif // ACLRT_VENDOR_SAMPLES_HOST_KERNEL_H_
