/* Garbage, stale and wrong-type handles on every handle-taking call: the documented code,
 * never a crash; and nothing leaks. */
#include "check.h"

static void noop_cb(void *data) { (void)data; }

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void)
{
    /* xorshift64*: any 64-bit value, including ones with a valid-looking tag byte. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

/* Every call that takes a stream or event handle, with `s` / `e` as the bad handle. Returns
 * how many calls did not return `want`. */
static void bad_stream_calls(aclrtStream s, aclrtEvent good_event, int want)
{
    uint32_t u32;
    int32_t i32;
    int ms = 1;
    char buf[16];
    EXPECT_CODE(aclrtDestroyStream(s), want);
    EXPECT_CODE(aclrtDestroyStreamForce(s), want);
    EXPECT_CODE(aclrtSynchronizeStream(s), want);
    EXPECT_CODE(aclrtSynchronizeStreamWithTimeout(s, 10), want);
    EXPECT_CODE(aclrtStreamQuery(s, (aclrtStreamStatus *)&u32), want);
    EXPECT_CODE(aclrtStreamGetId(s, &i32), want);
    EXPECT_CODE(aclrtStreamGetPriority(s, &u32), want);
    EXPECT_CODE(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE), want);
    EXPECT_CODE(aclrtStreamWaitEvent(s, good_event), want);
    EXPECT_CODE(aclrtStreamWaitEventWithTimeout(s, good_event, 5), want);
    EXPECT_CODE(aclrtStreamWaitEventWithFlag(s, good_event, 0, 0), want);
    EXPECT_CODE(aclrtRecordEvent(good_event, s), want);
    EXPECT_CODE(aclrtResetEvent(good_event, s), want);
    EXPECT_CODE(aclrtSubscribeReport((uint64_t)pthread_self(), s), want);
    EXPECT_CODE(aclrtUnSubscribeReport((uint64_t)pthread_self(), s), want);
    EXPECT_CODE(aclrtLaunchCallback(noop_cb, NULL, ACL_CALLBACK_BLOCK, s), want);
    EXPECT_CODE(aclrtLaunchHostFunc(s, noop_cb, NULL), want);
    EXPECT_CODE(aclxLaunchHostKernel(s, sleep_kernel, &ms, "k"), want);
    EXPECT_CODE(aclrtMemcpyAsync(buf, 16, buf + 8, 8, ACL_MEMCPY_HOST_TO_HOST, s), want);
    EXPECT_CODE(aclrtMemsetAsync(buf, 16, 0, 16, s), want);
}

static void bad_event_calls(aclrtEvent e, aclrtEvent good_event, int want)
{
    uint32_t u32;
    uint64_t u64;
    float ms;
    EXPECT_CODE(aclrtDestroyEvent(e), want);
    EXPECT_CODE(aclrtRecordEvent(e, NULL), want);
    EXPECT_CODE(aclrtRecordEventWithFlag(e, NULL, 0), want);
    EXPECT_CODE(aclrtResetEvent(e, NULL), want);
    EXPECT_CODE(aclrtQueryEvent(e, (aclrtEventStatus *)&u32), want);
    EXPECT_CODE(aclrtQueryEventStatus(e, (aclrtEventRecordedStatus *)&u32), want);
    EXPECT_CODE(aclrtQueryEventWaitStatus(e, (aclrtEventWaitStatus *)&u32), want);
    EXPECT_CODE(aclrtSynchronizeEvent(e), want);
    EXPECT_CODE(aclrtSynchronizeEventWithTimeout(e, 10), want);
    EXPECT_CODE(aclrtEventElapsedTime(&ms, e, good_event), want);
    EXPECT_CODE(aclrtEventElapsedTime(&ms, good_event, e), want);
    EXPECT_CODE(aclrtEventGetTimestamp(e, &u64), want);
    EXPECT_CODE(aclrtGetEventId(e, &u32), want);
    EXPECT_CODE(aclrtStreamWaitEvent(NULL, e), want);
    EXPECT_CODE(aclrtStreamWaitEventWithTimeout(NULL, e, 5), want);
}

