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
static void host_func(void *args)
{
    (void)args;
    g_served++;
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

    /* Host-function subscriptions: this thread serves the stream's callbacks. */
    uint64_t me = (uint64_t)pthread_self();
    EXPECT_CODE(aclrtSubscribeHostFunc(me, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtUnSubscribeHostFunc(me, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtSubscribeHostFunc(me, s));
    EXPECT_CODE(aclrtSubscribeHostFunc(me, s), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    EXPECT_OK(aclrtLaunchCallback(host_func, NULL, ACL_CALLBACK_NO_BLOCK, s));
    while (g_served == 0) {
        (void)aclrtProcessHostFunc(100);
    }
    EXPECT_CODE(aclrtProcessHostFunc(0), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtUnSubscribeHostFunc(me, s));
    EXPECT_CODE(aclrtUnSubscribeHostFunc(me, s), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);

    EXPECT_OK(aclrtDestroyStream(s));
    REQUIRE_OK(aclrtResetDeviceForce(0));
    expect_no_live_objects();
    REQUIRE_OK(aclFinalize());
    return finish("test_exceptions_ext");
}
