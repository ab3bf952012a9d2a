/* Memory calls beside the basic ones through the C ABI: 32-bit sets (synchronous and on a
 * stream), frees that wait for the device, host allocation with a configuration, the
 * allocation that holds an address, usage by component, memory types, and their documented
 * error paths with exact codes. */
#include "check.h"

static void memset_d32(void)
{
    uint32_t *dev = NULL, *host = NULL;
    uint32_t out[8];
    aclrtStream s = NULL;

    REQUIRE_OK(aclrtMalloc((void **)&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMallocHost((void **)&host, 64));
    REQUIRE_OK(aclrtCreateStream(&s));

    EXPECT_OK(aclrtMemsetD32(dev, 64, 0xA5A5F00Du, 6));
    EXPECT_OK(aclrtMemcpy(out, sizeof out, dev, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 6; i++) {
        CHECK(out[i] == 0xA5A5F00Du);
    }
    CHECK(out[6] == 0 && out[7] == 0);

    /* Host memory from aclrtMallocHost too, at an aligned offset. */
    EXPECT_OK(aclrtMemsetD32(host + 2, 56, 7u, 14));
    CHECK(host[0] == 0 && host[1] == 0 && host[2] == 7 && host[15] == 7);

    /* On a stream: after the work queued before it. */
    int nap = 30;
    EXPECT_OK(aclxLaunchHostKernel(s, sleep_kernel, &nap, "sleep"));
    EXPECT_OK(aclrtMemsetD32Async(dev, 64, 0x01020304u, 16, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtMemcpy(out, sizeof out, dev + 8, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 8; i++) {
        CHECK(out[i] == 0x01020304u);
    }

    /* Errors, in the vendor's order; nothing is written. */
    static uint32_t foreign[4];
    EXPECT_CODE(aclrtMemsetD32(NULL, 64, 1, 1), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemsetD32(dev, 64, 1, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemsetD32((char *)dev + 2, 60, 1, 1), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemsetD32(dev, 15, 1, 4), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemsetD32(dev, SIZE_MAX, 1, SIZE_MAX / 2), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemsetD32(foreign, 16, 1, 4), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemsetD32(dev + 8, 64, 1, 16), ACL_ERROR_INVALID_PARAM); /* overruns */
    EXPECT_CODE(aclrtMemsetD32Async(NULL, 64, 1, 1, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemsetD32Async(dev, 64, 1, 1, (aclrtStream)(uintptr_t)0x42),
                ACL_ERROR_RT_INVALID_HANDLE);
    CHECK(foreign[0] == 0);
    EXPECT_OK(aclrtMemcpy(out, 4, dev, 4, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(out[0] == 0x01020304u);

    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtFree(dev));
    EXPECT_OK(aclrtFreeHost(host));
    /* Freed memory is refused. */
    EXPECT_CODE(aclrtMemsetD32(dev, 64, 1, 1), ACL_ERROR_INVALID_PARAM);
}

static long g_kernel_done;

static aclError slow_then_mark(void *args)
{
    (void)args;
    sleep_ms(60);
    __atomic_store_n(&g_kernel_done, 1, __ATOMIC_SEQ_CST);
    return ACL_SUCCESS;
}

static void frees_with_dev_sync(void)
{
    void *dev = NULL, *host = NULL;
    aclrtStream s = NULL;
    REQUIRE_OK(aclrtCreateStream(&s));
    REQUIRE_OK(aclrtMalloc(&dev, 128, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMallocHost(&host, 128));

    /* The free returns only once the device's work is done. */
    EXPECT_OK(aclxLaunchHostKernel(s, slow_then_mark, NULL, "slow"));
    EXPECT_OK(aclrtFreeWithDevSync(dev));
    CHECK(__atomic_load_n(&g_kernel_done, __ATOMIC_SEQ_CST) == 1);
    __atomic_store_n(&g_kernel_done, 0, __ATOMIC_SEQ_CST);
    EXPECT_OK(aclxLaunchHostKernel(NULL, slow_then_mark, NULL, "slow"));
    EXPECT_OK(aclrtFreeHostWithDevSync(host));
    CHECK(__atomic_load_n(&g_kernel_done, __ATOMIC_SEQ_CST) == 1);

    EXPECT_CODE(aclrtFreeWithDevSync(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtFreeHostWithDevSync(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtFreeWithDevSync(dev), ACL_ERROR_RT_MEMORY_FREE);
    EXPECT_CODE(aclrtFreeHostWithDevSync(host), ACL_ERROR_RT_MEMORY_FREE);

    /* A failure of the device's work is reported and nothing is freed. */
    aclError fail = ACL_ERROR_RT_AICORE_EXCEPTION;
    REQUIRE_OK(aclrtMalloc(&dev, 128, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclxLaunchHostKernel(s, failing_kernel, &fail, "failing"));
    EXPECT_CODE(aclrtFreeWithDevSync(dev), ACL_ERROR_RT_AICORE_EXCEPTION);
    EXPECT_OK(aclrtFreeWithDevSync(dev));
    EXPECT_OK(aclrtDestroyStream(s));
}

static void host_with_cfg(void)
{
    void *p = NULL;
    aclrtMallocAttribute attrs[2];
    aclrtMallocConfig cfg;
    memset(attrs, 0, sizeof attrs);
    attrs[0].attr = ACL_RT_MEM_ATTR_MODULE_ID;
    attrs[0].value.moduleId = 7;
    attrs[1].attr = ACL_RT_MEM_ATTR_VA_FLAG;
    attrs[1].value.vaFlag = 1;
    cfg.attrs = attrs;
    cfg.numAttrs = 2;

    EXPECT_OK(aclrtMallocHostWithCfg(&p, 100, NULL));
    aclrtPtrAttributes pa;
    EXPECT_OK(aclrtPointerGetAttributes(p, &pa));
    CHECK(pa.location.type == ACL_MEM_LOCATION_TYPE_HOST);
    CHECK(((unsigned char *)p)[99] == 0);
    EXPECT_OK(aclrtFreeHost(p));
    EXPECT_OK(aclrtMallocHostWithCfg(&p, 100, &cfg));
    EXPECT_OK(aclrtFreeHost(p));

    EXPECT_CODE(aclrtMallocHostWithCfg(NULL, 100, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMallocHostWithCfg(&p, 0, NULL), ACL_ERROR_INVALID_PARAM);
    attrs[1].value.vaFlag = 2;
    EXPECT_CODE(aclrtMallocHostWithCfg(&p, 100, &cfg), ACL_ERROR_INVALID_PARAM);
    attrs[1].attr = ACL_RT_MEM_ATTR_DEVICE_ID;
    attrs[1].value.deviceId = 0;
    EXPECT_CODE(aclrtMallocHostWithCfg(&p, 100, &cfg), ACL_ERROR_INVALID_PARAM);
    cfg.attrs = NULL;
    EXPECT_CODE(aclrtMallocHostWithCfg(&p, 100, &cfg), ACL_ERROR_INVALID_PARAM);
}

static void address_range(void)
{
    char *dev = NULL, *host = NULL;
    void *base = NULL;
    size_t size = 0;
    static char foreign[16];
    REQUIRE_OK(aclrtMalloc((void **)&dev, 1000, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMallocHost((void **)&host, 77));

    EXPECT_OK(aclrtMemGetAddressRange(dev + 999, &base, &size));
    CHECK(base == dev && size == 1000);
    EXPECT_OK(aclrtMemGetAddressRange(dev, &base, NULL));
    CHECK(base == dev);
    EXPECT_OK(aclrtMemGetAddressRange(host + 5, NULL, &size));
    CHECK(size == 77);
    EXPECT_OK(aclrtMemGetAddressRange(host, NULL, NULL));

    EXPECT_CODE(aclrtMemGetAddressRange(NULL, &base, &size), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemGetAddressRange(foreign, &base, &size), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtFree(dev));
    EXPECT_CODE(aclrtMemGetAddressRange(dev, &base, &size), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtFreeHost(host));
}

static void usage_and_types(void)
{
    aclrtMemUsageInfo info[3];
    size_t n = 99;
    void *a = NULL, *b = NULL, *host = NULL;

    memset(info, 0x7F, sizeof info);
    EXPECT_OK(aclrtGetMemUsageInfo(0, info, 3, &n));
    CHECK(n == 1);
    CHECK(strcmp(info[0].name, "app") == 0);
    uint64_t base = info[0].curMemSize;
    REQUIRE_OK(aclrtMalloc(&a, 1000, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMalloc(&b, 3000, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_OK(aclrtGetMemUsageInfo(0, info, 3, &n));
    CHECK(info[0].curMemSize == base + 4000 && info[0].memPeakSize >= base + 4000);
    EXPECT_OK(aclrtFree(b));
    EXPECT_OK(aclrtGetMemUsageInfo(0, info, 1, &n));
    CHECK(n == 1 && info[0].curMemSize == base + 1000 && info[0].memPeakSize >= base + 4000);
    EXPECT_OK(aclrtGetMemUsageInfo(0, info, 0, &n));
    CHECK(n == 0);
    EXPECT_CODE(aclrtGetMemUsageInfo(0, NULL, 1, &n), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetMemUsageInfo(0, info, 1, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtGetMemUsageInfo(7, info, 1, &n), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtGetMemUsageInfo(-1, info, 1, &n), ACL_ERROR_RT_INVALID_DEVICEID);

    /* Memory types: device memory is ACL_RT_MEM_TYPE_DEV; host memory matches nothing. */
    REQUIRE_OK(aclrtMallocHost(&host, 16));
    uint32_t result = 7;
    void *devs[2] = {a, (char *)a + 999};
    EXPECT_OK(aclrtCheckMemType(devs, 2, ACL_RT_MEM_TYPE_DEV, &result, 0));
    CHECK(result == 1);
    EXPECT_OK(aclrtCheckMemType(devs, 2, ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_DVPP, &result, 0));
    CHECK(result == 1);
    EXPECT_OK(aclrtCheckMemType(devs, 2, ACL_RT_MEM_TYPE_DVPP, &result, 0));
    CHECK(result == 0);
    void *mixed[2] = {a, host};
    EXPECT_OK(aclrtCheckMemType(mixed, 2, ACL_RT_MEM_TYPE_DEV, &result, 0));
    CHECK(result == 0);
    EXPECT_CODE(aclrtCheckMemType(NULL, 2, ACL_RT_MEM_TYPE_DEV, &result, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCheckMemType(devs, 2, ACL_RT_MEM_TYPE_DEV, NULL, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtCheckMemType(devs, 0, ACL_RT_MEM_TYPE_DEV, &result, 0),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCheckMemType(devs, 2, 0, &result, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCheckMemType(devs, 2, 0x1, &result, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCheckMemType(devs, 2, ACL_RT_MEM_TYPE_DEV, &result, 1),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtFree(a));
    EXPECT_OK(aclrtFreeHost(host));
}

int main(void)
{
    uint32_t word = 0;
    EXPECT_CODE(aclrtMemsetD32(&word, 4, 1, 1), ACL_ERROR_UNINITIALIZE);
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    memset_d32();
    frees_with_dev_sync();
    host_with_cfg();
    address_range();
    usage_and_types();
    REQUIRE_OK(aclrtResetDevice(0));
    REQUIRE_OK(aclFinalize());
    expect_no_live_objects();
    return finish("test_memory_gaps");
}
