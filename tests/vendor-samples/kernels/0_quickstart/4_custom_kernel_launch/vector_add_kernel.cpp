// Host stand-in of VectorAddDo: dst[i] = srcA[i] + alpha * srcB[i]. Returns the launch's status,
// as the <<<>>> launch does.
#include "acl/acl.h"
#include "../../kernel_func/aclrt_host_kernel.h"
#include "vector_add_kernel.h"

namespace {
struct Args {
    float *a;
    float *b;
    float *dst;
    float alpha;
    uint32_t n;
};
aclError Block(const Args &a, uint32_t, uint32_t)
{
    for (uint32_t i = 0; i < a.n; ++i) {
        a.dst[i] = a.a[i] + a.alpha * a.b[i];
    }
    return ACL_SUCCESS;
}
} // namespace

int32_t VectorAddDo(
    uint32_t blockDim, void *stream, float *srcA, float *srcB, float *dst, float alpha, uint32_t elementCount)
{
    // Every block of the device kernel computes the whole vector; one pass gives the same result.
    return static_cast<int32_t>(aclrt_samples::LaunchBlocks(
        "VectorAddKernel", blockDim == 0 ? 0 : 1, stream, Args{srcA, srcB, dst, alpha, elementCount}, Block));
}
