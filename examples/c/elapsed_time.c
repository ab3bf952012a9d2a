/*
 * Timing device work with events: record a start and an end event around a kernel and read the
 * elapsed time, as ACL profiling code does.
 *
 * Build: gcc elapsed_time.c $(pkg-config --cflags --libs ascendcl) -o elapsed_time
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

/* A "kernel" that takes about *(int *)ms milliseconds. */
static aclError busy_kernel(void *p)
{
    int ms = *(int *)p;
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    return ACL_SUCCESS;
}

int main(void)
{
    aclrtStream stream;
    aclrtEvent start, end;
    int durations[3] = {10, 20, 40};
    float ms = 0.0f;
    uint64_t t0 = 0, t1 = 0;
    int i;

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    CHECK_ACL(aclrtCreateStream(&stream));
    /* aclrtCreateEvent events take timestamps and can be recorded again without a reset. */
    CHECK_ACL(aclrtCreateEvent(&start));
    CHECK_ACL(aclrtCreateEvent(&end));

    for (i = 0; i < 3; i++) {
        CHECK_ACL(aclrtRecordEvent(start, stream));
        CHECK_ACL(aclxLaunchHostKernel(stream, busy_kernel, &durations[i], "busy"));
        CHECK_ACL(aclrtRecordEvent(end, stream));
        CHECK_ACL(aclrtSynchronizeEvent(end));
        CHECK_ACL(aclrtEventElapsedTime(&ms, start, end));
        CHECK_ACL(aclrtEventGetTimestamp(start, &t0));
        CHECK_ACL(aclrtEventGetTimestamp(end, &t1));
        printf("kernel of %d ms: elapsed %.3f ms (timestamps %llu -> %llu us)\n", durations[i], ms,
               (unsigned long long)t0, (unsigned long long)t1);
        if (ms < (float)durations[i]) {
            fprintf(stderr, "elapsed time shorter than the kernel\n");
            return 1;
        }
    }

    CHECK_ACL(aclrtDestroyEvent(start));
    CHECK_ACL(aclrtDestroyEvent(end));
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    printf("elapsed_time: 3 kernels timed\n");
    return 0;
}
