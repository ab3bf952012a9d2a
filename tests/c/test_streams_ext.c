/* Streams through the C ABI: the current default stream, flags, streams left, configuration
 * handles and aclrtCreateStreamV2, aclrtStreamAbort and aclrtStreamStop, and a stream state
 * callback that sees the streams that were stopped and aborted. */
#include "check.h"

static int g_ran;
static aclError count_kernel(void *args)
{
    (void)args;
    __atomic_add_fetch(&g_ran, 1, __ATOMIC_SEQ_CST);
    return ACL_SUCCESS;
}

/* A kernel that notes it has started, then sleeps ms milliseconds. */
struct slow {
    int started;
    int ms;
};
static aclError slow_kernel(void *args)
{
    struct slow *s = args;
    __atomic_store_n(&s->started, 1, __ATOMIC_SEQ_CST);
    sleep_ms(s->ms);
    return ACL_SUCCESS;
}

static void wait_started(struct slow *s)
{
    while (!__atomic_load_n(&s->started, __ATOMIC_SEQ_CST)) {
        sleep_ms(1);
    }
}

enum { MAX_SEEN = 16 };
static struct {
    aclrtStream stream;
    aclrtStreamState state;
} g_seen[MAX_SEEN];
static int g_seen_count;
static const char *g_tag;

static void on_state(aclrtStream stream, aclrtStreamState state, void *args)
{
    if (g_seen_count < MAX_SEEN) {
        g_seen[g_seen_count].stream = stream;
        g_seen[g_seen_count].state = state;
        g_seen_count++;
    }
    g_tag = args;
}

static void default_stream_flags_and_count(void)
{
    aclrtStream def = NULL, s = NULL;
    uint32_t flags = 99, left = 0, left2 = 0;
    int32_t id0 = -1, id1 = -2;

    EXPECT_OK(aclrtCtxGetCurrentDefaultStream(&def));
    CHECK(def != NULL);
    EXPECT_CODE(aclrtCtxGetCurrentDefaultStream(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtStreamGetId(def, &id0));
    EXPECT_OK(aclrtStreamGetId(NULL, &id1));
    CHECK(id0 == id1);
    EXPECT_OK(aclxLaunchHostKernel(def, count_kernel, NULL, "on the default stream"));
    EXPECT_OK(aclrtSynchronizeStream(NULL));
    CHECK(g_ran == 1);
    EXPECT_CODE(aclrtDestroyStream(def), ACL_ERROR_INVALID_PARAM);

    EXPECT_OK(aclrtStreamGetFlags(NULL, &flags));
    CHECK(flags == 0);
    EXPECT_OK(aclrtCreateStreamWithConfig(&s, 1, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC));
    EXPECT_OK(aclrtStreamGetFlags(s, &flags));
    CHECK(flags == 0x3);
    EXPECT_CODE(aclrtStreamGetFlags(s, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtStreamGetFlags((aclrtStream)(uintptr_t)0x77, &flags), ACL_ERROR_RT_INVALID_HANDLE);

    EXPECT_OK(aclrtGetStreamAvailableNum(&left));
    CHECK(left == 1984 - 2);
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtGetStreamAvailableNum(&left2));
    CHECK(left2 == left + 1);
    EXPECT_CODE(aclrtGetStreamAvailableNum(NULL), ACL_ERROR_INVALID_PARAM);
}

static void config_handles(void)
{
    aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
    aclrtStreamConfigHandle mine;
    uint32_t prio = 6, bad_prio = 8, got = 0, flags = 0;
    size_t flag = ACL_STREAM_FAST_SYNC, size = 128;
    void *work = (void *)(uintptr_t)0x1000;
    aclrtStream s = NULL;

    REQUIRE_OK(h == NULL ? ACL_ERROR_INTERNAL_ERROR : ACL_SUCCESS);
    CHECK(h->priority == 0 && h->flag == 0 && h->workptr == NULL && h->workSize == 0);
    EXPECT_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, sizeof prio));
    EXPECT_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag, sizeof flag));
    EXPECT_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_ADDR_PTR, &work, sizeof work));
    EXPECT_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_SIZE, &size, sizeof size));
    CHECK(h->priority == 6 && h->flag == ACL_STREAM_FAST_SYNC && h->workptr == work && h->workSize == 128);
    EXPECT_CODE(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &bad_prio, sizeof bad_prio),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &flag, sizeof flag),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &prio, 2), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_SIZE, &prio, sizeof prio),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetStreamConfigOpt(h, (aclrtStreamConfigAttr)4, &prio, sizeof prio),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, NULL, 4), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetStreamConfigOpt(NULL, ACL_RT_STREAM_PRIORITY, &prio, 4), ACL_ERROR_INVALID_PARAM);
    CHECK(h->priority == 6 && h->flag == ACL_STREAM_FAST_SYNC && h->workSize == 128);

    EXPECT_OK(aclrtCreateStreamV2(&s, h));
    EXPECT_OK(aclrtStreamGetPriority(s, &got));
    EXPECT_OK(aclrtStreamGetFlags(s, &flags));
    CHECK(got == 6 && flags == ACL_STREAM_FAST_SYNC);
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtCreateStreamV2(&s, NULL));
    EXPECT_OK(aclrtStreamGetPriority(s, &got));
    CHECK(got == 0);
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_CODE(aclrtCreateStreamV2(NULL, h), ACL_ERROR_INVALID_PARAM);

    /* A handle the program made itself works with the set and create calls, but is not ours
     * to destroy. */
    memset(&mine, 0, sizeof mine);
    EXPECT_OK(aclrtSetStreamConfigOpt(&mine, ACL_RT_STREAM_PRIORITY, &prio, sizeof prio));
    EXPECT_OK(aclrtCreateStreamV2(&s, &mine));
    EXPECT_OK(aclrtStreamGetPriority(s, &got));
    CHECK(got == 6);
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_CODE(aclrtDestroyStreamConfigHandle(&mine), ACL_ERROR_INVALID_PARAM);

    EXPECT_OK(aclrtDestroyStreamConfigHandle(h));
    EXPECT_CODE(aclrtDestroyStreamConfigHandle(h), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtDestroyStreamConfigHandle(NULL), ACL_ERROR_INVALID_PARAM);
}

