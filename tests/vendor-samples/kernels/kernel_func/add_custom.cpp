// Host stand-in of the add_custom kernel binary (ascendc_fatbin_library): z = x + y in half
// precision over 8 * 2048 elements, each of the 8 blocks adding its 2048. The program loads the
// built library with aclrtBinaryLoadFromFile and launches "add_custom" with the three pointers.
#include <cstring>

#include "acl/acl_host_kernel.h"
#include "aclrt_half.h"

namespace {
constexpr uint32_t kTotal = 8 * 2048;
constexpr uint32_t kCores = 8;
}

ACL_HOST_KERNEL(add_custom)(uint32_t numBlocks, void *args, size_t argsSize)
{
    uint16_t *p[3];
    if (argsSize != sizeof p) {
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    std::memcpy(p, args, sizeof p);
    const uint32_t per = kTotal / kCores;
    for (uint32_t b = 0; b < numBlocks && b < kCores; ++b) {
        for (uint32_t i = b * per; i < (b + 1) * per; ++i) {
            float sum = aclrt_samples::HalfToFloat(p[0][i]) + aclrt_samples::HalfToFloat(p[1][i]);
            p[2][i] = aclrt_samples::FloatToHalf(sum);
        }
    }
    return ACL_SUCCESS;
}
