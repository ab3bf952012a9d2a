/* Notifies and stream memory operations through the C ABI: a notify recorded on one stream and
 * waited on another, its codes, and aclrtValueWait released by aclrtValueWrite from another
 * stream. */
#include "check.h"

static long g_clock;
static long g_recorded_at, g_released_at, g_written_at, g_woken_at;

static aclError stamp(void *args)
{
    *(long *)args = __atomic_add_fetch(&g_clock, 1, __ATOMIC_SEQ_CST);
    return ACL_SUCCESS;
}

static void notify_between_streams(void)
{
    aclrtStream a = NULL, b = NULL;
    aclrtNotify n = NULL, m = NULL, batch[2];
    int sleep_for = 50;
    uint32_t id = 99;
    double t0;

    REQUIRE_OK(aclrtCreateStream(&a));
    REQUIRE_OK(aclrtCreateStream(&b));
    EXPECT_CODE(aclrtCreateNotify(NULL, ACL_NOTIFY_DEFAULT), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCreateNotify(&n, 5), ACL_ERROR_RT_PARAM_INVALID);
    REQUIRE_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    REQUIRE_OK(aclrtCreateNotify(&m, ACL_NOTIFY_DEVICE_USE_ONLY));
    EXPECT_OK(aclrtGetNotifyId(n, &id));
    CHECK(id == 0);
    EXPECT_OK(aclrtGetNotifyId(m, &id));
    CHECK(id == 1);
    EXPECT_CODE(aclrtGetNotifyId(n, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetNotifyId(NULL, &id), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetNotifyId((aclrtNotify)(uintptr_t)0x42, &id), ACL_ERROR_RT_INVALID_HANDLE);

    /* Stream b waits for the record on stream a, which comes after a 50 ms kernel. */
    EXPECT_OK(aclrtWaitAndResetNotify(n, b, 0));
    EXPECT_OK(aclxLaunchHostKernel(b, stamp, &g_released_at, "after the wait"));
    EXPECT_OK(aclxLaunchHostKernel(a, sleep_kernel, &sleep_for, "sleep"));
    EXPECT_OK(aclxLaunchHostKernel(a, stamp, &g_recorded_at, "before the record"));
    EXPECT_OK(aclrtRecordNotify(n, a));
    EXPECT_OK(aclrtSynchronizeStream(b));
    EXPECT_OK(aclrtSynchronizeStream(a));
    CHECK(g_recorded_at > 0 && g_released_at > g_recorded_at);

    /* The wait reset it: a second wait times out (1 s) and fails the stream's task. */
    t0 = now_ms();
    EXPECT_OK(aclrtWaitAndResetNotify(n, b, 1));
    EXPECT_CODE(aclrtSynchronizeStream(b), ACL_ERROR_RT_TASK_TIMEOUT);
    CHECK(now_ms() - t0 >= 900);

    /* A batch reset clears a record nobody waited for. */
    EXPECT_OK(aclrtRecordNotify(m, NULL));
    EXPECT_OK(aclrtSynchronizeStream(NULL));
    batch[0] = n;
    batch[1] = m;
    EXPECT_OK(aclrtNotifyBatchReset(batch, 2));
    EXPECT_OK(aclrtWaitAndResetNotify(m, b, 1));
    EXPECT_CODE(aclrtSynchronizeStream(b), ACL_ERROR_RT_TASK_TIMEOUT);
    EXPECT_CODE(aclrtNotifyBatchReset(NULL, 2), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtNotifyBatchReset(batch, 0), ACL_ERROR_INVALID_PARAM);

    EXPECT_CODE(aclrtRecordNotify(NULL, a), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtWaitAndResetNotify(NULL, a, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtRecordNotify(n, (aclrtStream)(uintptr_t)0x10), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_OK(aclrtDestroyNotify(n));
    EXPECT_CODE(aclrtDestroyNotify(n), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtRecordNotify(n, a), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtDestroyNotify(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtDestroyNotify(m));
    EXPECT_OK(aclrtDestroyStream(a));
    EXPECT_OK(aclrtDestroyStream(b));
}

static void value_write_and_wait(void)
{
    aclrtStream writer = NULL, waiter = NULL;
    void *word = NULL, *host = NULL;
    int sleep_for = 30;
    uint64_t value = 0;

    REQUIRE_OK(aclrtCreateStream(&writer));
    REQUIRE_OK(aclrtCreateStream(&waiter));
    REQUIRE_OK(aclrtMalloc(&word, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMallocHost(&host, 64));

    EXPECT_OK(aclrtValueWait(word, 5, ACL_STREAM_WAIT_VALUE_EQ, waiter));
    EXPECT_OK(aclxLaunchHostKernel(waiter, stamp, &g_woken_at, "after the wait"));
    EXPECT_OK(aclxLaunchHostKernel(writer, sleep_kernel, &sleep_for, "sleep"));
    EXPECT_OK(aclrtValueWrite(word, 4, 0, writer)); /* not equal: still waiting */
    EXPECT_OK(aclxLaunchHostKernel(writer, sleep_kernel, &sleep_for, "sleep"));
    EXPECT_OK(aclxLaunchHostKernel(writer, stamp, &g_written_at, "before the write"));
    EXPECT_OK(aclrtValueWrite(word, 5, 0, writer));
    EXPECT_OK(aclrtSynchronizeStream(waiter));
    EXPECT_OK(aclrtSynchronizeStream(writer));
    CHECK(g_written_at > 0 && g_woken_at > g_written_at);
    EXPECT_OK(aclrtMemcpy(&value, 8, word, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(value == 5);

    /* Conditions that hold already pass at once. */
    EXPECT_OK(aclrtValueWait(word, 2, ACL_STREAM_WAIT_VALUE_GEQ, waiter));
    EXPECT_OK(aclrtValueWait(word, 4, ACL_STREAM_WAIT_VALUE_AND, waiter));
    EXPECT_OK(aclrtValueWait(word, 2, ACL_STREAM_WAIT_VALUE_NOR, waiter));
    EXPECT_OK(aclrtSynchronizeStreamWithTimeout(waiter, 2000));

    EXPECT_CODE(aclrtValueWrite(NULL, 1, 0, writer), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtValueWrite((char *)word + 4, 1, 0, writer), ACL_ERROR_RT_ADDR_UNALIGNED);
    EXPECT_CODE(aclrtValueWait((char *)word + 4, 1, 0, writer), ACL_ERROR_RT_ADDR_UNALIGNED);
    EXPECT_CODE(aclrtValueWrite(host, 1, 0, writer), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtValueWrite(word, 1, 1, writer), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtValueWait(word, 1, 4, writer), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtValueWait(word, 1, 0, (aclrtStream)(uintptr_t)0x20), ACL_ERROR_RT_INVALID_HANDLE);

    EXPECT_OK(aclrtFree(word));
    EXPECT_OK(aclrtFreeHost(host));
    EXPECT_OK(aclrtDestroyStream(writer));
    EXPECT_OK(aclrtDestroyStream(waiter));
}

int main(void)
{
    aclrtNotify n = NULL;

    EXPECT_CODE(aclrtCreateNotify(&n, 0), ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclrtValueWrite(&n, 1, 0, NULL), ACL_ERROR_UNINITIALIZE);
    REQUIRE_OK(aclInit(NULL));
    EXPECT_CODE(aclrtCreateNotify(&n, 0), ACL_ERROR_RT_CONTEXT_NULL);
    REQUIRE_OK(aclrtSetDevice(0));
    notify_between_streams();
    value_write_and_wait();
    REQUIRE_OK(aclrtResetDevice(0));
    expect_no_live_objects();
    REQUIRE_OK(aclFinalize());
    return finish("test_notify");
}
