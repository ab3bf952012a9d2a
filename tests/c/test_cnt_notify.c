/* Counting notifies through the C ABI: a count recorded on one stream and waited for on
 * another, every record and wait mode, clearing, reset, the timeout, and the documented error
 * paths with their exact codes. */
#include "check.h"

static long g_clock;
static long g_recorded_at, g_released_at;

static aclError stamp(void *args)
{
    *(long *)args = __atomic_add_fetch(&g_clock, 1, __ATOMIC_SEQ_CST);
    return ACL_SUCCESS;
}

static aclrtCntNotifyRecordInfo rec(aclrtCntNotifyRecordMode mode, uint32_t value)
{
    aclrtCntNotifyRecordInfo info;
    memset(&info, 0, sizeof(info));
    info.mode = mode;
    info.value = value;
    return info;
}

static aclrtCntNotifyWaitInfo wait_for(aclrtCntNotifyWaitMode mode, uint32_t value,
                                       uint32_t timeout, uint8_t clear)
{
    aclrtCntNotifyWaitInfo info;
    memset(&info, 0, sizeof(info));
    info.mode = mode;
    info.value = value;
    info.timeout = timeout;
    info.isClear = clear;
    return info;
}

/* The count of `n` as a wait on `s` sees it: a wait for "equal to want" with a 1 s timeout. */
static aclError count_is(aclrtCntNotify n, aclrtStream s, uint32_t want)
{
    aclrtCntNotifyWaitInfo w = wait_for(ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, want, 1, 0);
    aclError ret = aclrtCntNotifyWaitWithTimeout(n, s, &w);
    if (ret != ACL_SUCCESS) {
        return ret;
    }
    return aclrtSynchronizeStream(s);
}

static void between_streams(void)
{
    aclrtStream a = NULL, b = NULL;
    aclrtCntNotify n = NULL;
    int sleep_for = 50;

    REQUIRE_OK(aclrtCreateStream(&a));
    REQUIRE_OK(aclrtCreateStream(&b));
    REQUIRE_OK(aclrtCntNotifyCreate(&n, 0));

    /* b waits until a has added 1 three times, after a 50 ms kernel; the wait clears. */
    aclrtCntNotifyWaitInfo w = wait_for(ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE, 3, 0, 1);
    EXPECT_OK(aclrtCntNotifyWaitWithTimeout(n, b, &w));
    EXPECT_OK(aclxLaunchHostKernel(b, stamp, &g_released_at, "after the wait"));
    EXPECT_OK(aclxLaunchHostKernel(a, sleep_kernel, &sleep_for, "sleep"));
    aclrtCntNotifyRecordInfo add1 = rec(ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1);
    EXPECT_OK(aclrtCntNotifyRecord(n, a, &add1));
    EXPECT_OK(aclrtCntNotifyRecord(n, a, &add1));
    EXPECT_OK(aclxLaunchHostKernel(a, stamp, &g_recorded_at, "before the last record"));
    EXPECT_OK(aclrtCntNotifyRecord(n, a, &add1));
    EXPECT_OK(aclrtSynchronizeStream(a));
    EXPECT_OK(aclrtSynchronizeStream(b));
    CHECK(g_recorded_at > 0 && g_released_at > g_recorded_at);
    /* Cleared by the wait. */
    EXPECT_OK(count_is(n, b, 0));

    EXPECT_OK(aclrtCntNotifyDestroy(n));
    EXPECT_OK(aclrtDestroyStream(a));
    EXPECT_OK(aclrtDestroyStream(b));
}

static void modes(void)
{
    aclrtStream s = NULL;
    aclrtCntNotify n = NULL;
    REQUIRE_OK(aclrtCreateStream(&s));
    REQUIRE_OK(aclrtCntNotifyCreate(&n, 0));

    aclrtCntNotifyRecordInfo r = rec(ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 12);
    EXPECT_OK(aclrtCntNotifyRecord(n, s, &r));
    EXPECT_OK(count_is(n, s, 12));
    r = rec(ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 5);
    EXPECT_OK(aclrtCntNotifyRecord(n, s, &r));
    EXPECT_OK(count_is(n, s, 17));
    r = rec(ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE, 0x40);
    EXPECT_OK(aclrtCntNotifyRecord(n, s, &r));
    EXPECT_OK(count_is(n, s, 0x51));
    r = rec(ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE, 0x41);
    EXPECT_OK(aclrtCntNotifyRecord(n, s, &r));
    EXPECT_OK(count_is(n, s, 0x41));
    /* Adding wraps at 2^32. */
    r = rec(ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 0xFFFFFFFFu);
    EXPECT_OK(aclrtCntNotifyRecord(n, s, &r));
    r = rec(ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 2);
    EXPECT_OK(aclrtCntNotifyRecord(n, s, &r));
    EXPECT_OK(count_is(n, s, 1));

    /* Each wait mode released by a count that satisfies it (count 0x41 = 65 below). */
    r = rec(ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 65);
    EXPECT_OK(aclrtCntNotifyRecord(n, s, &r));
    aclrtCntNotifyWaitInfo w = wait_for(ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE, 66, 1, 0);
    EXPECT_OK(aclrtCntNotifyWaitWithTimeout(n, s, &w));
    w = wait_for(ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE, 64, 1, 0);
    EXPECT_OK(aclrtCntNotifyWaitWithTimeout(n, s, &w));
    w = wait_for(ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE, 65, 1, 0);
    EXPECT_OK(aclrtCntNotifyWaitWithTimeout(n, s, &w));
    w = wait_for(ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE, 0x41, 1, 0);
    EXPECT_OK(aclrtCntNotifyWaitWithTimeout(n, s, &w));
    EXPECT_OK(aclrtSynchronizeStream(s));
    /* A wait that is not released in time fails the stream's task with a timeout; the count
     * is left alone. */
    w = wait_for(ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE, 65, 1, 1);
    double t0 = now_ms();
    EXPECT_OK(aclrtCntNotifyWaitWithTimeout(n, s, &w));
    EXPECT_CODE(aclrtSynchronizeStream(s), ACL_ERROR_RT_TASK_TIMEOUT);
    CHECK(now_ms() - t0 >= 990.0);
    EXPECT_OK(count_is(n, s, 65));
    w = wait_for(ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE, 0x3, 1, 0);
    EXPECT_OK(aclrtCntNotifyWaitWithTimeout(n, s, &w));
    EXPECT_CODE(aclrtSynchronizeStream(s), ACL_ERROR_RT_TASK_TIMEOUT);

    /* Reset: the count is 0 when the stream reaches it. */
    EXPECT_OK(aclrtCntNotifyReset(n, s));
    EXPECT_OK(count_is(n, s, 0));
    EXPECT_OK(aclrtCntNotifyReset(n, NULL)); /* the default stream */
    EXPECT_OK(aclrtSynchronizeStream(NULL));

    EXPECT_OK(aclrtCntNotifyDestroy(n));
    EXPECT_OK(aclrtDestroyStream(s));
}

