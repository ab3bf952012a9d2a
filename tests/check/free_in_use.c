/*
 * aclrtFree does not wait for tasks: freeing memory a queued copy still writes is the
 * program's mistake. Synchronise the stream first.
 * expect: free_while_in_use write@A free@B
 */
#include "common.h"

int main(int argc, char **argv)
{
    int bad = racy(argc, argv);
    aclrtStream s;
    void *dev;
    static char in[N];
    start();
    OK(aclrtCreateStream(&s));
    OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemcpyAsync(dev, N, in, N, ACL_MEMCPY_HOST_TO_DEVICE, s)); /* @A */
    if (!bad) {
        OK(aclrtSynchronizeStream(s));
    }
    OK(aclrtFree(dev)); /* @B */
    OK(aclrtSynchronizeStream(s));
    OK(aclrtDestroyStream(s));
    finish();
    return 0;
}
