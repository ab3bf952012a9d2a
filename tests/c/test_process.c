/* Process lifecycle, error reporting, and the "not initialised" and NULL-pointer paths of every
 * exported function. */
#include "check.h"

static void noop_cb(void *data) { (void)data; }
static void noop_exc(aclrtExceptionInfo *info) { (void)info; }

static void every_call_before_init(void)
{
    aclrtStream s = NULL;
    aclrtEvent e = (aclrtEvent)0x1234;
    aclrtContext c = NULL;
    int32_t i32 = 0;
    uint32_t u32 = 0;
    uint64_t u64 = 0;
    size_t a = 0, b = 0;
    float ms = 0;
    void *p = NULL;
    char buf[8];
    const int U = ACL_ERROR_UNINITIALIZE;

    EXPECT_CODE(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    EXPECT_CODE(aclrtSetDevice(0), U);
    EXPECT_CODE(aclrtResetDevice(0), U);
    EXPECT_CODE(aclrtGetDevice(&i32), U);
    EXPECT_CODE(aclrtGetDeviceCount(&u32), U);
    EXPECT_CODE(aclrtGetRunMode((aclrtRunMode *)&u32), U);
    EXPECT_CODE(aclrtSynchronizeDevice(), U);
    EXPECT_CODE(aclrtSynchronizeDeviceWithTimeout(10), U);
    EXPECT_CODE(aclrtCreateContext(&c, 0), U);
    EXPECT_CODE(aclrtDestroyContext(c), U);
    EXPECT_CODE(aclrtSetCurrentContext(c), U);
    EXPECT_CODE(aclrtGetCurrentContext(&c), U);
    EXPECT_CODE(aclrtCreateStream(&s), U);
    EXPECT_CODE(aclrtCreateStreamWithConfig(&s, 0, 0), U);
    EXPECT_CODE(aclrtDestroyStream(s), U);
    EXPECT_CODE(aclrtDestroyStreamForce(s), U);
    EXPECT_CODE(aclrtSynchronizeStream(s), U);
    EXPECT_CODE(aclrtSynchronizeStreamWithTimeout(s, 10), U);
    EXPECT_CODE(aclrtStreamQuery(s, (aclrtStreamStatus *)&u32), U);
    EXPECT_CODE(aclrtStreamGetId(s, &i32), U);
    EXPECT_CODE(aclrtStreamGetPriority(s, &u32), U);
    EXPECT_CODE(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE), U);
    EXPECT_CODE(aclrtStreamWaitEvent(s, e), U);
    EXPECT_CODE(aclrtStreamWaitEventWithTimeout(s, e, 0), U);
    EXPECT_CODE(aclrtStreamWaitEventWithFlag(s, e, 0, 0), U);
    EXPECT_CODE(aclrtCreateEvent(&e), U);
    EXPECT_CODE(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC), U);
    EXPECT_CODE(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC), U);
    EXPECT_CODE(aclrtDestroyEvent(e), U);
    EXPECT_CODE(aclrtRecordEvent(e, s), U);
    EXPECT_CODE(aclrtRecordEventWithFlag(e, s, 0), U);
    EXPECT_CODE(aclrtResetEvent(e, s), U);
    EXPECT_CODE(aclrtQueryEvent(e, (aclrtEventStatus *)&u32), U);
    EXPECT_CODE(aclrtQueryEventStatus(e, (aclrtEventRecordedStatus *)&u32), U);
    EXPECT_CODE(aclrtQueryEventWaitStatus(e, (aclrtEventWaitStatus *)&u32), U);
    EXPECT_CODE(aclrtSynchronizeEvent(e), U);
    EXPECT_CODE(aclrtSynchronizeEventWithTimeout(e, 10), U);
    EXPECT_CODE(aclrtEventElapsedTime(&ms, e, e), U);
    EXPECT_CODE(aclrtEventGetTimestamp(e, &u64), U);
    EXPECT_CODE(aclrtGetEventId(e, &u32), U);
    EXPECT_CODE(aclrtGetEventAvailNum(&u32), U);
    EXPECT_CODE(aclrtSubscribeReport(1, s), U);
    EXPECT_CODE(aclrtUnSubscribeReport(1, s), U);
    EXPECT_CODE(aclrtLaunchCallback(noop_cb, NULL, ACL_CALLBACK_BLOCK, s), U);
    EXPECT_CODE(aclrtProcessReport(10), U);
    EXPECT_CODE(aclrtLaunchHostFunc(s, noop_cb, NULL), U);
    EXPECT_CODE(aclrtSetExceptionInfoCallback(noop_exc), U);
    EXPECT_CODE(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), U);
    EXPECT_CODE(aclrtMallocHost(&p, 64), U);
    EXPECT_CODE(aclrtFree(buf), U);
    EXPECT_CODE(aclrtFreeHost(buf), U);
    EXPECT_CODE(aclrtMemcpy(buf, 8, buf, 8, ACL_MEMCPY_HOST_TO_HOST), U);
    EXPECT_CODE(aclrtMemcpyAsync(buf, 8, buf, 8, ACL_MEMCPY_HOST_TO_HOST, s), U);
    EXPECT_CODE(aclrtMemset(buf, 8, 0, 8), U);
    EXPECT_CODE(aclrtMemsetAsync(buf, 8, 0, 8, s), U);
    EXPECT_CODE(aclrtGetMemInfo(ACL_HBM_MEM, &a, &b), U);
    EXPECT_CODE(aclxLaunchHostKernel(s, sleep_kernel, &i32, "k"), U);
    /* NULL pointers do not jump the queue: "not initialised" comes first. */
    EXPECT_CODE(aclrtCreateStream(NULL), U);
    EXPECT_CODE(aclrtGetMemInfo(ACL_HBM_MEM, NULL, NULL), U);
}

