// Host stand-in of ShortOP: each block doubles x[blockIdx].
#include "aclrt_host_kernel.h"

namespace {
struct Args {
    uint32_t *x;
};
aclError Block(const Args &a, uint32_t idx, uint32_t)
{
    a.x[idx] *= 2;
    return ACL_SUCCESS;
}
} // namespace

void ShortOP(uint32_t blockDim, void *stream, uint32_t *x)
{
    aclrt_samples::LaunchBlocks("ShortOPf", blockDim, stream, Args{x}, Block);
}
