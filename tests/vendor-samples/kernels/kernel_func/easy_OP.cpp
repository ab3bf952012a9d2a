// Host stand-in of EasyOP: each block adds 1 to x[blockIdx].
#include "aclrt_host_kernel.h"

namespace {
struct Args {
    uint32_t *x;
};
aclError Block(const Args &a, uint32_t idx, uint32_t)
{
    a.x[idx] += 1;
    return ACL_SUCCESS;
}
} // namespace

void EasyOP(uint32_t blockDim, void *stream, uint32_t *x)
{
    aclrt_samples::LaunchBlocks("EasyOPf", blockDim, stream, Args{x}, Block);
}
