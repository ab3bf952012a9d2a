// Host stand-in of AddDo: dst = srcA + srcB (float), the elements split evenly over the blocks
// (totalSize / blockDim each, as the device kernel splits them).
#include "aclrt_host_kernel.h"

namespace {
struct Args {
    float *a;
    float *b;
    float *dst;
    uint32_t total;
};
aclError Block(const Args &a, uint32_t idx, uint32_t num)
{
    uint32_t per = a.total / num;
    for (uint32_t i = idx * per; i < (idx + 1) * per; ++i) {
        a.dst[i] = a.a[i] + a.b[i];
    }
    return ACL_SUCCESS;
}
} // namespace

void AddDo(uint32_t blockDim, void *stream, float *srcA, float *srcB, float *dst, uint32_t totalSize)
{
    if (blockDim == 0) {
        return;
    }
    aclrt_samples::LaunchBlocks("AddKernel", blockDim, stream, Args{srcA, srcB, dst, totalSize}, Block);
}
