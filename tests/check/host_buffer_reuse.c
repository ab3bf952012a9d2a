/*
 * A staging buffer is refilled for the next batch while the asynchronous copy of the previous
 * batch may still be reading it: the host must synchronise the stream first.
 * expect: race read@A write@B
 */
#include "common.h"

int main(int argc, char **argv)
{
    int bad = racy(argc, argv);
    aclrtStream s;
    void *dev;
    char *staging = malloc(N);
    start();
    OK(aclrtCreateStream(&s));
    OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemset(staging, N, 1, N));
    OK(aclrtMemcpyAsync(dev, N, staging, N, ACL_MEMCPY_HOST_TO_DEVICE, s)); /* @A */
    if (!bad) {
        OK(aclrtSynchronizeStream(s));
    }
    OK(aclrtMemset(staging, N, 2, N)); /* @B */
    OK(aclrtSynchronizeStream(s));
    OK(aclrtFree(dev));
    OK(aclrtDestroyStream(s));
    finish();
    free(staging);
    return 0;
}
