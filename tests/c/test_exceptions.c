/* The exception callback with failing host kernels: what the info carries, the getters' NULL
 * and stale-pointer paths, last-call-wins, clearing, and stop-on-failure. */
#include "check.h"

struct seen {
    int calls;
    uint32_t task, stream, thread, device, code;
    const aclrtExceptionInfo *info;
    pthread_t on;
};

static struct seen g_seen;
static int g_other_calls;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_exception(aclrtExceptionInfo *info)
{
    pthread_mutex_lock(&g_lock);
    g_seen.calls++;
    g_seen.task = aclrtGetTaskIdFromExceptionInfo(info);
    g_seen.stream = aclrtGetStreamIdFromExceptionInfo(info);
    g_seen.thread = aclrtGetThreadIdFromExceptionInfo(info);
    g_seen.device = aclrtGetDeviceIdFromExceptionInfo(info);
    g_seen.code = aclrtGetErrorCodeFromExceptionInfo(info);
    g_seen.info = info;
    g_seen.on = pthread_self();
    pthread_mutex_unlock(&g_lock);
}

static void other_callback(aclrtExceptionInfo *info)
{
    (void)info;
    __atomic_add_fetch(&g_other_calls, 1, __ATOMIC_SEQ_CST);
}

static aclError ok_kernel(void *args)
{
    (void)args;
    return ACL_SUCCESS;
}

int main(void)
{
    aclrtStream s = NULL;
    int32_t sid = -1;
    aclError code = ACL_ERROR_RT_AICORE_EXCEPTION;
    aclError custom = 123456;

    REQUIRE_OK(aclxConfigureDevices(2, 1 << 30));
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&s));
    REQUIRE_OK(aclrtStreamGetId(s, &sid));

    /* Getters outside a callback: NULL and made-up pointers read as "no info". */
    EXPECT_CODE(aclrtGetTaskIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    EXPECT_CODE(aclrtGetStreamIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    EXPECT_CODE(aclrtGetThreadIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    EXPECT_CODE(aclrtGetDeviceIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    EXPECT_CODE(aclrtGetErrorCodeFromExceptionInfo(NULL), 0xFFFFFFFFu);
    EXPECT_CODE(aclrtGetErrorCodeFromExceptionInfo((const aclrtExceptionInfo *)&sid), 0xFFFFFFFFu);
    EXPECT_CODE(aclrtGetTaskIdFromExceptionInfo((const aclrtExceptionInfo *)(uintptr_t)0xdeadbeef),
                0xFFFFFFFFu);

    /* A failing kernel: task 2 on stream s, submitted by this thread. */
    EXPECT_OK(aclrtSetExceptionInfoCallback(on_exception));
    EXPECT_OK(aclxLaunchHostKernel(s, ok_kernel, NULL, "ok0"));
    EXPECT_OK(aclxLaunchHostKernel(s, ok_kernel, NULL, "ok1"));
    EXPECT_OK(aclxLaunchHostKernel(s, failing_kernel, &code, "bad"));
    EXPECT_CODE(aclrtSynchronizeStream(s), code);
    pthread_mutex_lock(&g_lock);
    CHECK(g_seen.calls == 1);
    CHECK(g_seen.task == 2);
    CHECK(g_seen.stream == (uint32_t)sid);
    CHECK(g_seen.thread == os_tid());
    CHECK(g_seen.device == 0);
    CHECK(g_seen.code == (uint32_t)code);
    CHECK(!pthread_equal(g_seen.on, pthread_self()));
    pthread_mutex_unlock(&g_lock);
    /* The info pointer is dead once the callback returned. */
    EXPECT_CODE(aclrtGetTaskIdFromExceptionInfo(g_seen.info), 0xFFFFFFFFu);

    /* Any non-zero kernel result is the task's error code, on the default stream too. */
    {
        int32_t def_id = -1;
        REQUIRE_OK(aclrtStreamGetId(NULL, &def_id));
        EXPECT_OK(aclxLaunchHostKernel(NULL, failing_kernel, &custom, NULL));
        EXPECT_CODE(aclrtSynchronizeStream(NULL), custom);
        CHECK(g_seen.calls == 2 && g_seen.code == (uint32_t)custom);
        CHECK(g_seen.stream == (uint32_t)def_id && g_seen.task == 0);
    }

    /* Last call wins; NULL clears. */
    EXPECT_OK(aclrtSetExceptionInfoCallback(other_callback));
    EXPECT_OK(aclxLaunchHostKernel(s, failing_kernel, &code, "bad"));
    EXPECT_CODE(aclrtSynchronizeStream(s), code);
    CHECK(g_other_calls == 1 && g_seen.calls == 2);
    EXPECT_OK(aclrtSetExceptionInfoCallback(NULL));
    EXPECT_OK(aclxLaunchHostKernel(s, failing_kernel, &code, "bad"));
    EXPECT_CODE(aclrtSynchronizeStream(s), code);
    CHECK(g_other_calls == 1 && g_seen.calls == 2);

    /* Stop on failure: the callback fires once, the stream reports the failure and refuses. */
    EXPECT_OK(aclrtSetExceptionInfoCallback(on_exception));
    {
        aclrtContext ctx = NULL;
        aclrtStream st = NULL;
        int32_t st_id = -1;
        REQUIRE_OK(aclrtCreateContext(&ctx, 1));
        REQUIRE_OK(aclrtCreateStream(&st));
        REQUIRE_OK(aclrtStreamGetId(st, &st_id));
        EXPECT_OK(aclrtSetStreamFailureMode(st, ACL_STOP_ON_FAILURE));
        EXPECT_OK(aclxLaunchHostKernel(st, failing_kernel, &code, "bad"));
        EXPECT_CODE(aclrtSynchronizeStream(st), code);
        CHECK(g_seen.calls == 3 && g_seen.device == 1 && g_seen.stream == (uint32_t)st_id);
        EXPECT_CODE(aclxLaunchHostKernel(st, ok_kernel, NULL, "refused"), ACL_ERROR_RT_STREAM_ABORT);
        EXPECT_CODE(aclrtSynchronizeDevice(), code);
        EXPECT_OK(aclrtDestroyContext(ctx));
    }
    /* A stream-wait timeout is a task failure too. */
    {
        aclrtEvent ev = NULL;
        aclrtStream waiter = NULL;
        gate_t gate = GATE_INIT; /* holds the record until the wait has timed out */
        REQUIRE_OK(aclrtSetDevice(0));
        REQUIRE_OK(aclrtCreateStream(&waiter));
        REQUIRE_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
        EXPECT_OK(aclxLaunchHostKernel(s, gate_kernel, &gate, "gate"));
        EXPECT_OK(aclrtRecordEvent(ev, s));
        EXPECT_OK(aclrtStreamWaitEventWithTimeout(waiter, ev, 10));
        EXPECT_CODE(aclrtSynchronizeStream(waiter), ACL_ERROR_RT_TASK_TIMEOUT);
        CHECK(g_seen.calls == 4 && g_seen.code == (uint32_t)ACL_ERROR_RT_TASK_TIMEOUT);
        gate_open(&gate);
        EXPECT_OK(aclrtSynchronizeStream(s));
        EXPECT_OK(aclrtDestroyEvent(ev));
        EXPECT_OK(aclrtDestroyStream(waiter));
        EXPECT_OK(aclrtResetDevice(0));
    }

    EXPECT_OK(aclrtSetExceptionInfoCallback(NULL));
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    expect_no_live_objects();
    return finish("test_exceptions");
}
