/* Runtime configuration through the C ABI: system parameters (process and context), operator
 * timeouts (the event wait timeout enforced on a stream), device limits, and the documented
 * error paths with their exact codes. */
#include "check.h"

#define INTERVAL_US 4294967ull
#define MAX_US (INTERVAL_US * 254ull)

static void before_init(void)
{
    int64_t v = 0;
    EXPECT_CODE(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclrtSetOpWaitTimeout(1), ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 65536),
                ACL_ERROR_UNINITIALIZE);
}

static void sys_params(void)
{
    int64_t v = 77;

    /* The process's values: 0 until set, the last setting wins. */
    EXPECT_OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
    CHECK(v == 0);
    EXPECT_OK(aclrtGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &v));
    CHECK(v == 0);
    EXPECT_OK(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1));
    EXPECT_OK(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 3));
    EXPECT_OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
    CHECK(v == 3);
    EXPECT_OK(aclrtSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 1));
    EXPECT_OK(aclrtGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &v));
    CHECK(v == 1);

    /* Errors: NULL, an option outside the three, a value outside the option's range. */
    v = 77;
    EXPECT_CODE(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, &v),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 0),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetSysParamOpt((aclSysParamOpt)9, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 4), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, -1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 2), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(v == 77);

    /* Context values: none without a current context, none set until set. */
    EXPECT_CODE(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_CODE(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_ERROR_RT_CONTEXT_NULL);
    REQUIRE_OK(aclrtSetDevice(0));
    EXPECT_CODE(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v),
                ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
    CHECK(v == 77);
    EXPECT_CODE(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCtxGetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, &v),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 0),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 4), ACL_ERROR_RT_PARAM_INVALID);

    /* Setting a context's value sets the process's too. */
    EXPECT_OK(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 2));
    EXPECT_OK(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
    CHECK(v == 2);
    EXPECT_OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
    CHECK(v == 2);
    EXPECT_CODE(aclrtCtxGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &v),
                ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);

    /* Another context has its own values. */
    aclrtContext ctx = NULL;
    REQUIRE_OK(aclrtCreateContext(&ctx, 0));
    EXPECT_CODE(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v),
                ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
    EXPECT_OK(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0));
    EXPECT_OK(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
    CHECK(v == 0);
    EXPECT_OK(aclrtDestroyContext(ctx));
    REQUIRE_OK(aclrtSetDevice(0));
    EXPECT_OK(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
    CHECK(v == 2);
    REQUIRE_OK(aclrtResetDevice(0));
    REQUIRE_OK(aclrtResetDevice(0));
}

static void op_execute_timeouts(void)
{
    uint64_t interval = 0, actual = 0;
    uint32_t ms = 0;

    EXPECT_OK(aclrtGetOpTimeOutInterval(&interval));
    CHECK(interval == INTERVAL_US);
    EXPECT_OK(aclrtGetOpExecuteTimeout(&ms));
    CHECK(ms == (uint32_t)(MAX_US / 1000));

    /* Rounded up to whole intervals, at most 254 of them; 0 is the longest. */
    EXPECT_OK(aclrtSetOpExecuteTimeOutV2(1, &actual));
    CHECK(actual == INTERVAL_US);
    EXPECT_OK(aclrtSetOpExecuteTimeOutV2(INTERVAL_US + 1, &actual));
    CHECK(actual == 2 * INTERVAL_US);
    EXPECT_OK(aclrtGetOpExecuteTimeout(&ms));
    CHECK(ms == (uint32_t)(2 * INTERVAL_US / 1000));
    EXPECT_OK(aclrtSetOpExecuteTimeOutV2(0, &actual));
    CHECK(actual == MAX_US);
    EXPECT_OK(aclrtSetOpExecuteTimeOutV2(UINT64_MAX, &actual));
    CHECK(actual == MAX_US);

    EXPECT_OK(aclrtSetOpExecuteTimeOut(10)); /* 10 s: 3 intervals */
    EXPECT_OK(aclrtGetOpExecuteTimeout(&ms));
    CHECK(ms == (uint32_t)(3 * INTERVAL_US / 1000));
    EXPECT_OK(aclrtSetOpExecuteTimeOutWithMs(5000)); /* 5 s: 2 intervals */
    EXPECT_OK(aclrtGetOpExecuteTimeout(&ms));
    CHECK(ms == (uint32_t)(2 * INTERVAL_US / 1000));
    EXPECT_OK(aclrtSetOpExecuteTimeOut(0));
    EXPECT_OK(aclrtGetOpExecuteTimeout(&ms));
    CHECK(ms == (uint32_t)(MAX_US / 1000));

    EXPECT_CODE(aclrtSetOpExecuteTimeOutV2(1, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetOpExecuteTimeout(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetOpTimeOutInterval(NULL), ACL_ERROR_INVALID_PARAM);
}

static void sleep_host(void *args)
{
    sleep_ms(*(int *)args);
}

static void op_wait_timeout(void)
{
    static int nap = 1500;
    aclrtStream a = NULL, b = NULL;
    aclrtEvent ev = NULL;

    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&a));
    REQUIRE_OK(aclrtCreateStream(&b));
    REQUIRE_OK(aclrtCreateEvent(&ev));

    /* A wait queued while the timeout is 1 s gives up on a record 1.5 s away. */
    EXPECT_OK(aclrtSetOpWaitTimeout(1));
    EXPECT_OK(aclrtLaunchHostFunc(b, sleep_host, &nap));
    EXPECT_OK(aclrtRecordEvent(ev, b));
    EXPECT_OK(aclrtStreamWaitEvent(a, ev));
    EXPECT_CODE(aclrtSynchronizeStream(a), ACL_ERROR_RT_TASK_TIMEOUT);
    EXPECT_OK(aclrtSynchronizeStream(b));

    /* 0 waits without limit again. */
    EXPECT_OK(aclrtSetOpWaitTimeout(0));
    EXPECT_OK(aclrtLaunchHostFunc(b, sleep_host, &nap));
    EXPECT_OK(aclrtRecordEvent(ev, b));
    EXPECT_OK(aclrtStreamWaitEvent(a, ev));
    EXPECT_OK(aclrtSynchronizeStream(a));

    EXPECT_OK(aclrtDestroyEvent(ev));
    EXPECT_OK(aclrtDestroyStream(a));
    EXPECT_OK(aclrtDestroyStream(b));
    REQUIRE_OK(aclrtResetDevice(0));
}

static void device_limits(void)
{
    size_t v = 0;

    /* Defaults, before any device is set. */
    EXPECT_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v));
    CHECK(v == 32768);
    EXPECT_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, &v));
    CHECK(v == 1048576);

    /* SIMD stack: up to 32 KiB keeps the default, above it rounds up to 16 KiB, 192 KiB most. */
    EXPECT_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 40000));
    EXPECT_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v));
    CHECK(v == 49152);
    EXPECT_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 1000));
    EXPECT_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v));
    CHECK(v == 32768);
    EXPECT_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 196608));
    EXPECT_CODE(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 196609),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v));
    CHECK(v == 196608);

    /* printf FIFO: 1 KiB to 64 MiB, rounded up to 8 bytes. */
    EXPECT_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 1025));
    EXPECT_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, &v));
    CHECK(v == 1032);
    EXPECT_CODE(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 1023),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE,
                                    67108865),
                ACL_ERROR_RT_PARAM_INVALID);

    /* The SIMT limits do not exist on the emulated chip; other values are invalid. */
    EXPECT_CODE(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, 1024),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE, &v),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE, &v),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_CODE(aclrtDeviceSetLimit((aclrtDeviceLimit)5, 1024), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, NULL),
                ACL_ERROR_INVALID_PARAM);

    /* One setting for the process: a device reset keeps it. */
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtResetDevice(0));
    EXPECT_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, &v));
    CHECK(v == 1032);
}

int main(void)
{
    before_init();
    REQUIRE_OK(aclInit(NULL));
    sys_params();
    op_execute_timeouts();
    op_wait_timeout();
    device_limits();
    REQUIRE_OK(aclFinalize());

    /* aclFinalize forgets every setting. */
    REQUIRE_OK(aclInit(NULL));
    int64_t v = 9;
    size_t limit = 0;
    uint32_t ms = 0;
    EXPECT_OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
    CHECK(v == 0);
    EXPECT_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, &limit));
    CHECK(limit == 1048576);
    EXPECT_OK(aclrtGetOpExecuteTimeout(&ms));
    CHECK(ms == (uint32_t)(MAX_US / 1000));
    REQUIRE_OK(aclFinalize());
    expect_no_live_objects();
    return finish("test_config");
}
