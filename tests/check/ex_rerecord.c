/*
 * An aclrtCreateEventExWithFlag event's wait uses the record current when the wait is queued.
 * Recording the event again after the wait was queued does not move the wait: the consumer
 * kernel is not ordered after the producer. Both kernels declare what they touch.
 * expect: race write@A read@B
 */
#include "common.h"

static aclError produce(void *p)
{
    memset(p, 3, N);
    return ACL_SUCCESS;
}

static aclError consume(void *p)
{
    volatile char *c = p;
    return c[0] == 3 || c[0] == 0 ? ACL_SUCCESS : 1;
}

int main(int argc, char **argv)
{
    int bad = racy(argc, argv);
    aclrtStream a, b;
    aclrtEvent ev;
    void *dev;
    start();
    OK(aclrtCreateStream(&a));
    OK(aclrtCreateStream(&b));
    OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
    OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    aclxMemAccess w = {dev, N, ACLX_ACCESS_WRITE};
    aclxMemAccess r = {dev, N, ACLX_ACCESS_READ};
    OK(aclrtRecordEvent(ev, a));
    if (bad) {
        OK(aclrtStreamWaitEvent(b, ev)); /* takes the record above, before the producer */
    }
    OK(aclxLaunchHostKernelWithAccess(a, produce, dev, "produce", &w, 1)); /* @A */
    OK(aclrtRecordEvent(ev, a));
    if (!bad) {
        OK(aclrtStreamWaitEvent(b, ev));
    }
    OK(aclxLaunchHostKernelWithAccess(b, consume, dev, "consume", &r, 1)); /* @B */
    OK(aclrtSynchronizeDevice());
    OK(aclrtFree(dev));
    OK(aclrtDestroyEvent(ev));
    OK(aclrtDestroyStream(a));
    OK(aclrtDestroyStream(b));
    finish();
    return 0;
}
