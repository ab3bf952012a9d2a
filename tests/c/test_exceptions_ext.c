/* Process-level exception callbacks, aclrtGetErrorVerbose and the host-function subscriptions
 * through the C ABI. */
#include "check.h"

static int g_a, g_b, g_set;
static uint32_t g_code;

static void cb_a(aclrtExceptionInfo *info)
{
    g_a++;
    g_code = aclrtGetErrorCodeFromExceptionInfo(info);
}
static void cb_b(aclrtExceptionInfo *info)
{
    (void)info;
    g_b++;
}
static void cb_set(aclrtExceptionInfo *info)
{
    (void)info;
    g_set++;
}

static void fail_once(aclrtStream s)
{
    aclError code = 4242;
    EXPECT_OK(aclxLaunchHostKernel(s, failing_kernel, &code, "fails"));
    EXPECT_CODE(aclrtSynchronizeStream(s), 4242);
}

static int g_served;
static pthread_t g_served_on;
static void host_func(void *args)
{
    (void)args;
    g_served_on = pthread_self();
    g_served++;
}

/* The vendor's callback sample: one thread serves the stream's callbacks, another its host
 * functions, each in its own process call. */
struct server {
    int host_funcs; /* 1: aclrtProcessHostFunc, 0: aclrtProcessReport */
    aclrtContext ctx;
    int stop; /* read and written with __atomic builtins */
};

static void *serve(void *arg)
{
    struct server *sv = (struct server *)arg;
    (void)aclrtSetCurrentContext(sv->ctx);
    while (!__atomic_load_n(&sv->stop, __ATOMIC_ACQUIRE)) {
        if (sv->host_funcs) {
            (void)aclrtProcessHostFunc(20);
        } else {
            (void)aclrtProcessReport(20);
        }
    }
    return NULL;
}

static pthread_t g_cb_on;
static int g_cb_runs;
static void callback(void *args)
{
    (void)args;
    g_cb_on = pthread_self();
    g_cb_runs++;
}

static void two_subscriptions(aclrtStream s)
{
    aclrtContext ctx = NULL;
    struct server reports = {0, NULL, 0}, funcs = {1, NULL, 0};
    pthread_t rt, ft;

    REQUIRE_OK(aclrtGetCurrentContext(&ctx));
    reports.ctx = funcs.ctx = ctx;
    CHECK(pthread_create(&rt, NULL, serve, &reports) == 0);
    CHECK(pthread_create(&ft, NULL, serve, &funcs) == 0);
    EXPECT_OK(aclrtSubscribeReport((uint64_t)rt, s));
    EXPECT_OK(aclrtSubscribeHostFunc((uint64_t)ft, s));
    g_served = 0;
    g_cb_runs = 0;
    EXPECT_OK(aclrtLaunchCallback(callback, NULL, ACL_CALLBACK_BLOCK, s));
    EXPECT_OK(aclrtLaunchHostFunc(s, host_func, NULL));
    EXPECT_OK(aclrtLaunchCallback(callback, NULL, ACL_CALLBACK_BLOCK, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(g_cb_runs == 2 && g_served == 1);
    CHECK(pthread_equal(g_cb_on, rt));
    CHECK(pthread_equal(g_served_on, ft));
    EXPECT_OK(aclrtUnSubscribeReport((uint64_t)rt, s));
    EXPECT_OK(aclrtUnSubscribeHostFunc((uint64_t)ft, s));
    /* Unsubscribed: host functions run on a runtime thread again. */
    EXPECT_OK(aclrtLaunchHostFunc(s, host_func, NULL));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(g_served == 2);
    CHECK(!pthread_equal(g_served_on, ft) && !pthread_equal(g_served_on, rt));
    __atomic_store_n(&reports.stop, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&funcs.stop, 1, __ATOMIC_RELEASE);
    pthread_join(rt, NULL);
    pthread_join(ft, NULL);
}

int main(void)
{
    aclrtStream s = NULL;
    aclrtErrorInfo info;

    EXPECT_CODE(aclrtExceptionInfoCallbackRegister(cb_a), ACL_ERROR_UNINITIALIZE);
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&s));

    memset(&info, 0x5A, sizeof info);
    EXPECT_OK(aclrtGetErrorVerbose(0, &info));
    CHECK(info.errorType == ACL_RT_NO_ERROR && info.tryRepair == 0 && info.hasDetail == 0);
    EXPECT_CODE(aclrtGetErrorVerbose(1, &info), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtGetErrorVerbose(0, NULL), ACL_ERROR_INVALID_PARAM);

    EXPECT_CODE(aclrtExceptionInfoCallbackRegister(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtExceptionInfoCallbackUnregister(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtSetExceptionInfoCallback(cb_set));
    EXPECT_OK(aclrtExceptionInfoCallbackRegister(cb_a));
    EXPECT_OK(aclrtExceptionInfoCallbackRegister(cb_a));
    EXPECT_OK(aclrtExceptionInfoCallbackRegister(cb_b));
    fail_once(s);
    CHECK(g_set == 1 && g_a == 1 && g_b == 1 && g_code == 4242);
    EXPECT_OK(aclrtExceptionInfoCallbackUnregister(cb_a));
    EXPECT_OK(aclrtExceptionInfoCallbackUnregister(cb_a));
    fail_once(s);
    CHECK(g_set == 2 && g_a == 1 && g_b == 2);
    EXPECT_OK(aclrtExceptionInfoCallbackUnregister(cb_b));
    EXPECT_OK(aclrtSetExceptionInfoCallback(NULL));

    EXPECT_OK(aclrtGetErrorVerbose(0, &info));
    CHECK(info.errorType == ACL_RT_ERROR_OTHERS && info.hasDetail == 0);

    /* Host-function subscriptions: this thread runs the stream's host functions. */
    uint64_t me = (uint64_t)pthread_self();
    EXPECT_CODE(aclrtSubscribeHostFunc(me, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtUnSubscribeHostFunc(me, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtSubscribeHostFunc(me, s));
    EXPECT_CODE(aclrtSubscribeHostFunc(me, s), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    /* Not a report subscription: callbacks still need aclrtSubscribeReport, and this thread
     * has no report to process. */
    EXPECT_CODE(aclrtLaunchCallback(host_func, NULL, ACL_CALLBACK_NO_BLOCK, s),
                ACL_ERROR_RT_STREAM_NO_CB_REG);
    EXPECT_CODE(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    EXPECT_OK(aclrtLaunchHostFunc(s, host_func, NULL));
    while (g_served == 0) {
        (void)aclrtProcessHostFunc(100);
    }
    CHECK(pthread_equal(g_served_on, pthread_self()));
    EXPECT_CODE(aclrtProcessHostFunc(0), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtUnSubscribeHostFunc(me, s));
    EXPECT_CODE(aclrtUnSubscribeHostFunc(me, s), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    two_subscriptions(s);

    EXPECT_OK(aclrtDestroyStream(s));
    REQUIRE_OK(aclrtResetDeviceForce(0));
    expect_no_live_objects();
    REQUIRE_OK(aclFinalize());
    return finish("test_exceptions_ext");
}
