// Host stand-ins of WriteDo and ReadDo: each block writes value to, or reads, devPtr[blockIdx]
// and prints it, as the device kernels do with their printf (flushed when the kernel ends).
#include <cstdio>

#include "aclrt_host_kernel.h"

namespace {
struct WriteArgs {
    int *ptr;
    int value;
};
aclError WriteBlock(const WriteArgs &a, uint32_t idx, uint32_t)
{
    a.ptr[idx] = a.value;
    std::printf("Source data: %d\n", a.value);
    std::fflush(stdout);
    return ACL_SUCCESS;
}
struct ReadArgs {
    int *ptr;
};
aclError ReadBlock(const ReadArgs &a, uint32_t idx, uint32_t)
{
    std::printf("Destination data: %d\n", a.ptr[idx]);
    std::fflush(stdout);
    return ACL_SUCCESS;
}
} // namespace

void WriteDo(uint32_t blockDim, void *stream, int *devPtr, int value)
{
    aclrt_samples::LaunchBlocks("DeviceWrite", blockDim, stream, WriteArgs{devPtr, value}, WriteBlock);
}

void ReadDo(uint32_t blockDim, void *stream, int *devPtr)
{
    aclrt_samples::LaunchBlocks("DeviceRead", blockDim, stream, ReadArgs{devPtr}, ReadBlock);
}
