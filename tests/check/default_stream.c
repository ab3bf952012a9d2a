/*
 * ACL's default stream (NULL) does not synchronise with other streams, as CUDA's legacy
 * default stream would: work on it and on a created stream runs side by side.
 * expect: race write@A read@B
 */
#include "common.h"

int main(int argc, char **argv)
{
    int bad = racy(argc, argv);
    aclrtStream s;
    aclrtEvent ev;
    void *dev;
    static char out[N];
    start();
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateEvent(&ev));
    OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemsetAsync(dev, N, 1, N, NULL)); /* @A */
    if (!bad) {
        OK(aclrtRecordEvent(ev, NULL));
        OK(aclrtStreamWaitEvent(s, ev));
    }
    OK(aclrtMemcpyAsync(out, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST, s)); /* @B */
    OK(aclrtSynchronizeDevice());
    OK(aclrtFree(dev));
    OK(aclrtDestroyEvent(ev));
    OK(aclrtDestroyStream(s));
    finish();
    return 0;
}
