/* The smaller device, stream and process calls: aclFinalizeReference's count, device id
 * mappings, the primary context's state, the bare tgid, the thread's last task id (matching
 * exception information), floating-point overflow modes, switches and status, and
 * aclrtReduceAsync's arithmetic — success paths and documented error codes. */
#include "check.h"

static void finalize_reference(void)
{
    uint64_t left = 99;

    EXPECT_CODE(aclFinalizeReference(&left), ACL_ERROR_REPEAT_FINALIZE);
    EXPECT_CODE(left, 0);
    REQUIRE_OK(aclInit(NULL));
    EXPECT_CODE(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    EXPECT_CODE(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    /* Three aclInit calls: two references are taken back without tearing down. */
    EXPECT_OK(aclFinalizeReference(&left));
    EXPECT_CODE(left, 2);
    EXPECT_OK(aclrtSetDevice(0));
    EXPECT_OK(aclFinalizeReference(NULL));
    uint32_t count = 0;
    EXPECT_OK(aclrtGetDeviceCount(&count));
    /* The last one finalizes. */
    EXPECT_OK(aclFinalizeReference(&left));
    EXPECT_CODE(left, 0);
    EXPECT_CODE(aclrtGetDeviceCount(&count), ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclFinalizeReference(&left), ACL_ERROR_REPEAT_FINALIZE);
    EXPECT_CODE(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    /* aclFinalize ends every reference at once. */
    REQUIRE_OK(aclInit(NULL));
    EXPECT_CODE(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    EXPECT_OK(aclFinalize());
    EXPECT_CODE(aclFinalizeReference(&left), ACL_ERROR_REPEAT_FINALIZE);
}

static void device_ids(void)
{
    int32_t id = -7;

    EXPECT_OK(aclrtGetUserDevIdByLogicDevId(1, &id));
    EXPECT_CODE(id, 1);
    EXPECT_OK(aclrtGetLogicDevIdByUserDevId(0, &id));
    EXPECT_CODE(id, 0);
    EXPECT_OK(aclrtGetLogicDevIdByPhyDevId(1, &id));
    EXPECT_CODE(id, 1);
    EXPECT_OK(aclrtGetPhyDevIdByLogicDevId(0, &id));
    EXPECT_CODE(id, 0);
    EXPECT_CODE(aclrtGetUserDevIdByLogicDevId(-1, &id), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtGetLogicDevIdByUserDevId(2, &id), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtGetLogicDevIdByPhyDevId(-3, &id), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtGetPhyDevIdByLogicDevId(9, &id), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtGetPhyDevIdByLogicDevId(0, NULL), ACL_ERROR_INVALID_PARAM);

    int32_t pid = 0;
    EXPECT_OK(aclrtDeviceGetBareTgid(&pid));
    EXPECT_CODE(pid, getpid());
    EXPECT_CODE(aclrtDeviceGetBareTgid(NULL), ACL_ERROR_INVALID_PARAM);
}

static void arch_compatibility(void)
{
    int32_t ok = -1;

    EXPECT_OK(aclrtCheckArchCompatibility("Ascend910B3", &ok));
    EXPECT_CODE(ok, 1);
    /* Another A2 chip shares the architecture; a 310P does not. */
    EXPECT_OK(aclrtCheckArchCompatibility("Ascend910B1", &ok));
    EXPECT_CODE(ok, 1);
    EXPECT_OK(aclrtCheckArchCompatibility("Ascend310P3", &ok));
    EXPECT_CODE(ok, 0);
    EXPECT_CODE(aclrtCheckArchCompatibility("", &ok), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCheckArchCompatibility("Ascend9999", &ok), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCheckArchCompatibility(NULL, &ok), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCheckArchCompatibility("Ascend910B3", NULL), ACL_ERROR_RT_PARAM_INVALID);
    int64_t arch = 0;
    EXPECT_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_NPU_ARCH, &arch));
    EXPECT_CODE(arch, 2201);
}

static void primary_context_state(void)
{
    int32_t active = -1;
    uint32_t flags = 0;

    EXPECT_OK(aclrtGetPrimaryCtxState(1, NULL, &active));
    EXPECT_CODE(active, 0);
    REQUIRE_OK(aclrtSetDevice(1));
    EXPECT_OK(aclrtGetPrimaryCtxState(1, NULL, &active));
    EXPECT_CODE(active, 1);
    REQUIRE_OK(aclrtSetDevice(1));
    REQUIRE_OK(aclrtResetDevice(1));
    EXPECT_OK(aclrtGetPrimaryCtxState(1, NULL, &active));
    EXPECT_CODE(active, 1);
    REQUIRE_OK(aclrtResetDevice(1));
    EXPECT_OK(aclrtGetPrimaryCtxState(1, NULL, &active));
    EXPECT_CODE(active, 0);
    EXPECT_CODE(aclrtGetPrimaryCtxState(1, &flags, &active), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetPrimaryCtxState(1, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetPrimaryCtxState(5, NULL, &active), ACL_ERROR_RT_INVALID_DEVICEID);
}

static uint32_t g_exception_task = 0xFFFFFFFFu;

static void on_exception(aclrtExceptionInfo *info)
{
    g_exception_task = aclrtGetTaskIdFromExceptionInfo(info);
}

static aclError quiet_kernel(void *args)
{
    (void)args;
    return ACL_SUCCESS;
}

static void last_task_id(void)
{
    aclrtStream a = NULL, b = NULL;
    uint32_t id = 77, first = 0, second = 0;
    aclError failure = ACL_ERROR_RT_AICORE_EXCEPTION;

    EXPECT_OK(aclrtGetThreadLastTaskId(&id));
    EXPECT_CODE(id, 0);
    EXPECT_CODE(aclrtGetThreadLastTaskId(NULL), ACL_ERROR_INVALID_PARAM);
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&a));
    REQUIRE_OK(aclrtCreateStream(&b));
    REQUIRE_OK(aclxLaunchHostKernel(a, quiet_kernel, NULL, "first"));
    EXPECT_OK(aclrtGetThreadLastTaskId(&first));
    REQUIRE_OK(aclxLaunchHostKernel(a, quiet_kernel, NULL, "second"));
    EXPECT_OK(aclrtGetThreadLastTaskId(&second));
    CHECK(second == first + 1);
    /* Another stream counts its own tasks. */
    REQUIRE_OK(aclxLaunchHostKernel(b, quiet_kernel, NULL, "other"));
    EXPECT_OK(aclrtGetThreadLastTaskId(&id));
    CHECK(id != second);
    /* The id names the task that exception information reports. */
    REQUIRE_OK(aclrtSetExceptionInfoCallback(on_exception));
    REQUIRE_OK(aclxLaunchHostKernel(a, failing_kernel, &failure, "failing"));
    EXPECT_OK(aclrtGetThreadLastTaskId(&id));
    EXPECT_CODE(aclrtSynchronizeStream(a), ACL_ERROR_RT_AICORE_EXCEPTION);
    EXPECT_CODE(g_exception_task, id);
    CHECK(id == second + 1);
    REQUIRE_OK(aclrtSetExceptionInfoCallback(NULL));
    REQUIRE_OK(aclrtDestroyStream(a));
    REQUIRE_OK(aclrtDestroyStream(b));
}

static void overflow(void)
{
    aclrtFloatOverflowMode mode = ACL_RT_OVERFLOW_MODE_UNDEF;
    aclrtStream s = NULL;
    aclrtContext other = NULL, mine = NULL;
    uint32_t flag = 9;
    uint8_t *status = NULL;
    uint8_t host[64];

    /* The A2 chips start in inf/nan mode. */
    EXPECT_OK(aclrtGetDeviceSatMode(&mode));
    EXPECT_CODE(mode, ACL_RT_OVERFLOW_MODE_INFNAN);
    EXPECT_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION));
    EXPECT_OK(aclrtGetDeviceSatMode(&mode));
    EXPECT_CODE(mode, ACL_RT_OVERFLOW_MODE_SATURATION);
    EXPECT_CODE(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_UNDEF), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtGetDeviceSatMode(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN));

    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtGetCurrentContext(&mine));
    REQUIRE_OK(aclrtCreateStream(&s));
    EXPECT_OK(aclrtGetStreamOverflowSwitch(s, &flag));
    EXPECT_CODE(flag, 0);
    EXPECT_OK(aclrtSetStreamOverflowSwitch(s, 1));
    EXPECT_OK(aclrtGetStreamOverflowSwitch(s, &flag));
    EXPECT_CODE(flag, 1);
    EXPECT_OK(aclrtGetStreamOverflowSwitch(NULL, &flag));
    EXPECT_CODE(flag, 0);
    EXPECT_CODE(aclrtSetStreamOverflowSwitch(s, 2), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtGetStreamOverflowSwitch(s, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtSetStreamOverflowSwitch((aclrtStream)0x1234, 1), ACL_ERROR_RT_INVALID_HANDLE);
    /* A stream of another context than the current one. */
    REQUIRE_OK(aclrtCreateContext(&other, 0));
    EXPECT_CODE(aclrtSetStreamOverflowSwitch(s, 0), ACL_ERROR_RT_STREAM_CONTEXT);
    REQUIRE_OK(aclrtSetCurrentContext(mine));
    REQUIRE_OK(aclrtDestroyContext(other));
    REQUIRE_OK(aclrtSetCurrentContext(mine));

    /* The status is written in stream order: all 64 bytes clear. */
    REQUIRE_OK(aclrtMalloc((void **)&status, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMemset(status, 64, 0xAB, 64));
    EXPECT_OK(aclrtGetOverflowStatus(status, 64, s));
    EXPECT_OK(aclrtResetOverflowStatus(s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    memset(host, 0xCD, sizeof(host));
    REQUIRE_OK(aclrtMemcpy(host, 64, status, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    int clear = 1;
    for (int i = 0; i < 64; i++) {
        clear &= host[i] == 0;
    }
    CHECK(clear);
    EXPECT_CODE(aclrtGetOverflowStatus(status, 32, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtGetOverflowStatus(NULL, 64, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetOverflowStatus(status + 8, 64, s), ACL_ERROR_INVALID_PARAM);
    REQUIRE_OK(aclrtFree(status));
    EXPECT_CODE(aclrtGetOverflowStatus(status, 64, s), ACL_ERROR_INVALID_PARAM);
    REQUIRE_OK(aclrtDestroyStream(s));
}

static void reduce(void)
{
    aclrtStream s = NULL;
    float in[4] = {1.0f, 2.0f, 3.0f, 4.0f}, out[4] = {0};
    float *dev_in = NULL, *dev_out = NULL;
    const size_t size = sizeof(in);

    REQUIRE_OK(aclrtCreateStream(&s));
    REQUIRE_OK(aclrtMalloc((void **)&dev_in, size, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMalloc((void **)&dev_out, size, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMemcpy(dev_in, size, in, size, ACL_MEMCPY_HOST_TO_DEVICE));
    REQUIRE_OK(aclrtMemcpy(dev_out, size, in, size, ACL_MEMCPY_HOST_TO_DEVICE));
    /* Sum, then max and min against a second operand. */
    EXPECT_OK(aclrtReduceAsync(dev_out, dev_in, size, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, s, NULL));
    EXPECT_OK(aclrtSynchronizeStream(s));
    REQUIRE_OK(aclrtMemcpy(out, size, dev_out, size, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(out[0] == 2.0f && out[1] == 4.0f && out[2] == 6.0f && out[3] == 8.0f);
    float other[4] = {5.0f, 1.0f, 7.0f, -1.0f};
    REQUIRE_OK(aclrtMemcpy(dev_in, size, other, size, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_OK(aclrtReduceAsync(dev_out, dev_in, size, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_FLOAT, s, NULL));
    EXPECT_OK(aclrtReduceAsync(dev_out, dev_in, 2 * sizeof(float), ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN, ACL_FLOAT, s, NULL));
    EXPECT_OK(aclrtSynchronizeStream(s));
    REQUIRE_OK(aclrtMemcpy(out, size, dev_out, size, ACL_MEMCPY_DEVICE_TO_HOST));
    /* max: {5, 4, 7, 8}; then min over the first two: {5, 1}. */
    CHECK(out[0] == 5.0f && out[1] == 1.0f && out[2] == 7.0f && out[3] == 8.0f);
    /* Integers wrap. */
    int32_t ints[2] = {INT32_MAX, -5}, ones[2] = {1, 1};
    REQUIRE_OK(aclrtMemcpy(dev_out, 8, ints, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    REQUIRE_OK(aclrtMemcpy(dev_in, 8, ones, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_OK(aclrtReduceAsync(dev_out, dev_in, 8, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, s, NULL));
    EXPECT_OK(aclrtSynchronizeStream(s));
    REQUIRE_OK(aclrtMemcpy(ints, 8, dev_out, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(ints[0] == INT32_MIN && ints[1] == -4);

    /* Error paths, in the vendor's order. */
    EXPECT_CODE(aclrtReduceAsync(NULL, dev_in, size, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, s, NULL),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtReduceAsync(dev_out, dev_in, size, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, s, dev_in),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtReduceAsync(dev_out, dev_in, size, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT64, s, NULL),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtReduceAsync(dev_out, dev_in, 0, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, s, NULL),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtReduceAsync(dev_out, dev_in, size, (aclrtReduceKind)9, ACL_FLOAT, s, NULL),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtReduceAsync(dev_out, dev_in, 6, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, s, NULL),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtReduceAsync(dev_out, dev_in, size, ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL, ACL_FLOAT, s, NULL),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    /* Past the end of the allocation: refused, nothing queued. */
    EXPECT_CODE(aclrtReduceAsync(dev_out, dev_in, 2 * size, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, s, NULL),
                ACL_ERROR_INVALID_PARAM);
    REQUIRE_OK(aclrtFree(dev_in));
    EXPECT_CODE(aclrtReduceAsync(dev_out, dev_in, size, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, s, NULL),
                ACL_ERROR_INVALID_PARAM);
    REQUIRE_OK(aclrtFree(dev_out));
    REQUIRE_OK(aclrtDestroyStream(s));
}

int main(void)
{
    REQUIRE_OK(aclxConfigureDevices(2, 64 << 20));
    finalize_reference();
    REQUIRE_OK(aclxConfigureDevices(2, 64 << 20));
    REQUIRE_OK(aclInit(NULL));
    device_ids();
    arch_compatibility();
    primary_context_state();
    last_task_id();
    overflow();
    reduce();
    EXPECT_OK(aclrtResetDeviceForce(0));
    expect_no_live_objects();
    REQUIRE_OK(aclFinalize());
    return finish("test_device_misc");
}
