/*
 * Handling device task failures: an exception callback reports which task failed where, the
 * stream's synchronise returns the error, and ACL_STOP_ON_FAILURE stops a stream for good.
 *
 * Build: gcc exception_handling.c $(pkg-config --cflags --libs ascendcl) -o exception_handling
 */
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

static int g_reports;

static void exception_callback(aclrtExceptionInfo *info)
{
    g_reports++;
    printf("  exception: task %u on stream %u, device %u, submitted by thread %u, error %u\n",
           aclrtGetTaskIdFromExceptionInfo(info), aclrtGetStreamIdFromExceptionInfo(info),
           aclrtGetDeviceIdFromExceptionInfo(info), aclrtGetThreadIdFromExceptionInfo(info),
           aclrtGetErrorCodeFromExceptionInfo(info));
}

/* A kernel that validates its input and fails the task when it is bad. */
static aclError checked_kernel(void *p)
{
    int value = *(int *)p;
    return value >= 0 ? ACL_SUCCESS : ACL_ERROR_RT_AICORE_EXCEPTION;
}

int main(void)
{
    aclrtStream stream, strict;
    aclrtContext device_ctx;
    int good = 1, bad = -1;
    aclError ret;

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    CHECK_ACL(aclrtGetCurrentContext(&device_ctx));
    CHECK_ACL(aclrtSetExceptionInfoCallback(exception_callback));

    /* Default mode: the failure is reported, later tasks still run. */
    CHECK_ACL(aclrtCreateStream(&stream));
    CHECK_ACL(aclxLaunchHostKernel(stream, checked_kernel, &good, "checked"));
    CHECK_ACL(aclxLaunchHostKernel(stream, checked_kernel, &bad, "checked"));
    CHECK_ACL(aclxLaunchHostKernel(stream, checked_kernel, &good, "checked"));
    ret = aclrtSynchronizeStream(stream);
    printf("continue mode: synchronise returned %d (%s)\n", ret,
           ret == ACL_ERROR_RT_AICORE_EXCEPTION ? "the kernel's error" : "unexpected");
    if (ret != ACL_ERROR_RT_AICORE_EXCEPTION) {
        return 1;
    }
    CHECK_ACL(aclrtSynchronizeStream(stream));

    /* Stop mode, in its own context: the first failure stops the context's streams. */
    {
        aclrtContext ctx;
        CHECK_ACL(aclrtCreateContext(&ctx, 0));
        CHECK_ACL(aclrtCreateStream(&strict));
        CHECK_ACL(aclrtSetStreamFailureMode(strict, ACL_STOP_ON_FAILURE));
        CHECK_ACL(aclxLaunchHostKernel(strict, checked_kernel, &bad, "checked"));
        ret = aclrtSynchronizeStream(strict);
        printf("stop mode: synchronise returned %d\n", ret);
        ret = aclxLaunchHostKernel(strict, checked_kernel, &good, "checked");
        printf("stop mode: a new launch returned %d (%s)\n", ret,
               ret == ACL_ERROR_RT_STREAM_ABORT ? "refused" : "unexpected");
        if (ret != ACL_ERROR_RT_STREAM_ABORT) {
            return 1;
        }
        CHECK_ACL(aclrtDestroyContext(ctx));
    }

    CHECK_ACL(aclrtSetCurrentContext(device_ctx));
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtSetExceptionInfoCallback(NULL));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    if (g_reports != 2) {
        fprintf(stderr, "expected 2 exception reports, saw %d\n", g_reports);
        return 1;
    }
    printf("exception_handling: 2 failures reported to the callback\n");
    return 0;
}
