/* Streams and device synchronisation through the C ABI: creation, ids, priorities, queries,
 * timeouts, destroy variants, failure modes, limits. */
#include "check.h"

#include <stdatomic.h>

static atomic_int g_ran;

static aclError count_kernel(void *args)
{
    (void)args;
    atomic_fetch_add(&g_ran, 1);
    return ACL_SUCCESS;
}

static void basics(void)
{
    aclrtStream s = NULL, hi = NULL, lo = NULL;
    aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
    int32_t id1 = -1, id2 = -1, id_default = -1;
    uint32_t prio = 99;
    /* Long enough that a 1 ms synchronise times out even on a loaded machine. */
    int sleep = 250;

    REQUIRE_OK(aclrtCreateStream(&s));
    CHECK(s != NULL);
    REQUIRE_OK(aclrtCreateStreamWithConfig(&hi, 0, ACL_STREAM_FAST_SYNC));
    /* Priorities clamp to 7; unknown flag bits are ignored. */
    REQUIRE_OK(aclrtCreateStreamWithConfig(&lo, 100, 0x80000000U));
    EXPECT_OK(aclrtStreamGetPriority(lo, &prio));
    CHECK(prio == 7);
    EXPECT_OK(aclrtStreamGetPriority(hi, &prio));
    CHECK(prio == 0);
    EXPECT_OK(aclrtStreamGetId(s, &id1));
    EXPECT_OK(aclrtStreamGetId(hi, &id2));
    EXPECT_OK(aclrtStreamGetId(NULL, &id_default));
    CHECK(id1 != id2 && id1 != id_default && id2 != id_default);

    EXPECT_OK(aclrtStreamQuery(s, &st));
    CHECK(st == ACL_STREAM_STATUS_COMPLETE);
    gate_t held = GATE_INIT;
    REQUIRE_OK(aclxLaunchHostKernel(s, gate_kernel, &held, "gate"));
    EXPECT_OK(aclrtStreamQuery(s, &st));
    CHECK(st == ACL_STREAM_STATUS_NOT_READY);
    EXPECT_CODE(aclrtSynchronizeStreamWithTimeout(s, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtSynchronizeStreamWithTimeout(s, -5), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtSynchronizeStreamWithTimeout(s, 1), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    gate_open(&held);
    EXPECT_OK(aclrtSynchronizeStreamWithTimeout(s, -1));
    EXPECT_OK(aclrtStreamQuery(s, &st));
    CHECK(st == ACL_STREAM_STATUS_COMPLETE);

    /* Device synchronisation covers every stream of the context, the default one included. */
    gate_t both = GATE_INIT;
    REQUIRE_OK(aclxLaunchHostKernel(hi, gate_kernel, &both, "gate"));
    REQUIRE_OK(aclxLaunchHostKernel(NULL, gate_kernel, &both, "gate"));
    EXPECT_CODE(aclrtSynchronizeDeviceWithTimeout(0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtSynchronizeDeviceWithTimeout(1), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    gate_open(&both);
    EXPECT_OK(aclrtSynchronizeDevice());
    EXPECT_OK(aclrtStreamQuery(NULL, &st));
    CHECK(st == ACL_STREAM_STATUS_COMPLETE);

    /* Destroy waits for pending work; the force variant returns at once and the work already
     * queued still runs (a device synchronise waits for it). */
    atomic_store(&g_ran, 0);
    REQUIRE_OK(aclxLaunchHostKernel(s, sleep_kernel, &sleep, "sleep"));
    REQUIRE_OK(aclxLaunchHostKernel(s, count_kernel, NULL, "count"));
    EXPECT_OK(aclrtDestroyStream(s));
    CHECK(atomic_load(&g_ran) == 1);
    atomic_store(&g_ran, 0);
    gate_t first = GATE_INIT;
    REQUIRE_OK(aclxLaunchHostKernel(lo, gate_kernel, &first, "gate"));
    {
        int i;
        for (i = 0; i < 10; i++) {
            REQUIRE_OK(aclxLaunchHostKernel(lo, count_kernel, NULL, "count"));
        }
    }
    EXPECT_OK(aclrtDestroyStreamForce(lo));
    CHECK(atomic_load(&g_ran) == 0);
    EXPECT_CODE(aclrtSynchronizeStream(lo), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclxLaunchHostKernel(lo, count_kernel, NULL, "late"), ACL_ERROR_RT_INVALID_HANDLE);
    /* A device synchronise covers what the destroyed stream still has queued. */
    EXPECT_CODE(aclrtSynchronizeDeviceWithTimeout(1), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    gate_open(&first);
    EXPECT_OK(aclrtSynchronizeDevice());
    CHECK(atomic_load(&g_ran) == 10);
    EXPECT_OK(aclrtDestroyStream(hi));
}

static void failure_modes(void)
{
    aclrtStream cont = NULL, stop = NULL, other = NULL;
    aclError code = ACL_ERROR_RT_AICORE_EXCEPTION;
    aclError custom = 507018;
    int sleep = 30;

    REQUIRE_OK(aclrtCreateStream(&cont));
    REQUIRE_OK(aclrtCreateStream(&stop));
    REQUIRE_OK(aclrtCreateStream(&other));

    /* Continue (default): later tasks run, the next synchronise reports the failure once. */
    atomic_store(&g_ran, 0);
    EXPECT_CODE(aclrtSetStreamFailureMode(cont, 7), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtSetStreamFailureMode(cont, ACL_CONTINUE_ON_FAILURE));
    EXPECT_CODE(aclrtSetStreamFailureMode(cont, ACL_CONTINUE_ON_FAILURE), ACL_ERROR_RT_PARAM_INVALID);
    REQUIRE_OK(aclxLaunchHostKernel(cont, failing_kernel, &custom, "fails"));
    REQUIRE_OK(aclxLaunchHostKernel(cont, count_kernel, NULL, "count"));
    EXPECT_CODE(aclrtSynchronizeStream(cont), custom);
    CHECK(atomic_load(&g_ran) == 1);
    EXPECT_OK(aclrtSynchronizeStream(cont));
    /* The device synchronise reports a failure too. */
    REQUIRE_OK(aclxLaunchHostKernel(cont, failing_kernel, &code, "fails"));
    EXPECT_CODE(aclrtSynchronizeDevice(), code);
    EXPECT_OK(aclrtSynchronizeDevice());

    /* Stop: after the first failure the context's streams stop and refuse new work. */
    atomic_store(&g_ran, 0);
    EXPECT_OK(aclrtSetStreamFailureMode(stop, ACL_STOP_ON_FAILURE));
    /* Queued before the failing kernel, so it is accepted whenever that kernel fails. */
    REQUIRE_OK(aclxLaunchHostKernel(other, sleep_kernel, &sleep, "sleep30"));
    REQUIRE_OK(aclxLaunchHostKernel(stop, failing_kernel, &code, "fails"));
    EXPECT_CODE(aclrtSynchronizeStream(stop), code);
    EXPECT_CODE(aclrtSynchronizeStream(stop), code);
    EXPECT_CODE(aclxLaunchHostKernel(stop, count_kernel, NULL, "count"), ACL_ERROR_RT_STREAM_ABORT);
    EXPECT_CODE(aclxLaunchHostKernel(other, count_kernel, NULL, "count"), ACL_ERROR_RT_STREAM_ABORT);
    CHECK(atomic_load(&g_ran) == 0);

    EXPECT_OK(aclrtDestroyStreamForce(stop));
    EXPECT_OK(aclrtDestroyStreamForce(other));
    EXPECT_OK(aclrtDestroyStreamForce(cont));
}

static void limits(void)
{
    /* 1984 streams per device, default streams included: 1983 on top of the default one. */
    static aclrtStream streams[2000];
    int n = 0;
    aclError r = ACL_SUCCESS;
    while (n < 2000) {
        r = aclrtCreateStream(&streams[n]);
        if (r != ACL_SUCCESS) {
            break;
        }
        n++;
    }
    EXPECT_CODE(r, ACL_ERROR_RT_NO_STREAM_RESOURCE);
    CHECK(n == 1983);
    while (n > 0) {
        EXPECT_OK(aclrtDestroyStream(streams[--n]));
    }
}

int main(void)
{
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    basics();
    limits();
    /* A stopped context stays stopped: use a fresh one for the failure modes. */
    {
        aclrtContext ctx = NULL;
        REQUIRE_OK(aclrtCreateContext(&ctx, 0));
        failure_modes();
        EXPECT_OK(aclrtDestroyContext(ctx));
    }
    EXPECT_CODE(aclrtDestroyStream(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    expect_no_live_objects();
    return finish("test_streams");
}
