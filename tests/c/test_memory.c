/* Memory through the C ABI: allocation rules and capacity, copies and sets (sync and async),
 * bounds, frees, memory info. The device is configured with 1 MiB so exhaustion is cheap. */
#include "check.h"

int main(void)
{
    void *d = NULL, *d2 = NULL, *h = NULL, *big = NULL;
    size_t free0 = 0, total = 0, free1 = 0, ddr_free = 0, ddr_total = 0;
    unsigned char host[256], back[256];
    aclrtStream s = NULL;
    int i;

    REQUIRE_OK(aclxConfigureDevices(1, 1 << 20));
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&s));

    EXPECT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));
    CHECK(total == (1 << 20) && free0 == total);
    EXPECT_OK(aclrtGetMemInfo(ACL_DDR_MEM, &ddr_free, &ddr_total));
    CHECK(ddr_total > 0 && ddr_free <= ddr_total);
    EXPECT_CODE(aclrtGetMemInfo((aclrtMemAttr)99, &free1, &total), ACL_ERROR_INVALID_PARAM);

    /* Allocation rules. */
    EXPECT_CODE(aclrtMalloc(&d, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMalloc(&d, 64, (aclrtMemMallocPolicy)8), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMalloc(&d, (1 << 20) + 1, ACL_MEM_MALLOC_HUGE_FIRST),
                ACL_ERROR_RT_MEMORY_ALLOCATION);
    REQUIRE_OK(aclrtMalloc(&d, 256, ACL_MEM_MALLOC_NORMAL_ONLY | ACL_MEM_TYPE_HIGH_BAND_WIDTH));
    CHECK(((uintptr_t)d % 64) == 0);
    EXPECT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
    CHECK(free1 + 256 == free0);
    REQUIRE_OK(aclrtMalloc(&d2, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_CODE(aclrtMalloc(&big, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
    EXPECT_CODE(aclrtMallocHost(&h, 0), ACL_ERROR_INVALID_PARAM);
    REQUIRE_OK(aclrtMallocHost(&h, 256));
    CHECK(((uintptr_t)h % 64) == 0);

    /* Synchronous copies: host → device → device → host. */
    for (i = 0; i < 256; i++) {
        host[i] = (unsigned char)i;
    }
    memset(back, 0, sizeof(back));
    EXPECT_OK(aclrtMemcpy(d, 256, host, 256, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_OK(aclrtMemcpy(d2, 256, d, 256, ACL_MEMCPY_DEVICE_TO_DEVICE));
    EXPECT_OK(aclrtMemcpy(back, 256, d2, 256, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(host, back, 256) == 0);
    EXPECT_OK(aclrtMemcpy(back, 256, d2, 0, ACL_MEMCPY_DEFAULT));
    /* Rules: count > destMax, unknown kinds, running past an allocation. */
    EXPECT_CODE(aclrtMemcpy(d, 128, host, 256, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemcpy(d, 256, host, 256, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpy(d, 256, host, 256, (aclrtMemcpyKind)42), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpy((char *)d + 128, 256, host, 256, ACL_MEMCPY_HOST_TO_DEVICE),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpy(back, 256, (char *)d2 + 1, 256, ACL_MEMCPY_DEVICE_TO_HOST),
                ACL_ERROR_INVALID_PARAM);

    /* Sets. */
    EXPECT_OK(aclrtMemset(d, 256, 0x5A, 256));
    EXPECT_OK(aclrtMemcpy(back, 256, d, 256, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(back[0] == 0x5A && back[255] == 0x5A);
    EXPECT_CODE(aclrtMemset(d, 16, 0, 32), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemset((char *)d + 200, 256, 0, 100), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtMemset(d, 256, 0, 0));

    /* Asynchronous variants run in stream order. */
    EXPECT_OK(aclrtMemsetAsync(d, 256, 0x11, 256, s));
    EXPECT_OK(aclrtMemcpyAsync(h, 256, d, 256, ACL_MEMCPY_DEVICE_TO_HOST, s));
    EXPECT_OK(aclrtMemsetAsync(d, 256, 0x22, 128, s));
    EXPECT_OK(aclrtMemcpyAsync(back, 256, d, 256, ACL_MEMCPY_DEVICE_TO_HOST, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(((unsigned char *)h)[0] == 0x11 && ((unsigned char *)h)[255] == 0x11);
    CHECK(back[0] == 0x22 && back[127] == 0x22 && back[128] == 0x11);
    EXPECT_CODE(aclrtMemcpyAsync(d, 16, host, 32, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemsetAsync((char *)d + 250, 256, 0, 10, s), ACL_ERROR_INVALID_PARAM);

    /* Frees: wrong allocator and double frees are refused. */
    EXPECT_CODE(aclrtFreeHost(d), ACL_ERROR_RT_MEMORY_FREE);
    EXPECT_CODE(aclrtFree(h), ACL_ERROR_RT_MEMORY_FREE);
    EXPECT_CODE(aclrtFree(host), ACL_ERROR_RT_MEMORY_FREE);
    EXPECT_OK(aclrtFree(d));
    EXPECT_CODE(aclrtFree(d), ACL_ERROR_RT_MEMORY_FREE);
    EXPECT_OK(aclrtFree(d2));
    EXPECT_OK(aclrtFreeHost(h));
    EXPECT_CODE(aclrtFreeHost(h), ACL_ERROR_RT_MEMORY_FREE);
    EXPECT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
    CHECK(free1 == free0);
    /* The whole capacity can be taken once it is free again. */
    EXPECT_OK(aclrtMalloc(&big, 1 << 20, ACL_MEM_MALLOC_HUGE_ONLY));
    EXPECT_OK(aclrtFree(big));

    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtResetDevice(0));
    /* Allocations left behind are released by aclFinalize. */
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMallocHost(&h, 64));
    EXPECT_OK(aclFinalize());
    expect_no_live_objects();
    return finish("test_memory");
}
