/*
 * The thread that serves a stream's callbacks synchronises the stream while a blocking callback
 * is queued on it: the callback waits for that thread to call aclrtProcessReport, the thread
 * waits for the stream. The fixed twin serves the callbacks from a thread of their own.
 * expect: deadlock
 */
#include <pthread.h>

#include "common.h"

static volatile int g_stop;

static void *reporter(void *arg)
{
    (void)arg;
    while (!g_stop) {
        (void)aclrtProcessReport(10);
    }
    return NULL;
}

static void nothing(void *arg)
{
    (void)arg;
}

int main(int argc, char **argv)
{
    int bad = racy(argc, argv);
    aclrtStream s;
    pthread_t t = pthread_self();
    start();
    OK(aclrtCreateStream(&s));
    if (!bad && pthread_create(&t, NULL, reporter, NULL) != 0) {
        return 1;
    }
    OK(aclrtSubscribeReport((uint64_t)t, s));
    OK(aclrtLaunchCallback(nothing, NULL, ACL_CALLBACK_BLOCK, s));
    OK(aclrtSynchronizeStream(s)); /* @A */
    if (!bad) {
        g_stop = 1;
        pthread_join(t, NULL);
    }
    OK(aclrtUnSubscribeReport((uint64_t)t, s));
    OK(aclrtDestroyStream(s));
    finish();
    return 0;
}
