/* Events of each creation family through the C ABI: status queries, records, resets, waits
 * (cross-stream, before the record), timestamps, elapsed time, timeouts, ids, resources. */
#include "check.h"

static int g_order[8];
static int g_order_len;
static pthread_mutex_t g_order_lock = PTHREAD_MUTEX_INITIALIZER;

struct step {
    int id;
    int sleep;
};

static aclError logging_kernel(void *args)
{
    struct step *s = (struct step *)args;
    sleep_ms(s->sleep);
    pthread_mutex_lock(&g_order_lock);
    g_order[g_order_len++] = s->id;
    pthread_mutex_unlock(&g_order_lock);
    return ACL_SUCCESS;
}

static void default_family(aclrtStream a)
{
    aclrtEvent ev = NULL, start = NULL, end = NULL;
    aclrtEventStatus st = ACL_EVENT_STATUS_RESERVED;
    aclrtEventRecordedStatus rs = ACL_EVENT_RECORDED_STATUS_COMPLETE;
    aclrtEventWaitStatus ws = ACL_EVENT_WAIT_STATUS_RESERVED;
    float ms = -1;
    uint64_t t0 = 0, t1 = 0;
    int sleep = 30;

    REQUIRE_OK(aclrtCreateEvent(&ev));
    /* Before the first record. */
    EXPECT_OK(aclrtQueryEvent(ev, &st));
    CHECK(st == ACL_EVENT_STATUS_COMPLETE);
    EXPECT_OK(aclrtQueryEventStatus(ev, &rs));
    CHECK(rs == ACL_EVENT_RECORDED_STATUS_NOT_READY);
    EXPECT_OK(aclrtQueryEventWaitStatus(ev, &ws));
    CHECK(ws == ACL_EVENT_WAIT_STATUS_COMPLETE);
    EXPECT_OK(aclrtSynchronizeEvent(ev));
    EXPECT_CODE(aclrtStreamWaitEvent(a, ev), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtEventGetTimestamp(ev, &t0), ACL_ERROR_RT_INTERNAL_ERROR);

    /* Recorded behind a kernel held at a gate: pending, then complete. */
    gate_t gate = GATE_INIT;
    REQUIRE_OK(aclxLaunchHostKernel(a, gate_kernel, &gate, "gate"));
    REQUIRE_OK(aclrtRecordEvent(ev, a));
    EXPECT_OK(aclrtQueryEventStatus(ev, &rs));
    CHECK(rs == ACL_EVENT_RECORDED_STATUS_NOT_READY);
    EXPECT_OK(aclrtQueryEvent(ev, &st));
    CHECK(st == ACL_EVENT_STATUS_NOT_READY);
    EXPECT_CODE(aclrtEventGetTimestamp(ev, &t0), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    EXPECT_CODE(aclrtSynchronizeEventWithTimeout(ev, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtSynchronizeEventWithTimeout(ev, -2), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtSynchronizeEventWithTimeout(ev, 1), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    gate_open(&gate);
    EXPECT_OK(aclrtSynchronizeEventWithTimeout(ev, -1));
    EXPECT_OK(aclrtQueryEventStatus(ev, &rs));
    CHECK(rs == ACL_EVENT_RECORDED_STATUS_COMPLETE);
    EXPECT_OK(aclrtEventGetTimestamp(ev, &t0));
    CHECK(t0 > 0);

    /* Elapsed time between two records around a 30 ms kernel. */
    REQUIRE_OK(aclrtCreateEvent(&start));
    REQUIRE_OK(aclrtCreateEvent(&end));
    REQUIRE_OK(aclrtRecordEvent(start, a));
    REQUIRE_OK(aclxLaunchHostKernel(a, sleep_kernel, &sleep, "sleep30"));
    REQUIRE_OK(aclrtRecordEvent(end, a));
    EXPECT_CODE(aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    EXPECT_OK(aclrtSynchronizeEvent(end));
    EXPECT_OK(aclrtEventElapsedTime(&ms, start, end));
    CHECK(ms >= 29.0f && ms < 2000.0f);
    EXPECT_OK(aclrtEventGetTimestamp(start, &t0));
    EXPECT_OK(aclrtEventGetTimestamp(end, &t1));
    CHECK(t1 >= t0 + 29000);
    /* Reset returns a default-family event to "never recorded". */
    EXPECT_OK(aclrtResetEvent(end, a));
    EXPECT_OK(aclrtSynchronizeStream(a));
    EXPECT_CODE(aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_RT_INTERNAL_ERROR);

    EXPECT_OK(aclrtDestroyEvent(start));
    EXPECT_OK(aclrtDestroyEvent(end));
    EXPECT_OK(aclrtDestroyEvent(ev));
}

static void flag_family(aclrtStream a, aclrtStream b)
{
    aclrtEvent sync = NULL, plain = NULL, timeline = NULL, devonly = NULL;
    aclrtEventWaitStatus ws = ACL_EVENT_WAIT_STATUS_RESERVED;
    aclrtEventRecordedStatus rs;
    uint32_t avail0 = 0, avail1 = 0, id = 0;
    struct step first = {1, 40}, second = {2, 0};
    uint64_t t = 0;

    EXPECT_CODE(aclrtCreateEventWithFlag(&sync, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCreateEventWithFlag(&sync, 0x80), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCreateEventWithFlag(&sync, ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_SYNC),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtGetEventAvailNum(&avail0));
    REQUIRE_OK(aclrtCreateEventWithFlag(&sync, ACL_EVENT_SYNC));
    /* A flag-family SYNC event holds its resource from creation. */
    EXPECT_OK(aclrtGetEventAvailNum(&avail1));
    CHECK(avail1 + 1 == avail0);
    EXPECT_OK(aclrtGetEventId(sync, &id));

    /* Cross-stream wait queued before the record: b's kernel waits for a's. */
    g_order_len = 0;
    EXPECT_OK(aclrtStreamWaitEvent(b, sync));
    EXPECT_OK(aclxLaunchHostKernel(b, logging_kernel, &second, "second"));
    EXPECT_OK(aclrtQueryEventWaitStatus(sync, &ws));
    CHECK(ws == ACL_EVENT_WAIT_STATUS_NOT_READY);
    EXPECT_OK(aclxLaunchHostKernel(a, logging_kernel, &first, "first"));
    EXPECT_OK(aclrtRecordEvent(sync, a));
    EXPECT_OK(aclrtSynchronizeStream(b));
    CHECK(g_order_len == 2 && g_order[0] == 1 && g_order[1] == 2);
    EXPECT_OK(aclrtQueryEventWaitStatus(sync, &ws));
    CHECK(ws == ACL_EVENT_WAIT_STATUS_COMPLETE);
    /* Reset after the wait, on the waiting stream; flag events need it before re-use. */
    EXPECT_OK(aclrtResetEvent(sync, b));
    /* The reset is a task on b: let it run before the next record, or it would clear that. */
    EXPECT_OK(aclrtSynchronizeStream(b));
    EXPECT_OK(aclrtRecordEventWithFlag(sync, a, ACL_EVENT_RECORD_DEFAULT));
    EXPECT_CODE(aclrtRecordEventWithFlag(sync, a, 2), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtStreamWaitEventWithFlag(b, sync, 0, ACL_EVENT_WAIT_DEFAULT));
    EXPECT_OK(aclrtStreamWaitEventWithFlag(b, sync, 1000, ACL_EVENT_WAIT_DEFAULT));
    EXPECT_CODE(aclrtStreamWaitEventWithFlag(b, sync, 0, 2), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtStreamWaitEventWithFlag(b, sync, 1000, 2), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtSynchronizeStream(b));

    /* Without SYNC: no waits, no resets. */
    REQUIRE_OK(aclrtCreateEventWithFlag(&plain, ACL_EVENT_CAPTURE_STREAM_PROGRESS));
    EXPECT_CODE(aclrtStreamWaitEvent(b, plain), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtResetEvent(plain, a), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_OK(aclrtRecordEvent(plain, a));
    EXPECT_OK(aclrtSynchronizeEvent(plain));
    EXPECT_OK(aclrtQueryEventStatus(plain, &rs));
    CHECK(rs == ACL_EVENT_RECORDED_STATUS_COMPLETE);
    /* No TIME_LINE: no timestamp. */
    EXPECT_CODE(aclrtEventGetTimestamp(plain, &t), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    REQUIRE_OK(aclrtCreateEventWithFlag(&timeline, ACL_EVENT_TIME_LINE));
    EXPECT_OK(aclrtRecordEvent(timeline, a));
    EXPECT_OK(aclrtSynchronizeEvent(timeline));
    EXPECT_OK(aclrtEventGetTimestamp(timeline, &t));

    /* Device-only events cannot be used from the host. */
    REQUIRE_OK(aclrtCreateEventWithFlag(&devonly, ACL_EVENT_DEVICE_USE_ONLY));
    EXPECT_CODE(aclrtRecordEvent(devonly, a), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtStreamWaitEvent(a, devonly), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtResetEvent(devonly, a), ACL_ERROR_RT_PARAM_INVALID);

    EXPECT_OK(aclrtDestroyEvent(devonly));
    EXPECT_OK(aclrtDestroyEvent(timeline));
    EXPECT_OK(aclrtDestroyEvent(plain));
    EXPECT_OK(aclrtDestroyEvent(sync));
    EXPECT_OK(aclrtGetEventAvailNum(&avail1));
    CHECK(avail1 == avail0);
}

static void ex_family(aclrtStream a, aclrtStream b)
{
    aclrtEvent ev = NULL;
    aclrtEventRecordedStatus rs = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    aclrtEventStatus st;
    aclrtEventWaitStatus ws;
    struct step first = {1, 40}, second = {2, 0};

    EXPECT_CODE(aclrtCreateEventExWithFlag(&ev, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_DEVICE_USE_ONLY), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_EXTERNAL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC | ACL_EVENT_SYNC), ACL_ERROR_RT_PARAM_INVALID);
    REQUIRE_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE));
    /* Before the first record an Ex event is complete, and waiting on it is a no-op. */
    EXPECT_OK(aclrtQueryEventStatus(ev, &rs));
    CHECK(rs == ACL_EVENT_RECORDED_STATUS_COMPLETE);
    EXPECT_OK(aclrtStreamWaitEvent(b, ev));
    EXPECT_CODE(aclrtQueryEvent(ev, &st), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtQueryEventWaitStatus(ev, &ws), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtResetEvent(ev, a), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);

    /* Snapshot wait across streams; re-record without reset. */
    g_order_len = 0;
    EXPECT_OK(aclxLaunchHostKernel(a, logging_kernel, &first, "first"));
    EXPECT_OK(aclrtRecordEvent(ev, a));
    EXPECT_OK(aclrtStreamWaitEventWithTimeout(b, ev, 0));
    EXPECT_OK(aclxLaunchHostKernel(b, logging_kernel, &second, "second"));
    EXPECT_OK(aclrtSynchronizeStream(b));
    CHECK(g_order_len == 2 && g_order[0] == 1 && g_order[1] == 2);
    EXPECT_OK(aclrtRecordEvent(ev, a));
    EXPECT_OK(aclrtSynchronizeEvent(ev));
    EXPECT_OK(aclrtDestroyEvent(ev));
}

static void wait_timeout_and_destroy_while_pending(aclrtStream a, aclrtStream b)
{
    aclrtEvent ev = NULL;
    gate_t gate = GATE_INIT;
    aclrtEventRecordedStatus rs;

    /* The waiting stream fails with a task timeout when the record takes too long (the
     * record waits behind a kernel held at a gate until the checks are done). */
    REQUIRE_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
    REQUIRE_OK(aclxLaunchHostKernel(a, gate_kernel, &gate, "gate"));
    REQUIRE_OK(aclrtRecordEvent(ev, a));
    EXPECT_CODE(aclrtStreamWaitEventWithTimeout(b, ev, -1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtStreamWaitEventWithTimeout(b, ev, 20));
    EXPECT_CODE(aclrtSynchronizeStream(b), ACL_ERROR_RT_TASK_TIMEOUT);
    /* Reported once, then cleared. */
    EXPECT_OK(aclrtSynchronizeStream(b));
    /* Destroying a pending event returns while its record is still held at the gate (were
     * it to wait, the test would hang here); the handle is dead immediately. */
    EXPECT_OK(aclrtDestroyEvent(ev));
    EXPECT_CODE(aclrtQueryEventStatus(ev, &rs), ACL_ERROR_RT_INVALID_HANDLE);
    gate_open(&gate);
    EXPECT_OK(aclrtSynchronizeStream(a));
}

int main(void)
{
    aclrtStream a = NULL, b = NULL;

    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&a));
    REQUIRE_OK(aclrtCreateStream(&b));

    default_family(a);
    flag_family(a, b);
    ex_family(a, b);
    wait_timeout_and_destroy_while_pending(a, b);

    EXPECT_OK(aclrtDestroyStream(a));
    EXPECT_OK(aclrtDestroyStream(b));
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    expect_no_live_objects();
    return finish("test_events");
}
