// Host stand-in of ErrorOP: the kernel traps, which the device reports as a vector core
// exception (507035).
#include "aclrt_host_kernel.h"

namespace {
struct Args {};
aclError Block(const Args &, uint32_t, uint32_t) { return ACL_ERROR_RT_VECTOR_CORE_EXCEPTION; }
} // namespace

void ErrorOP(uint32_t blockDim, void *stream)
{
    aclrt_samples::LaunchBlocks("ErrorOPf", blockDim, stream, Args{}, Block);
}
