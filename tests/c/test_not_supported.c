/* Functions without an emulated implementation: each returns ACL_ERROR_RT_FEATURE_NOT_SUPPORT
 * (or NULL / 0 / nothing by its C return type), notes that code as the thread's last error and a
 * message naming the function, and never touches its pointer arguments (garbage ones here). */
#include "check.h"

#define NS ACL_ERROR_RT_FEATURE_NOT_SUPPORT

/* The last error is the stub's, and the message names it. */
static void expect_noted(const char *function)
{
    const char *msg = aclGetRecentErrMsg();
    g_checks++;
    if (msg == NULL || strstr(msg, function) == NULL || strstr(msg, "not supported") == NULL) {
        g_failures++;
        fprintf(stderr, "%s: message %s\n", function, msg ? msg : "(none)");
    }
    EXPECT_CODE(aclrtGetLastError(ACL_RT_THREAD_LEVEL), NS);
}

static void noop_host(void *args) { (void)args; }

static void stubs(void)
{
    void *garbage = (void *)(uintptr_t)0x10;
    aclrtStream stream = (aclrtStream)garbage;
    aclrtLabel label = NULL;
    dim3 grid = {2, 3, 4};

    /* aclError returns. */
    EXPECT_CODE(aclrtCreateLabel(&label), NS);
    CHECK(label == NULL);
    expect_noted("aclrtCreateLabel");
    EXPECT_CODE(aclrtNotifySetImportPidInterServer(garbage, (aclrtServerPid *)garbage, 1), NS);
    expect_noted("aclrtNotifySetImportPidInterServer");
    EXPECT_CODE(aclrtGetBufDataLen((aclrtMbuf)garbage, (size_t *)garbage), NS);
    expect_noted("aclrtGetBufDataLen");
    EXPECT_CODE(aclrtBinaryGetFunctionByEntry(garbage, 8, (aclrtFuncHandle *)garbage), NS);
    expect_noted("aclrtBinaryGetFunctionByEntry");
    EXPECT_CODE(aclrtLaunchSIMTKernelWithHostArgs(garbage, grid, grid, 0, stream, NULL,
                                                  garbage, 8, NULL, 0), NS);
    expect_noted("aclrtLaunchSIMTKernelWithHostArgs");
    EXPECT_CODE(aclrtMemMapSelectedLink(garbage, 64, garbage, 0), NS);
    expect_noted("aclrtMemMapSelectedLink");
    EXPECT_CODE(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), NS);
    expect_noted("aclmdlRICaptureBegin");
    EXPECT_CODE(aclrtGetFuncBySymbol(garbage, (aclrtFuncHandle *)garbage), NS);
    expect_noted("aclrtGetFuncBySymbol");
    EXPECT_CODE(aclrtSnapShotProcessLock(1, garbage), NS);
    expect_noted("aclrtSnapShotProcessLock");
    EXPECT_CODE(aclrtBinaryGetDevAddress(garbage, (void **)garbage, (size_t *)garbage), NS);
    expect_noted("aclrtBinaryGetDevAddress");
    EXPECT_CODE(aclrtDestroyLabel((aclrtLabel)garbage), NS);
    expect_noted("aclrtDestroyLabel");
    /* An implemented function is not one of them. */
    CHECK(aclrtLaunchHostFunc(stream, noop_host, NULL) != NS);
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);

    /* Pointer returns: NULL. */
    CHECK(aclrtCreateGroupInfo() == NULL);
    expect_noted("aclrtCreateGroupInfo");


    /* aclError returning a number through a pointer left alone. */
    uint32_t value = 1234;
    EXPECT_CODE(aclrtGetGroupCount(&value), NS);
    CHECK(value == 1234);
    expect_noted("aclrtGetGroupCount");
}

int main(void)
{
    /* Before aclInit the answer is the same: the feature is missing, not the initialisation. */
    stubs();
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    stubs();
    /* A successful call afterwards leaves the noted error alone; reading clears it. */
    EXPECT_CODE(aclrtCreateLabel(NULL), NS);
    int32_t device = -1;
    EXPECT_OK(aclrtGetDevice(&device));
    EXPECT_CODE(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), NS);
    EXPECT_CODE(aclrtGetLastError(ACL_RT_THREAD_LEVEL), NS);
    EXPECT_CODE(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    REQUIRE_OK(aclrtResetDevice(0));
    REQUIRE_OK(aclFinalize());
    expect_no_live_objects();
    return finish("test_not_supported");
}
