// Host stand-in of the add_custom kernel binary with tiling arguments: z = x + y in half
// precision, the total length and tile count read from two int32 arguments in device memory
// (placeholders in the launch's argument list). The total splits over 8 cores; a tile count of 0
// computes nothing, as the device kernel does.
#include <cstring>

#include "acl/acl_host_kernel.h"
#include "aclrt_half.h"

namespace {
constexpr uint32_t kCores = 8;
}

ACL_HOST_KERNEL(add_custom)(uint32_t numBlocks, void *args, size_t argsSize)
{
    void *p[5];
    if (argsSize != sizeof p) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    std::memcpy(p, args, sizeof p);
    auto *x = static_cast<const uint16_t *>(p[0]);
    auto *y = static_cast<const uint16_t *>(p[1]);
    auto *z = static_cast<uint16_t *>(p[2]);
    int32_t total;
    int32_t tiles;
    std::memcpy(&total, p[3], sizeof total);
    std::memcpy(&tiles, p[4], sizeof tiles);
    if (tiles == 0 || total <= 0) {
        return ACL_SUCCESS;
    }
    const uint32_t per = static_cast<uint32_t>(total) / kCores;
    for (uint32_t b = 0; b < numBlocks && b < kCores; ++b) {
        for (uint32_t i = b * per; i < (b + 1) * per; ++i) {
            z[i] = aclrt_samples::FloatToHalf(aclrt_samples::HalfToFloat(x[i]) + aclrt_samples::HalfToFloat(y[i]));
        }
    }
    return ACL_SUCCESS;
}
