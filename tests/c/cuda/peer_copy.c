/* Copies between two devices' memory without peer access enabled: CUDA's unified addressing
 * lets them through (staged by the host), where ACL refuses them until peer access is on. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

int main(void)
{
    CUcontext c0 = NULL, c1 = NULL;
    CUdeviceptr a = 0, b = 0;
    CUstream s = NULL;
    unsigned char host[64], back[64];
    int n = 0;

    setenv("ACLRT_DEVICE_COUNT", "2", 1);
    OK(cuInit(0));
    OK(cuDeviceGetCount(&n));
    ASSERT(n == 2);
    OK(cuDevicePrimaryCtxRetain(&c0, 0));
    OK(cuDevicePrimaryCtxRetain(&c1, 1));
    OK(cuCtxSetCurrent(c0));
    OK(cuMemAlloc(&a, sizeof host));
    for (int i = 0; i < 64; i++) {
        host[i] = (unsigned char)(i * 3 + 1);
    }
    OK(cuMemcpyHtoD(a, host, sizeof host));
    OK(cuCtxSetCurrent(c1));
    OK(cuMemAlloc(&b, sizeof host));
    /* Synchronous and stream-ordered, from the other device's context, no peer access. */
    OK(cuMemcpyDtoD(b, a, 32));
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(cuMemcpyDtoDAsync(b + 32, a + 32, 32, s));
    OK(cuStreamSynchronize(s));
    memset(back, 0, sizeof back);
    OK(cuMemcpyDtoH(back, b, sizeof back));
    ASSERT(memcmp(back, host, sizeof host) == 0);
    OK(cuStreamDestroy(s));
    OK(cuMemFree(b));
    OK(cuCtxSetCurrent(c0));
    OK(cuMemFree(a));
    OK(cuDevicePrimaryCtxRelease(0));
    OK(cuDevicePrimaryCtxRelease(1));
    puts("peer_copy: ok");
    return 0;
}
