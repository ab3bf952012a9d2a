/* Batch copies through the C ABI: host to device and back, synchronous and on a stream, with
 * page-locked and ordinary host memory, several attribute groups, and the documented error
 * paths with their exact codes and failIndex values. */
#include "check.h"

static aclrtMemcpyBatchAttr attr(aclrtMemLocationType dst, aclrtMemLocationType src)
{
    aclrtMemcpyBatchAttr a;
    memset(&a, 0, sizeof a);
    a.dstLoc.type = dst;
    a.dstLoc.id = 0;
    a.srcLoc.type = src;
    a.srcLoc.id = 0;
    return a;
}

int main(void)
{
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    REQUIRE_OK(aclrtCreateStream(&s));

    char *dev = NULL, *pinned = NULL;
    REQUIRE_OK(aclrtMalloc((void **)&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtMallocHost((void **)&pinned, 256));
    static char plain[256], back[256];
    for (int i = 0; i < 256; i++) {
        plain[i] = (char)i;
        pinned[i] = (char)(255 - i);
    }

    /* Host to device: three copies, the first two from page-locked memory, the last from
     * ordinary memory, in two attribute groups. */
    void *dsts[3] = {dev, dev + 64, dev + 128};
    void *srcs[3] = {pinned, pinned + 64, plain};
    size_t maxs[3] = {64, 64, 128};
    size_t sizes[3] = {64, 64, 100};
    aclrtMemcpyBatchAttr attrs[2] = {attr(ACL_MEM_LOCATION_TYPE_DEVICE, ACL_MEM_LOCATION_TYPE_HOST),
                                     attr(ACL_MEM_LOCATION_TYPE_DEVICE, ACL_MEM_LOCATION_TYPE_HOST)};
    size_t idx[2] = {0, 2};
    size_t fail = 42;
    EXPECT_OK(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 3, attrs, idx, 2, &fail));
    CHECK(fail == 42); /* left alone on success */
    EXPECT_OK(aclrtMemcpy(back, 256, dev, 256, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(memcmp(back, pinned, 128) == 0);
    CHECK(memcmp(back + 128, plain, 100) == 0);

    /* Device to host on a stream: after the work queued before it. */
    int nap = 30;
    EXPECT_OK(aclrtMemset(dev, 256, 0x5A, 256));
    EXPECT_OK(aclxLaunchHostKernel(s, sleep_kernel, &nap, "sleep"));
    EXPECT_OK(aclrtMemsetAsync(dev, 16, 0x11, 16, s));
    void *dsts2[2] = {pinned, pinned + 16};
    void *srcs2[2] = {dev, dev + 16};
    size_t maxs2[2] = {16, 240};
    size_t sizes2[2] = {16, 16};
    aclrtMemcpyBatchAttr d2h = attr(ACL_MEM_LOCATION_TYPE_HOST, ACL_MEM_LOCATION_TYPE_DEVICE);
    size_t zero = 0;
    EXPECT_OK(aclrtMemcpyBatchAsync(dsts2, maxs2, srcs2, sizes2, 2, &d2h, &zero, 1, &fail, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(pinned[0] == 0x11 && pinned[15] == 0x11 && pinned[16] == 0x5A && pinned[31] == 0x5A);

    /* Into ordinary memory: done when the call returns. */
    void *dsts3[1] = {back};
    EXPECT_OK(aclxLaunchHostKernel(s, sleep_kernel, &nap, "sleep"));
    EXPECT_OK(aclrtMemcpyBatchAsyncV2(dsts3, maxs2, srcs2, sizes2, 1, &d2h, &zero, 1, s));
    CHECK(back[0] == 0x11 && back[15] == 0x11);
    memset(back, 0, sizeof back);
    EXPECT_OK(aclrtMemcpyBatchV2(dsts3, maxs2, srcs2 + 1, sizes2, 1, &d2h, &zero, 1));
    CHECK(back[0] == 0x5A);

    /* Errors. failIndex first, then the arrays, numBatches, destMaxs, reserved bytes. */
    EXPECT_CODE(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 3, attrs, idx, 2, NULL),
                ACL_ERROR_INVALID_PARAM);
    fail = 42;
    EXPECT_CODE(aclrtMemcpyBatch(NULL, maxs, srcs, sizes, 3, attrs, idx, 2, &fail),
                ACL_ERROR_INVALID_PARAM);
    CHECK(fail == SIZE_MAX);
    EXPECT_CODE(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 3, attrs, NULL, 2, &fail),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 0, attrs, idx, 2, &fail),
                ACL_ERROR_INVALID_PARAM);
    size_t small[3] = {64, 8, 128};
    EXPECT_CODE(aclrtMemcpyBatch(dsts, small, srcs, sizes, 3, attrs, idx, 2, &fail),
                ACL_ERROR_INVALID_PARAM);
    attrs[1].rsv[3] = 1;
    EXPECT_CODE(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 3, attrs, idx, 2, &fail),
                ACL_ERROR_INVALID_PARAM);
    attrs[1].rsv[3] = 0;
    /* Attribute indexes: must start at 0, increase, stay below numBatches; at most numBatches. */
    size_t bad_idx[2] = {1, 2};
    EXPECT_CODE(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 3, attrs, bad_idx, 2, &fail),
                ACL_ERROR_RT_PARAM_INVALID);
    CHECK(fail == SIZE_MAX);
    size_t same_idx[2] = {0, 0};
    EXPECT_CODE(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 3, attrs, same_idx, 2, &fail),
                ACL_ERROR_RT_PARAM_INVALID);
    size_t past_idx[2] = {0, 3};
    EXPECT_CODE(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 3, attrs, past_idx, 2, &fail),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 1, attrs, idx, 2, &fail),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 3, attrs, idx, 0, &fail),
                ACL_ERROR_RT_PARAM_INVALID);
    /* Directions: one of host to device, device to host, for the whole batch. */
    attrs[1] = d2h;
    EXPECT_CODE(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 3, attrs, idx, 2, &fail),
                ACL_ERROR_RT_PARAM_INVALID);
    CHECK(fail == 2);
    attrs[1] = attr(ACL_MEM_LOCATION_TYPE_DEVICE, ACL_MEM_LOCATION_TYPE_DEVICE);
    EXPECT_CODE(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 3, attrs, idx, 2, &fail),
                ACL_ERROR_RT_PARAM_INVALID);
    CHECK(fail == 2);
    /* A copy whose memory is not where its attribute says, or out of range. */
    attrs[1] = attrs[0];
    void *wrong[3] = {dev, plain, dev + 128};
    EXPECT_CODE(aclrtMemcpyBatch(wrong, maxs, srcs, sizes, 3, attrs, idx, 2, &fail),
                ACL_ERROR_RT_PARAM_INVALID);
    CHECK(fail == 1);
    size_t big[3] = {64, 64, 200};
    EXPECT_CODE(aclrtMemcpyBatch(dsts, big, srcs, big, 3, attrs, idx, 2, &fail),
                ACL_ERROR_INVALID_PARAM);
    CHECK(fail == 2);
    void *null_src[3] = {pinned, NULL, plain};
    EXPECT_CODE(aclrtMemcpyBatch(dsts, maxs, null_src, sizes, 3, attrs, idx, 2, &fail),
                ACL_ERROR_INVALID_PARAM);
    CHECK(fail == 1);
    EXPECT_CODE(aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, 3, attrs, idx, 2, &fail,
                                      (aclrtStream)(uintptr_t)0x42),
                ACL_ERROR_RT_INVALID_HANDLE);

    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtFree(dev));
    EXPECT_OK(aclrtFreeHost(pinned));
    REQUIRE_OK(aclrtResetDevice(0));
    REQUIRE_OK(aclFinalize());
    expect_no_live_objects();
    return finish("test_memcpy_batch");
}
