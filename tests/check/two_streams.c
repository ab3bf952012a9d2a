/*
 * A copy on one stream reads what a set on another stream writes. Streams are independent:
 * only an event recorded after the set, waited on by the reading stream, orders them.
 * expect: race write@A read@B
 */
#include "common.h"

int main(int argc, char **argv)
{
    int bad = racy(argc, argv);
    aclrtStream a, b;
    aclrtEvent ev;
    void *dev;
    static char out[N];
    start();
    OK(aclrtCreateStream(&a));
    OK(aclrtCreateStream(&b));
    OK(aclrtCreateEvent(&ev));
    OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemsetAsync(dev, N, 7, N, a)); /* @A */
    if (!bad) {
        OK(aclrtRecordEvent(ev, a));
        OK(aclrtStreamWaitEvent(b, ev));
    }
    OK(aclrtMemcpyAsync(out, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST, b)); /* @B */
    OK(aclrtSynchronizeDevice());
    OK(aclrtFree(dev));
    OK(aclrtDestroyEvent(ev));
    OK(aclrtDestroyStream(a));
    OK(aclrtDestroyStream(b));
    finish();
    return 0;
}
