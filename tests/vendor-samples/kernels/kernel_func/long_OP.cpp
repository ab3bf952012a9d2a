// Host stand-in of LongOP: a kernel that runs for over a second, then adds 1 to x[blockIdx].
// The samples rely on its length: they wait on it with 1000 ms timeouts and query streams and
// events while it runs, so the stand-in keeps the device busy for 2000 ms per launch, well
// past those timeouts even on a loaded machine.
#include <chrono>
#include <thread>

#include "aclrt_host_kernel.h"

namespace {
struct Args {
    uint32_t *x;
};
aclError Block(const Args &a, uint32_t idx, uint32_t)
{
    if (idx == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2000));
    }
    a.x[idx] += 1;
    return ACL_SUCCESS;
}
} // namespace

void LongOP(uint32_t blockDim, void *stream, uint32_t *x)
{
    aclrt_samples::LaunchBlocks("LongOPf", blockDim, stream, Args{x}, Block);
}
