/*
 * A callback reads device memory with aclrtMemcpy while the stream goes on to overwrite it.
 * ACL_CALLBACK_NO_BLOCK lets the stream run on at once; ACL_CALLBACK_BLOCK holds later tasks
 * until the callback returned.
 * expect: race write@B read@A
 */
#include <pthread.h>

#include "common.h"

static volatile int g_stop;
static volatile int g_ran;
static void *g_dev;

static void *reporter(void *arg)
{
    (void)arg;
    while (!g_stop) {
        (void)aclrtProcessReport(10);
    }
    return NULL;
}

static void on_done(void *arg)
{
    static char out[N];
    (void)arg;
    OK(aclrtMemcpy(out, N, g_dev, N, ACL_MEMCPY_DEVICE_TO_HOST)); /* @A */
    g_ran = 1;
}

int main(int argc, char **argv)
{
    int bad = racy(argc, argv);
    aclrtStream s;
    pthread_t t;
    start();
    OK(aclrtCreateStream(&s));
    OK(aclrtMalloc(&g_dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    if (pthread_create(&t, NULL, reporter, NULL) != 0) {
        return 1;
    }
    OK(aclrtSubscribeReport((uint64_t)t, s));
    OK(aclrtMemsetAsync(g_dev, N, 1, N, s));
    OK(aclrtLaunchCallback(on_done, NULL, bad ? ACL_CALLBACK_NO_BLOCK : ACL_CALLBACK_BLOCK, s));
    OK(aclrtMemsetAsync(g_dev, N, 2, N, s)); /* @B */
    OK(aclrtSynchronizeStream(s));
    /* A NO_BLOCK callback may not have run yet: wait for it before stopping the reporter. */
    while (!g_ran) {
    }
    g_stop = 1;
    pthread_join(t, NULL);
    OK(aclrtUnSubscribeReport((uint64_t)t, s));
    OK(aclrtFree(g_dev));
    OK(aclrtDestroyStream(s));
    finish();
    return 0;
}
