/*
 * Host callbacks served by a dedicated report thread: the usual ACL pattern of
 * aclrtSubscribeReport + a thread looping on aclrtProcessReport, with callbacks that post-process
 * results as each batch finishes on the stream.
 *
 * Build: gcc callback_thread.c $(pkg-config --cflags --libs ascendcl) -lpthread -o callback_thread
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "acl/acl.h"
#include "acl/acl_ext.h"

#define CHECK_ACL(call)                                                                   \
    do {                                                                                  \
        aclError ret_ = (call);                                                           \
        if (ret_ != ACL_SUCCESS) {                                                        \
            const char *msg_ = aclGetRecentErrMsg();                                      \
            fprintf(stderr, "%s failed: %d (%s)\n", #call, ret_, msg_ ? msg_ : "-");     \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

#define BATCHES 8

static volatile int g_exit;
static pthread_t g_report_tid;
static int g_wrong_thread;

struct batch {
    int index;
    long sum;
    int checked;
};

static void *report_thread(void *arg)
{
    (void)arg;
    while (!g_exit) {
        /* Returns ACL_ERROR_RT_REPORT_TIMEOUT when nothing was due: just poll again. */
        (void)aclrtProcessReport(100);
    }
    return NULL;
}

static aclError compute_batch(void *p)
{
    struct batch *b = (struct batch *)p;
    b->sum = 0;
    for (int i = 0; i <= 1000 * (b->index + 1); i++) {
        b->sum += i;
    }
    return ACL_SUCCESS;
}

static void on_batch_done(void *user_data)
{
    struct batch *b = (struct batch *)user_data;
    long n = 1000L * (b->index + 1);
    if (!pthread_equal(pthread_self(), g_report_tid)) {
        g_wrong_thread++;
    }
    b->checked = (b->sum == n * (n + 1) / 2);
}

int main(void)
{
    aclrtStream stream;
    struct batch batches[BATCHES];
    int i, ok = 0;

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    CHECK_ACL(aclrtCreateStream(&stream));

    if (pthread_create(&g_report_tid, NULL, report_thread, NULL) != 0) {
        return 1;
    }
    CHECK_ACL(aclrtSubscribeReport((uint64_t)g_report_tid, stream));

    for (i = 0; i < BATCHES; i++) {
        batches[i] = (struct batch){i, 0, 0};
        CHECK_ACL(aclxLaunchHostKernel(stream, compute_batch, &batches[i], "compute_batch"));
        CHECK_ACL(aclrtLaunchCallback(on_batch_done, &batches[i], ACL_CALLBACK_BLOCK, stream));
    }
    CHECK_ACL(aclrtSynchronizeStream(stream));

    g_exit = 1;
    pthread_join(g_report_tid, NULL);
    CHECK_ACL(aclrtUnSubscribeReport((uint64_t)g_report_tid, stream));

    for (i = 0; i < BATCHES; i++) {
        ok += batches[i].checked;
    }
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    if (ok != BATCHES || g_wrong_thread) {
        fprintf(stderr, "callback_thread: %d of %d batches verified, %d on a wrong thread\n", ok,
                BATCHES, g_wrong_thread);
        return 1;
    }
    printf("callback_thread: %d batches verified by callbacks on the report thread\n", ok);
    return 0;
}