/* A stream state callback sees two streams created, one stopped and one aborted, then both
 * destroyed. */
static void abort_stop_and_state_callback(void)
{
    static char tag[] = "streams_ext";
    aclrtStream stopped = NULL, aborted = NULL;
    aclrtEvent ev = NULL;
    struct slow a = {0, 50}, b = {0, 50};
    double t0;
    int before;

    EXPECT_CODE(aclrtRegStreamStateCallback(NULL, on_state, tag), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtRegStreamStateCallback("", on_state, tag), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtRegStreamStateCallback("streams_ext", on_state, tag));
    EXPECT_CODE(aclrtRegStreamStateCallback("streams_ext", on_state, tag), ACL_ERROR_RT_PARAM_INVALID);
    g_seen_count = 0;

    REQUIRE_OK(aclrtCreateStreamWithConfig(&stopped, 0, ACL_STREAM_DEVICE_USE_ONLY));
    REQUIRE_OK(aclrtCreateStream(&aborted));
    CHECK(g_seen_count == 2);
    CHECK(g_seen[0].stream == stopped && g_seen[0].state == ACL_RT_STREAM_STATE_CREATE_POST);
    CHECK(g_seen[1].stream == aborted && g_seen[1].state == ACL_RT_STREAM_STATE_CREATE_POST);
    CHECK(g_tag == tag);

    /* Stop: the running task finishes, queued work never runs, new work is refused. */
    before = g_ran;
    EXPECT_CODE(aclrtStreamStop(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclxLaunchHostKernel(stopped, slow_kernel, &a, "slow"));
    EXPECT_OK(aclxLaunchHostKernel(stopped, count_kernel, NULL, "never"));
    wait_started(&a);
    EXPECT_OK(aclrtStreamStop(stopped));
    CHECK(g_ran == before);
    EXPECT_CODE(aclrtSynchronizeStream(stopped), ACL_ERROR_RT_INTERNAL_ERROR);
    EXPECT_CODE(aclxLaunchHostKernel(stopped, count_kernel, NULL, "refused"), ACL_ERROR_RT_STREAM_ABORT);

    /* Abort: queued work is discarded, the record completes with 107023, the stream goes on. */
    REQUIRE_OK(aclrtCreateEvent(&ev));
    EXPECT_OK(aclxLaunchHostKernel(aborted, slow_kernel, &b, "slow"));
    EXPECT_OK(aclxLaunchHostKernel(aborted, count_kernel, NULL, "discarded"));
    EXPECT_OK(aclrtRecordEvent(ev, aborted));
    wait_started(&b);
    t0 = now_ms();
    EXPECT_OK(aclrtStreamAbort(aborted));
    CHECK(now_ms() - t0 >= 20);
    CHECK(g_ran == before);
    EXPECT_CODE(aclrtSynchronizeEvent(ev), ACL_ERROR_RT_STREAM_ABORT);
    EXPECT_CODE(aclrtSynchronizeStream(aborted), ACL_ERROR_RT_STREAM_ABORT);
    EXPECT_OK(aclrtSynchronizeStream(aborted));
    EXPECT_OK(aclxLaunchHostKernel(aborted, count_kernel, NULL, "after the abort"));
    EXPECT_OK(aclrtSynchronizeStream(aborted));
    CHECK(g_ran == before + 1);
    EXPECT_CODE(aclrtStreamAbort((aclrtStream)(uintptr_t)0x99), ACL_ERROR_RT_INVALID_HANDLE);

    EXPECT_OK(aclrtDestroyStreamForce(stopped));
    EXPECT_OK(aclrtDestroyStream(aborted));
    CHECK(g_seen_count == 4);
    CHECK(g_seen[2].stream == stopped && g_seen[2].state == ACL_RT_STREAM_STATE_DESTROY_PRE);
    CHECK(g_seen[3].stream == aborted && g_seen[3].state == ACL_RT_STREAM_STATE_DESTROY_PRE);
    EXPECT_CODE(aclrtStreamStop(stopped), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_OK(aclrtDestroyEvent(ev));

    EXPECT_OK(aclrtRegStreamStateCallback("streams_ext", NULL, NULL));
    EXPECT_CODE(aclrtRegStreamStateCallback("streams_ext", NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
    REQUIRE_OK(aclrtCreateStream(&stopped));
    EXPECT_OK(aclrtDestroyStream(stopped));
    CHECK(g_seen_count == 4);
}

int main(void)
{
    aclrtStream s = NULL;
    uint32_t flags = 0;
    aclrtStreamConfigHandle *h;

    /* The configuration handles need no aclInit, the stream calls do. */
    h = aclrtCreateStreamConfigHandle();
    CHECK(h != NULL);
    EXPECT_CODE(aclrtCreateStreamV2(&s, h), ACL_ERROR_UNINITIALIZE);
    EXPECT_OK(aclrtDestroyStreamConfigHandle(h));
    EXPECT_CODE(aclrtStreamGetFlags(NULL, &flags), ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclrtStreamAbort(NULL), ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclrtRegStreamStateCallback("x", on_state, NULL), ACL_ERROR_UNINITIALIZE);

    REQUIRE_OK(aclInit(NULL));
    EXPECT_CODE(aclrtCtxGetCurrentDefaultStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
    REQUIRE_OK(aclrtSetDevice(0));
    default_stream_flags_and_count();
    config_handles();
    abort_stop_and_state_callback();
    REQUIRE_OK(aclrtResetDeviceForce(0));
    expect_no_live_objects();
    REQUIRE_OK(aclFinalize());
    return finish("test_streams_ext");
}