static void every_null_pointer(void)
{
    aclrtStream s = NULL;
    aclrtEvent e = NULL;
    aclrtEvent live = NULL;
    uint32_t u32 = 0;
    uint64_t u64 = 0;
    size_t a = 0;
    float ms = 0;
    const int P = ACL_ERROR_INVALID_PARAM;

    REQUIRE_OK(aclrtCreateEvent(&live));
    EXPECT_CODE(aclrtGetDevice(NULL), P);
    EXPECT_CODE(aclrtGetDeviceCount(NULL), P);
    EXPECT_CODE(aclrtGetRunMode(NULL), P);
    EXPECT_CODE(aclrtCreateContext(NULL, 0), P);
    EXPECT_CODE(aclrtDestroyContext(NULL), P);
    EXPECT_CODE(aclrtSetCurrentContext(NULL), P);
    EXPECT_CODE(aclrtGetCurrentContext(NULL), P);
    EXPECT_CODE(aclrtCreateStream(NULL), P);
    EXPECT_CODE(aclrtCreateStreamWithConfig(NULL, 0, 0), P);
    EXPECT_CODE(aclrtDestroyStream(NULL), P);
    EXPECT_CODE(aclrtDestroyStreamForce(NULL), P);
    EXPECT_CODE(aclrtStreamQuery(s, NULL), P);
    EXPECT_CODE(aclrtStreamGetId(s, NULL), P);
    EXPECT_CODE(aclrtStreamGetPriority(s, NULL), P);
    EXPECT_CODE(aclrtStreamWaitEvent(s, e), P);
    EXPECT_CODE(aclrtStreamWaitEventWithTimeout(s, e, 0), P);
    EXPECT_CODE(aclrtStreamWaitEventWithFlag(s, e, 0, 0), P);
    EXPECT_CODE(aclrtCreateEvent(NULL), P);
    EXPECT_CODE(aclrtCreateEventWithFlag(NULL, ACL_EVENT_SYNC), P);
    EXPECT_CODE(aclrtCreateEventExWithFlag(NULL, ACL_EVENT_SYNC), P);
    EXPECT_CODE(aclrtDestroyEvent(e), P);
    EXPECT_CODE(aclrtRecordEvent(e, s), P);
    EXPECT_CODE(aclrtRecordEventWithFlag(e, s, 0), P);
    EXPECT_CODE(aclrtResetEvent(e, s), P);
    EXPECT_CODE(aclrtQueryEvent(e, (aclrtEventStatus *)&u32), P);
    EXPECT_CODE(aclrtQueryEvent(live, NULL), P);
    EXPECT_CODE(aclrtQueryEventStatus(e, (aclrtEventRecordedStatus *)&u32), P);
    EXPECT_CODE(aclrtQueryEventStatus(live, NULL), P);
    EXPECT_CODE(aclrtQueryEventWaitStatus(e, (aclrtEventWaitStatus *)&u32), P);
    EXPECT_CODE(aclrtQueryEventWaitStatus(live, NULL), P);
    EXPECT_CODE(aclrtSynchronizeEvent(e), P);
    EXPECT_CODE(aclrtSynchronizeEventWithTimeout(e, 10), P);
    EXPECT_CODE(aclrtEventElapsedTime(NULL, live, live), P);
    EXPECT_CODE(aclrtEventElapsedTime(&ms, e, live), P);
    EXPECT_CODE(aclrtEventElapsedTime(&ms, live, e), P);
    EXPECT_CODE(aclrtEventGetTimestamp(e, &u64), P);
    EXPECT_CODE(aclrtEventGetTimestamp(live, NULL), P);
    EXPECT_CODE(aclrtGetEventId(e, &u32), P);
    EXPECT_CODE(aclrtGetEventId(live, NULL), P);
    EXPECT_CODE(aclrtGetEventAvailNum(NULL), P);
    EXPECT_CODE(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), P);
    EXPECT_CODE(aclrtMallocHost(NULL, 64), P);
    EXPECT_CODE(aclrtFree(NULL), P);
    EXPECT_CODE(aclrtFreeHost(NULL), P);
    EXPECT_CODE(aclrtMemcpy(NULL, 8, &a, 8, ACL_MEMCPY_HOST_TO_HOST), P);
    EXPECT_CODE(aclrtMemcpy(&a, 8, NULL, 8, ACL_MEMCPY_HOST_TO_HOST), P);
    EXPECT_CODE(aclrtMemcpyAsync(NULL, 8, &a, 8, ACL_MEMCPY_HOST_TO_HOST, s), P);
    EXPECT_CODE(aclrtMemset(NULL, 8, 0, 8), P);
    EXPECT_CODE(aclrtMemsetAsync(NULL, 8, 0, 8, s), P);
    EXPECT_CODE(aclrtGetMemInfo(ACL_HBM_MEM, NULL, &a), P);
    EXPECT_CODE(aclrtGetMemInfo(ACL_HBM_MEM, &a, NULL), P);
    EXPECT_CODE(aclrtGetVersion(NULL, NULL, NULL), P);
    EXPECT_CODE(aclxGetLiveObjects(NULL), P);
    /* NULL function pointers are runtime parameter errors. */
    EXPECT_CODE(aclrtLaunchCallback(NULL, NULL, ACL_CALLBACK_BLOCK, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtLaunchHostFunc(s, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclxLaunchHostKernel(s, NULL, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
    /* NULL clears the exception callback: that is a success. */
    EXPECT_OK(aclrtSetExceptionInfoCallback(NULL));
    EXPECT_OK(aclrtDestroyEvent(live));
}

static void error_reporting(void)
{
    const char *msg;
    aclrtStream s = NULL;

    /* Clean slate. */
    (void)aclGetRecentErrMsg();
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    CHECK(aclGetRecentErrMsg() == NULL);
    EXPECT_OK(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));

    EXPECT_CODE(aclrtSetDevice(99), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
    msg = aclGetRecentErrMsg();
    CHECK(msg != NULL && strstr(msg, "99") != NULL);
    /* Reading clears the message, but not the last error. */
    CHECK(aclGetRecentErrMsg() == NULL);
    /* Successful calls leave the last error alone. */
    REQUIRE_OK(aclrtCreateStream(&s));
    EXPECT_CODE(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_OK(aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    /* Only the thread level exists. */
    EXPECT_CODE(aclrtPeekAtLastError((aclrtLastErrLevel)1), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetLastError((aclrtLastErrLevel)7), ACL_ERROR_INVALID_PARAM);
    /* Face-detected errors are reported the same way. */
    EXPECT_CODE(aclrtStreamQuery(s, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
    msg = aclGetRecentErrMsg();
    CHECK(msg != NULL && strstr(msg, "aclrtStreamQuery") != NULL);
    EXPECT_OK(aclrtDestroyStream(s));
}

int main(void)
{
    int32_t major = -1, minor = -1, patch = -1;
    uint32_t count = 0;
    int32_t dev = -1;
    aclrtRunMode mode = ACL_DEVICE;

    /* The version needs no initialisation. */
    EXPECT_OK(aclrtGetVersion(&major, &minor, &patch));
    CHECK(major == ACL_MAJOR_VERSION && minor == ACL_MINOR_VERSION && patch == ACL_PATCH_VERSION);
    expect_no_live_objects();

    every_call_before_init();

    EXPECT_CODE(aclInit("/nonexistent/acl.json"), ACL_ERROR_INVALID_FILE);
    EXPECT_CODE(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
    EXPECT_OK(aclInit(""));
    EXPECT_CODE(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    EXPECT_OK(aclFinalize());
    EXPECT_CODE(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    /* A readable file is accepted (its content is not interpreted). */
    EXPECT_OK(aclInit("/dev/null"));
    EXPECT_CODE(aclxConfigureDevices(2, 1 << 20), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclFinalize());
    EXPECT_CODE(aclxConfigureDevices(0, 1 << 20), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclxConfigureDevices(2, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclxConfigureDevices(3, 1 << 20));
    REQUIRE_OK(aclInit(NULL));

    EXPECT_OK(aclrtGetDeviceCount(&count));
    CHECK(count == 3);
    EXPECT_OK(aclrtGetRunMode(&mode));
    CHECK(mode == ACL_HOST);
    EXPECT_CODE(aclrtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);
    REQUIRE_OK(aclrtSetDevice(2));
    EXPECT_OK(aclrtGetDevice(&dev));
    CHECK(dev == 2);

    every_null_pointer();
    error_reporting();

    EXPECT_OK(aclrtResetDevice(2));
    EXPECT_CODE(aclrtResetDevice(2), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    EXPECT_OK(aclFinalize());
    expect_no_live_objects();
    return finish("test_process");
}
