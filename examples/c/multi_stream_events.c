/*
 * Multi-stream pipeline with events: one stream uploads and preprocesses a batch, two compute
 * streams wait on its event and work in parallel, and the host waits on each result event.
 *
 * Build: gcc multi_stream_events.c $(pkg-config --cflags --libs ascendcl) -o multi_stream_events
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#define N 4096

struct scale_args {
    float *data;
    size_t count;
    float factor;
};

/* Stand-in for a device kernel: scales a buffer in place. */
static aclError scale_kernel(void *p)
{
    struct scale_args *a = (struct scale_args *)p;
    for (size_t i = 0; i < a->count; i++) {
        a->data[i] *= a->factor;
    }
    return ACL_SUCCESS;
}

int main(void)
{
    aclrtStream upload, compute[2];
    aclrtEvent uploaded, done[2];
    float *host_in, *host_out, *dev;
    struct scale_args pre, half[2];
    int i;

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    CHECK_ACL(aclrtCreateStream(&upload));
    for (i = 0; i < 2; i++) {
        CHECK_ACL(aclrtCreateStream(&compute[i]));
        CHECK_ACL(aclrtCreateEventExWithFlag(&done[i], ACL_EVENT_SYNC));
    }
    CHECK_ACL(aclrtCreateEventExWithFlag(&uploaded, ACL_EVENT_SYNC));

    CHECK_ACL(aclrtMallocHost((void **)&host_in, N * sizeof(float)));
    CHECK_ACL(aclrtMallocHost((void **)&host_out, N * sizeof(float)));
    CHECK_ACL(aclrtMalloc((void **)&dev, N * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    for (i = 0; i < N; i++) {
        host_in[i] = (float)i;
    }

    /* Upload and preprocess (x2) on the upload stream, then mark the batch ready. */
    CHECK_ACL(aclrtMemcpyAsync(dev, N * sizeof(float), host_in, N * sizeof(float),
                               ACL_MEMCPY_HOST_TO_DEVICE, upload));
    pre = (struct scale_args){dev, N, 2.0f};
    CHECK_ACL(aclxLaunchHostKernel(upload, scale_kernel, &pre, "preprocess"));
    CHECK_ACL(aclrtRecordEvent(uploaded, upload));

    /* Each compute stream waits for the batch, then scales its half (x3) and downloads it. */
    for (i = 0; i < 2; i++) {
        half[i] = (struct scale_args){dev + i * (N / 2), N / 2, 3.0f};
        CHECK_ACL(aclrtStreamWaitEvent(compute[i], uploaded));
        CHECK_ACL(aclxLaunchHostKernel(compute[i], scale_kernel, &half[i], "scale"));
        CHECK_ACL(aclrtMemcpyAsync(host_out + i * (N / 2), (N / 2) * sizeof(float),
                                   dev + i * (N / 2), (N / 2) * sizeof(float),
                                   ACL_MEMCPY_DEVICE_TO_HOST, compute[i]));
        CHECK_ACL(aclrtRecordEvent(done[i], compute[i]));
    }
    for (i = 0; i < 2; i++) {
        CHECK_ACL(aclrtSynchronizeEvent(done[i]));
    }

    for (i = 0; i < N; i++) {
        if (host_out[i] != 6.0f * (float)i) {
            fprintf(stderr, "mismatch at %d: %f\n", i, host_out[i]);
            return 1;
        }
    }

    CHECK_ACL(aclrtFree(dev));
    CHECK_ACL(aclrtFreeHost(host_in));
    CHECK_ACL(aclrtFreeHost(host_out));
    CHECK_ACL(aclrtDestroyEvent(uploaded));
    for (i = 0; i < 2; i++) {
        CHECK_ACL(aclrtDestroyEvent(done[i]));
        CHECK_ACL(aclrtDestroyStream(compute[i]));
    }
    CHECK_ACL(aclrtDestroyStream(upload));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    printf("multi_stream_events: %d values processed by 3 streams, all correct\n", N);
    return 0;
}
