// Host stand-in of PrintDo: each block prints one line, as the device kernel's printf does.
#include <cstdio>

#include "aclrt_host_kernel.h"

namespace {
struct Args {};
aclError Block(const Args &, uint32_t, uint32_t)
{
    std::printf("Hello World\n");
    std::fflush(stdout);
    return ACL_SUCCESS;
}
} // namespace

void PrintDo(uint32_t blockDim, void *stream)
{
    aclrt_samples::LaunchBlocks("KernelPrint", blockDim, stream, Args{}, Block);
}
