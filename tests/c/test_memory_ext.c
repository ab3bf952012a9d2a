/* Memory through the C ABI, beyond malloc and copy: 2D copies checked byte for byte, the
 * allocation variants, cache maintenance, pointer attributes and allocation granularity. */
#include "check.h"

enum { W = 10, H = 5, SP = 16, DP = 24 };

/* Row r of dst (pitch dp) holds row r of src (pitch sp) in its first W bytes; every other
 * byte of dst equals fill. */
static int plane_ok(const unsigned char *dst, size_t dp, const unsigned char *src, size_t sp,
                    unsigned char fill)
{
    size_t r, c;
    for (r = 0; r < H; r++) {
        for (c = 0; c < dp; c++) {
            unsigned char want = c < W ? src[r * sp + c] : fill;
            if (dst[r * dp + c] != want) {
                fprintf(stderr, "row %zu column %zu: %u, expected %u\n", r, c, dst[r * dp + c], want);
                return 0;
            }
        }
    }
    return 1;
}

static void copies_2d(void)
{
    unsigned char src[SP * H], back[DP * H], dev_view[DP * H];
    void *dev = NULL, *dev2 = NULL;
    aclrtStream s = NULL;
    int i;

    for (i = 0; i < SP * H; i++) {
        src[i] = (unsigned char)(i * 13 + 1);
    }
    REQUIRE_OK(aclrtMalloc(&dev, DP * H, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMalloc(&dev2, DP * H, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtCreateStream(&s));

    /* Host to device: the gaps of fresh device memory stay zero. */
    EXPECT_OK(aclrtMemcpy2d(dev, DP, src, SP, W, H, ACL_MEMCPY_HOST_TO_DEVICE));
    EXPECT_OK(aclrtMemcpy(dev_view, DP * H, dev, DP * H, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(plane_ok(dev_view, DP, src, SP, 0));
    /* Device to host into another pitch: the gaps keep the host's bytes. */
    memset(back, 0xAA, sizeof back);
    EXPECT_OK(aclrtMemcpy2d(back, SP, dev, DP, W, H, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(plane_ok(back, SP, src, SP, 0xAA));

    /* Device to device on a stream, behind a sleep. */
    int sleep_for = 20;
    EXPECT_OK(aclrtMemset(dev2, DP * H, 0xCC, DP * H));
    EXPECT_OK(aclxLaunchHostKernel(s, sleep_kernel, &sleep_for, "sleep"));
    EXPECT_OK(aclrtMemcpy2dAsync(dev2, DP, dev, DP, W, H, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtMemcpy(dev_view, DP * H, dev2, DP * H, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(plane_ok(dev_view, DP, src, SP, 0xCC));
    /* And device to host on a stream. */
    memset(back, 0x11, sizeof back);
    EXPECT_OK(aclrtMemcpy2dAsync(back, SP, dev2, DP, W, H, ACL_MEMCPY_DEVICE_TO_HOST, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(plane_ok(back, SP, src, SP, 0x11));

    /* Codes. */
    EXPECT_CODE(aclrtMemcpy2d(NULL, DP, src, SP, W, H, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpy2d(dev, DP, NULL, SP, W, H, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpy2d(dev2, DP, dev, DP, W, H, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpy2d(back, SP, src, SP, W, H, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpy2dAsync(back, SP, src, SP, W, H, ACL_MEMCPY_HOST_TO_HOST, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpy2dAsync(dev, DP, src, SP, W, H, ACL_MEMCPY_DEFAULT, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpy2d(dev, 8, src, SP, W, H, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpy2d(dev, DP, src, 8, W, H, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpy2d(dev, (size_t)-1, src, (size_t)-1, 5000001, 1, ACL_MEMCPY_HOST_TO_DEVICE),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpy2d(dev, DP, src, SP, W, 5 * 1024 * 1024 + 1, ACL_MEMCPY_HOST_TO_DEVICE),
                ACL_ERROR_INVALID_PARAM);
    /* One row too many overruns the device allocation: refused before any byte moves. */
    EXPECT_OK(aclrtMemset(dev2, DP * H, 0, DP * H));
    EXPECT_CODE(aclrtMemcpy2d(dev2, DP, src, 1, 1, DP * H, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpy2d(dev2, DP, src, SP, W, H + 1, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtMemcpy(dev_view, DP * H, dev2, DP * H, ACL_MEMCPY_DEVICE_TO_HOST));
    for (i = 0; i < DP * H; i++) {
        CHECK(dev_view[i] == 0);
    }
    EXPECT_CODE(aclrtMemcpy2dAsync(dev, DP, src, SP, W, H, ACL_MEMCPY_HOST_TO_DEVICE,
                                   (aclrtStream)(uintptr_t)0x30),
                ACL_ERROR_RT_INVALID_HANDLE);

    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtFree(dev));
    EXPECT_OK(aclrtFree(dev2));
}

static void allocations(void)
{
    void *p = NULL;
    aclrtMallocAttribute attrs[3];
    aclrtMallocConfig cfg;

    EXPECT_OK(aclrtMallocAlign32(&p, 33, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(((uintptr_t)p % 64) == 0);
    EXPECT_OK(aclrtFree(p));
    EXPECT_CODE(aclrtMallocAlign32(&p, 0, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMallocAlign32(NULL, 8, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_ERROR_INVALID_PARAM);

    EXPECT_OK(aclrtMallocCached(&p, 100, ACL_MEM_MALLOC_HUGE1G_ONLY));
    EXPECT_OK(aclrtFree(p));
    EXPECT_CODE(aclrtMallocCached(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST_P2P), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMallocCached(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);

    memset(attrs, 0, sizeof attrs);
    attrs[0].attr = ACL_RT_MEM_ATTR_MODULE_ID;
    attrs[0].value.moduleId = 33;
    attrs[1].attr = ACL_RT_MEM_ATTR_DEVICE_ID;
    attrs[1].value.deviceId = 0;
    attrs[2].attr = ACL_RT_MEM_ATTR_VA_FLAG;
    attrs[2].value.vaFlag = 0;
    cfg.attrs = attrs;
    cfg.numAttrs = 3;
    EXPECT_OK(aclrtMallocWithCfg(&p, 256, ACL_MEM_TYPE_HIGH_BAND_WIDTH | ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
    EXPECT_OK(aclrtFree(p));
    EXPECT_OK(aclrtMallocWithCfg(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST, NULL));
    EXPECT_OK(aclrtFree(p));
    attrs[1].value.deviceId = 1;
    EXPECT_CODE(aclrtMallocWithCfg(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST, &cfg), ACL_ERROR_RT_INVALID_DEVICEID);
    attrs[1].value.deviceId = 0;
    attrs[2].value.vaFlag = 1;
    EXPECT_CODE(aclrtMallocWithCfg(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST, &cfg), ACL_ERROR_INVALID_PARAM);
    attrs[2].attr = ACL_RT_MEM_ATTR_RSV;
    EXPECT_CODE(aclrtMallocWithCfg(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST, &cfg), ACL_ERROR_INVALID_PARAM);
    cfg.attrs = NULL;
    EXPECT_CODE(aclrtMallocWithCfg(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST, &cfg), ACL_ERROR_INVALID_PARAM);
    cfg.numAttrs = 0;
    EXPECT_OK(aclrtMallocWithCfg(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
    EXPECT_OK(aclrtFree(p));
    EXPECT_CODE(aclrtMallocWithCfg(NULL, 256, ACL_MEM_MALLOC_HUGE_FIRST, NULL), ACL_ERROR_INVALID_PARAM);
}

static void attributes_and_cache(void)
{
    void *dev = NULL, *host = NULL;
    int local = 0;
    aclrtPtrAttributes a;
    aclrtPhysicalMemProp prop;
    size_t g = 0;

    REQUIRE_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMallocHost(&host, 64));
    EXPECT_OK(aclrtMemFlush(dev, 4096));
    EXPECT_OK(aclrtMemInvalidate((char *)dev + 64, 64));
    EXPECT_CODE(aclrtMemFlush(NULL, 64), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemInvalidate(dev, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemFlush(dev, 4097), ACL_ERROR_INVALID_PARAM);

    memset(&a, 0x7F, sizeof a);
    EXPECT_OK(aclrtPointerGetAttributes((char *)dev + 10, &a));
    CHECK(a.location.type == ACL_MEM_LOCATION_TYPE_DEVICE && a.location.id == 0);
    CHECK(a.pageSize >= 4096 && a.rsv[0] == 0 && a.rsv[3] == 0);
    EXPECT_OK(aclrtPointerGetAttributes(host, &a));
    CHECK(a.location.type == ACL_MEM_LOCATION_TYPE_HOST);
    EXPECT_OK(aclrtPointerGetAttributes(&local, &a));
    CHECK(a.location.type == ACL_MEM_LOCATION_TYPE_UNREGISTERED);
    EXPECT_CODE(aclrtPointerGetAttributes(NULL, &a), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtPointerGetAttributes(dev, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtFree(dev));
    EXPECT_CODE(aclrtPointerGetAttributes(dev, &a), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemFlush(dev, 8), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtFreeHost(host));

    memset(&prop, 0, sizeof prop);
    prop.memAttr = ACL_HBM_MEM_HUGE;
    EXPECT_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    CHECK(g == (2u << 20));
    prop.memAttr = ACL_MEM_HUGE1G;
    EXPECT_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &g));
    CHECK(g == (1u << 30));
    EXPECT_CODE(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF, &g),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemGetAllocationGranularity(NULL, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, NULL),
                ACL_ERROR_INVALID_PARAM);
}

int main(void)
{
    unsigned char a[16] = {0}, b[16] = {0};
    void *p = NULL;

    EXPECT_CODE(aclrtMemcpy2d(a, 8, b, 8, 4, 2, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclrtMallocCached(&p, 8, 0), ACL_ERROR_UNINITIALIZE);
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    copies_2d();
    allocations();
    attributes_and_cache();
    REQUIRE_OK(aclrtResetDevice(0));
    expect_no_live_objects();
    REQUIRE_OK(aclFinalize());
    return finish("test_memory_ext");
}