static void errors(void)
{
    aclrtStream s = NULL;
    aclrtCntNotify n = NULL, m = NULL;
    uint32_t id = 99;
    aclrtCntNotifyRecordInfo r = rec(ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1);
    aclrtCntNotifyWaitInfo w = wait_for(ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 1, 0, 0);
    aclrtCntNotify bogus = (aclrtCntNotify)(uintptr_t)0x42;

    REQUIRE_OK(aclrtCreateStream(&s));
    EXPECT_CODE(aclrtCntNotifyCreate(NULL, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCntNotifyCreate(&n, 1), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(n == NULL);
    REQUIRE_OK(aclrtCntNotifyCreate(&n, 0));
    REQUIRE_OK(aclrtCntNotifyCreate(&m, 0));
    EXPECT_OK(aclrtCntNotifyGetId(n, &id));
    CHECK(id == 0);
    EXPECT_OK(aclrtCntNotifyGetId(m, &id));
    CHECK(id == 1);
    EXPECT_CODE(aclrtCntNotifyGetId(n, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCntNotifyGetId(NULL, &id), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCntNotifyGetId(bogus, &id), ACL_ERROR_RT_INVALID_HANDLE);

    /* info is checked before the notify, then the notify, then the mode. */
    EXPECT_CODE(aclrtCntNotifyRecord(bogus, s, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCntNotifyWaitWithTimeout(bogus, s, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCntNotifyRecord(NULL, s, &r), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCntNotifyRecord(bogus, s, &r), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtCntNotifyWaitWithTimeout(bogus, s, &w), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtCntNotifyReset(bogus, s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtCntNotifyReset(NULL, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCntNotifyRecord(n, (aclrtStream)(uintptr_t)0x42, &r),
                ACL_ERROR_RT_INVALID_HANDLE);
    r.mode = (aclrtCntNotifyRecordMode)3;
    EXPECT_CODE(aclrtCntNotifyRecord(n, s, &r), ACL_ERROR_RT_PARAM_INVALID);
    w.mode = (aclrtCntNotifyWaitMode)5;
    EXPECT_CODE(aclrtCntNotifyWaitWithTimeout(n, s, &w), ACL_ERROR_RT_PARAM_INVALID);

    /* A notify made by aclrtCreateNotify is not a counting notify, nor the reverse. */
    aclrtNotify plain = NULL;
    REQUIRE_OK(aclrtCreateNotify(&plain, ACL_NOTIFY_DEFAULT));
    EXPECT_CODE(aclrtCntNotifyGetId((aclrtCntNotify)plain, &id), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtGetNotifyId((aclrtNotify)n, &id), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_OK(aclrtDestroyNotify(plain));

    /* Destroyed: the handle is dead, its id free again. */
    EXPECT_OK(aclrtCntNotifyDestroy(n));
    EXPECT_CODE(aclrtCntNotifyDestroy(n), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtCntNotifyDestroy(NULL), ACL_ERROR_INVALID_PARAM);
    r.mode = ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE;
    EXPECT_CODE(aclrtCntNotifyRecord(n, s, &r), ACL_ERROR_RT_INVALID_HANDLE);
    REQUIRE_OK(aclrtCntNotifyCreate(&n, 0));
    EXPECT_OK(aclrtCntNotifyGetId(n, &id));
    CHECK(id == 0);
    EXPECT_OK(aclrtCntNotifyDestroy(n));
    EXPECT_OK(aclrtCntNotifyDestroy(m));
    EXPECT_OK(aclrtDestroyStream(s));
}

int main(void)
{
    aclrtCntNotify n = NULL;
    EXPECT_CODE(aclrtCntNotifyCreate(&n, 0), ACL_ERROR_UNINITIALIZE);
    REQUIRE_OK(aclInit(NULL));
    /* A counting notify belongs to the current device: none yet. */
    EXPECT_CODE(aclrtCntNotifyCreate(&n, 0), ACL_ERROR_RT_CONTEXT_NULL);
    REQUIRE_OK(aclrtSetDevice(0));
    between_streams();
    modes();
    errors();
    REQUIRE_OK(aclrtResetDevice(0));
    REQUIRE_OK(aclFinalize());
    expect_no_live_objects();
    return finish("test_cnt_notify");
}