int main(void)
{
    aclrtStream stream = NULL, stale_stream = NULL;
    aclrtEvent event = NULL, stale_event = NULL;
    aclrtContext ctx = NULL, stale_ctx = NULL, def_ctx = NULL;
    aclxLiveObjects before, after;
    int i;

    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtGetCurrentContext(&def_ctx));
    REQUIRE_OK(aclxGetLiveObjects(&before));

    REQUIRE_OK(aclrtCreateStream(&stream));
    REQUIRE_OK(aclrtCreateEvent(&event));
    REQUIRE_OK(aclrtCreateStream(&stale_stream));
    REQUIRE_OK(aclrtDestroyStream(stale_stream));
    REQUIRE_OK(aclrtCreateEvent(&stale_event));
    REQUIRE_OK(aclrtDestroyEvent(stale_event));
    REQUIRE_OK(aclrtRecordEvent(event, stream));

    /* Stale handles. */
    bad_stream_calls(stale_stream, event, ACL_ERROR_RT_INVALID_HANDLE);
    bad_event_calls(stale_event, event, ACL_ERROR_RT_INVALID_HANDLE);
    /* Wrong type: an event where a stream goes, and the reverse. */
    bad_stream_calls((aclrtStream)event, event, ACL_ERROR_RT_INVALID_HANDLE);
    bad_event_calls((aclrtEvent)stream, event, ACL_ERROR_RT_INVALID_HANDLE);
    bad_event_calls((aclrtEvent)def_ctx, event, ACL_ERROR_RT_INVALID_HANDLE);
    /* Garbage: random 64-bit values, plus a few with valid-looking tags. */
    for (i = 0; i < 200; i++) {
        uint64_t r = next_random();
        if (r == 0) {
            continue;
        }
        if (i % 4 == 1) {
            r = (r & 0x00FFFFFFFFFFFFFFull) | ((uint64_t)0x51 << 56);
        } else if (i % 4 == 2) {
            r = (r & 0x00FFFFFFFFFFFFFFull) | ((uint64_t)0x52 << 56);
        }
        bad_stream_calls((aclrtStream)(uintptr_t)r, event, ACL_ERROR_RT_INVALID_HANDLE);
        bad_event_calls((aclrtEvent)(uintptr_t)r, event, ACL_ERROR_RT_INVALID_HANDLE);
        EXPECT_CODE(aclrtSetCurrentContext((aclrtContext)(uintptr_t)(r | 1)),
                    ACL_ERROR_RT_INVALID_HANDLE);
    }

    /* Contexts: garbage → invalid handle; destroyed → context NULL (as the vendor does). */
    EXPECT_CODE(aclrtSetCurrentContext((aclrtContext)stream), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtDestroyContext((aclrtContext)event), ACL_ERROR_RT_INVALID_HANDLE);
    REQUIRE_OK(aclrtCreateContext(&ctx, 0));
    stale_ctx = ctx;
    EXPECT_OK(aclrtDestroyContext(ctx));
    EXPECT_CODE(aclrtSetCurrentContext(stale_ctx), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_CODE(aclrtDestroyContext(stale_ctx), ACL_ERROR_RT_CONTEXT_NULL);
    /* The destroyed context was current: stream calls now lack a context. */
    {
        aclrtStream s2 = NULL;
        EXPECT_CODE(aclrtCreateStream(&s2), ACL_ERROR_RT_CONTEXT_NULL);
    }
    EXPECT_CODE(aclrtDestroyContext(def_ctx), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_OK(aclrtSetCurrentContext(def_ctx));

    /* A stream of another context: work is refused (107003), observation is allowed. */
    {
        aclrtContext other = NULL;
        aclrtStream foreign = NULL;
        int ms = 1;
        REQUIRE_OK(aclrtCreateContext(&other, 0));
        REQUIRE_OK(aclrtCreateStream(&foreign));
        REQUIRE_OK(aclrtSetCurrentContext(def_ctx));
        EXPECT_CODE(aclxLaunchHostKernel(foreign, sleep_kernel, &ms, NULL),
                    ACL_ERROR_RT_STREAM_CONTEXT);
        EXPECT_CODE(aclrtRecordEvent(event, foreign), ACL_ERROR_RT_STREAM_CONTEXT);
        EXPECT_CODE(aclrtDestroyStream(foreign), ACL_ERROR_RT_STREAM_CONTEXT);
        EXPECT_OK(aclrtSynchronizeStream(foreign));
        EXPECT_OK(aclrtDestroyContext(other));
        REQUIRE_OK(aclrtSetCurrentContext(def_ctx));
    }

    /* The live handles still work after all that. */
    EXPECT_OK(aclrtSynchronizeEvent(event));
    EXPECT_OK(aclrtDestroyEvent(event));
    EXPECT_OK(aclrtDestroyStream(stream));
    REQUIRE_OK(aclxGetLiveObjects(&after));
    CHECK(memcmp(&before, &after, sizeof(before)) == 0);

    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    expect_no_live_objects();
    /* Handles from a finalised runtime are dead in the next one. */
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    EXPECT_CODE(aclrtSynchronizeStream(stream), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtSynchronizeEvent(event), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_OK(aclFinalize());
    return finish("test_handles");
}
