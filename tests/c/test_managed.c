/* Managed memory through the C ABI: allocation in 2 MB pages usable by the host and by stream
 * work, advice and the attributes that report it, prefetches as stream tasks (single and
 * batch) and the location they record, and every error code. */
#include "check.h"

#include <semaphore.h>

#define MB (1024ull * 1024ull)
#define PAGE (2 * MB)
#define NO_LOC (-2)
#define HOST_LOC (-1)

static const aclrtMemManagedLocation DEV0 = {ACL_MEM_LOCATIONTYPE_DEVICE, 0};
static const aclrtMemManagedLocation HOST = {ACL_MEM_LOCATIONTYPE_HOST, 0};

static int32_t attr(aclrtMemManagedRangeAttribute a, const void *ptr, size_t size)
{
    int32_t v = 12345;
    EXPECT_OK(aclrtMemManagedGetAttr(a, ptr, size, &v, sizeof v));
    return v;
}

static size_t device_free(void)
{
    size_t f = 0, t = 0;
    EXPECT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t));
    return f;
}

static void allocation(void)
{
    void *m = NULL;
    EXPECT_CODE(aclrtMemAllocManaged(NULL, 8, ACL_RT_MEM_ATTACH_GLOBAL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemAllocManaged(&m, 8, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemAllocManaged(&m, 0, ACL_RT_MEM_ATTACH_GLOBAL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemAllocManaged(&m, (3ull << 40) + 1, ACL_RT_MEM_ATTACH_GLOBAL),
                ACL_ERROR_RT_PARAM_INVALID);
    CHECK(m == NULL);

    size_t before = device_free();
    REQUIRE_OK(aclrtMemAllocManaged(&m, 1000, ACL_RT_MEM_ATTACH_GLOBAL));
    CHECK(m != NULL && (uintptr_t)m % PAGE == 0);
    CHECK(device_free() == before - PAGE);

    /* The host writes it directly; stream work reads and writes it; the host sees the result. */
    unsigned char *bytes = m;
    for (int i = 0; i < 256; i++) bytes[i] = (unsigned char)(255 - i);
    aclrtStream s = NULL;
    REQUIRE_OK(aclrtCreateStream(&s));
    unsigned char out[256];
    memset(out, 0, sizeof out);
    EXPECT_OK(aclrtMemcpyAsync(bytes + 1024, 256, bytes, 256, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    EXPECT_OK(aclrtMemcpyAsync(out, 256, bytes + 1024, 256, ACL_MEMCPY_DEVICE_TO_HOST, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    for (int i = 0; i < 256; i++) {
        CHECK(out[i] == (unsigned char)(255 - i) && bytes[1024 + i] == out[i]);
    }
    /* The allocation is the whole page. */
    EXPECT_OK(aclrtMemsetAsync(bytes, PAGE, 7, PAGE, s));
    EXPECT_CODE(aclrtMemsetAsync(bytes, PAGE + 1, 7, PAGE + 1, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(bytes[PAGE - 1] == 7);

    EXPECT_OK(aclrtFree(m));
    CHECK(device_free() == before);
    EXPECT_CODE(aclrtMemManagedAdvise(m, PAGE, ACL_MEM_ADVISE_SET_READ_MOSTLY, DEV0),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtDestroyStream(s));
}

static void advice(void)
{
    char *m = NULL;
    REQUIRE_OK(aclrtMemAllocManaged((void **)&m, 3 * PAGE, ACL_RT_MEM_ATTACH_GLOBAL));
    void *plain = NULL;
    REQUIRE_OK(aclrtMalloc(&plain, PAGE, ACL_MEM_MALLOC_HUGE_FIRST));

    /* Errors, in the vendor's order. */
    EXPECT_CODE(aclrtMemManagedAdvise(NULL, PAGE, ACL_MEM_ADVISE_SET_READ_MOSTLY, DEV0),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedAdvise(m, 0, ACL_MEM_ADVISE_SET_READ_MOSTLY, DEV0),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedAdvise(m, PAGE, (aclrtMemManagedAdviseType)6, DEV0),
                ACL_ERROR_RT_PARAM_INVALID);
    aclrtMemManagedLocation bad_dev = {ACL_MEM_LOCATIONTYPE_DEVICE, 99};
    EXPECT_CODE(aclrtMemManagedAdvise(m, PAGE, ACL_MEM_ADVISE_SET_ACCESSED_BY, bad_dev),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemManagedAdvise(m, 1000, ACL_MEM_ADVISE_SET_READ_MOSTLY, DEV0),
                ACL_ERROR_RT_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "2 MB pages") != NULL);
    EXPECT_CODE(aclrtMemManagedAdvise(m, 4 * PAGE, ACL_MEM_ADVISE_SET_READ_MOSTLY, DEV0),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemManagedAdvise(plain, PAGE, ACL_MEM_ADVISE_SET_READ_MOSTLY, DEV0),
                ACL_ERROR_RT_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "aclrtMemAllocManaged") != NULL);
    aclrtMemManagedLocation invalid = {ACL_MEM_LOCATIONTYPE_INVALID, 0};
    EXPECT_CODE(aclrtMemManagedAdvise(m, PAGE, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, invalid),
                ACL_ERROR_RT_PARAM_INVALID);
    /* Clearing read-mostly ignores the location. */
    EXPECT_OK(aclrtMemManagedAdvise(m, PAGE, ACL_MEM_ADVISE_UNSET_READ_MOSTLY, invalid));

    /* Read-mostly on pages 1 and 2: the whole range disagrees, those two agree. */
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 3 * PAGE) == 0);
    EXPECT_OK(aclrtMemManagedAdvise(m + PAGE, 2 * PAGE, ACL_MEM_ADVISE_SET_READ_MOSTLY, DEV0));
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 3 * PAGE) == 0);
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m + PAGE, 2 * PAGE) == 1);
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m + 2 * PAGE, 1) == 1);

    /* Preferred location: a device, then the host on one page. */
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 3 * PAGE) == NO_LOC);
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, m, 3 * PAGE) ==
          ACL_MEM_LOCATIONTYPE_INVALID);
    EXPECT_OK(aclrtMemManagedAdvise(m, 3 * PAGE, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, DEV0));
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 3 * PAGE) == 0);
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, m, 3 * PAGE) ==
          ACL_MEM_LOCATIONTYPE_DEVICE);
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, m, 3 * PAGE) == 0);
    EXPECT_OK(aclrtMemManagedAdvise(m, PAGE, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, HOST));
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 3 * PAGE) == NO_LOC);
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, PAGE) == HOST_LOC);
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, m, PAGE) ==
          ACL_MEM_LOCATIONTYPE_HOST);
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, m, PAGE) == NO_LOC);
    EXPECT_OK(aclrtMemManagedAdvise(m, 3 * PAGE, ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION, HOST));
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 3 * PAGE) == NO_LOC);

    /* Accessed-by: a list, padded with "none". */
    int32_t list[3] = {7, 7, 7};
    EXPECT_OK(aclrtMemManagedAdvise(m, 3 * PAGE, ACL_MEM_ADVISE_SET_ACCESSED_BY, DEV0));
    EXPECT_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 3 * PAGE, list,
                                     sizeof list));
    CHECK(list[0] == 0 && list[1] == NO_LOC && list[2] == NO_LOC);
    EXPECT_OK(aclrtMemManagedAdvise(m + PAGE, PAGE, ACL_MEM_ADVISE_SET_ACCESSED_BY, HOST));
    EXPECT_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m + PAGE, PAGE, list,
                                     sizeof list));
    CHECK(list[0] == HOST_LOC && list[1] == 0 && list[2] == NO_LOC);
    EXPECT_OK(aclrtMemManagedAdvise(m, 3 * PAGE, ACL_MEM_ADVISE_UNSET_ACCESSED_BY, DEV0));
    EXPECT_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 3 * PAGE, list,
                                     sizeof list));
    CHECK(list[0] == NO_LOC && list[1] == NO_LOC && list[2] == NO_LOC);

    /* GetAttr errors. */
    int32_t v = 0;
    int64_t wide = 0;
    EXPECT_CODE(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, NULL, PAGE, &v, 4),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, PAGE, NULL, 4),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 0, &v, 4),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedGetAttr((aclrtMemManagedRangeAttribute)0, m, PAGE, &v, 4),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemManagedGetAttr((aclrtMemManagedRangeAttribute)9, m, PAGE, &v, 4),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, PAGE, &wide, 8),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, PAGE, list, 6),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, plain, PAGE, &v, 4),
                ACL_ERROR_RT_PARAM_INVALID);

    /* GetAttrs: several at once; a bad attribute writes nothing. */
    aclrtMemManagedRangeAttribute attrs[2] = {ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
                                              ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE};
    int32_t a0 = 9, a1 = 9;
    void *data[2] = {&a0, &a1};
    size_t sizes[2] = {4, 4};
    EXPECT_OK(aclrtMemManagedGetAttrs(attrs, 2, m + PAGE, PAGE, data, sizes));
    CHECK(a0 == 1 && a1 == ACL_MEM_LOCATIONTYPE_INVALID);
    a0 = a1 = 9;
    attrs[1] = (aclrtMemManagedRangeAttribute)9;
    EXPECT_CODE(aclrtMemManagedGetAttrs(attrs, 2, m + PAGE, PAGE, data, sizes),
                ACL_ERROR_RT_PARAM_INVALID);
    CHECK(a0 == 9 && a1 == 9);
    EXPECT_CODE(aclrtMemManagedGetAttrs(NULL, 2, m, PAGE, data, sizes), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedGetAttrs(attrs, 2, m, PAGE, NULL, sizes), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedGetAttrs(attrs, 2, m, PAGE, data, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedGetAttrs(attrs, 2, NULL, PAGE, data, sizes), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedGetAttrs(attrs, 2, m, 0, data, sizes), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtMemManagedGetAttrs(attrs, 0, m, PAGE, data, sizes));

    EXPECT_OK(aclrtFree(plain));
    EXPECT_OK(aclrtFree(m));
}

static sem_t g_gate;

static void wait_gate(void *arg)
{
    (void)arg;
    sem_wait(&g_gate);
}

static void prefetch(void)
{
    char *m = NULL;
    aclrtStream s = NULL;
    REQUIRE_OK(aclrtMemAllocManaged((void **)&m, 3 * PAGE, ACL_RT_MEM_ATTACH_GLOBAL));
    REQUIRE_OK(aclrtCreateStream(&s));

    EXPECT_CODE(aclrtMemManagedPrefetchAsync(NULL, PAGE, DEV0, 0, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedPrefetchAsync(m, 0, DEV0, 0, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedPrefetchAsync(m, PAGE, DEV0, 1, s), ACL_ERROR_INVALID_PARAM);
    aclrtMemManagedLocation bad_dev = {ACL_MEM_LOCATIONTYPE_DEVICE, 99};
    aclrtMemManagedLocation invalid = {ACL_MEM_LOCATIONTYPE_INVALID, 0};
    EXPECT_CODE(aclrtMemManagedPrefetchAsync(m, PAGE, bad_dev, 0, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemManagedPrefetchAsync(m, PAGE, invalid, 0, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemManagedPrefetchAsync(m, 100, DEV0, 0, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemManagedPrefetchAsync(m, PAGE, DEV0, 0, (aclrtStream)(uintptr_t)0x10),
                ACL_ERROR_RT_INVALID_HANDLE);

    /* A prefetch is a task in stream order: it records its location when the stream gets there. */
    REQUIRE_OK(sem_init(&g_gate, 0, 0) == 0 ? ACL_SUCCESS : ACL_ERROR_FAILURE);
    EXPECT_OK(aclrtLaunchHostFunc(s, wait_gate, NULL));
    EXPECT_OK(aclrtMemManagedPrefetchAsync(m, 3 * PAGE, DEV0, 0, s));
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 3 * PAGE) == NO_LOC);
    sem_post(&g_gate);
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 3 * PAGE) == 0);
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, m, 3 * PAGE) ==
          ACL_MEM_LOCATIONTYPE_DEVICE);
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, m, 3 * PAGE) == 0);
    sem_destroy(&g_gate);

    /* Batch: pages 0 and 1 to the device, page 2 to the host, on the default stream. */
    const void *ptrs[3] = {m, m + PAGE, m + 2 * PAGE};
    size_t sizes[3] = {PAGE, PAGE, PAGE};
    aclrtMemManagedLocation locs[2] = {DEV0, HOST};
    size_t idxs[2] = {0, 2};
    EXPECT_OK(aclrtMemManagedPrefetchAsync(m, 3 * PAGE, HOST, 0, NULL));
    EXPECT_OK(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idxs, 2, 0, NULL));
    EXPECT_OK(aclrtSynchronizeStream(NULL));
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 2 * PAGE) == 0);
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m + 2 * PAGE, PAGE) == HOST_LOC);
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, m + 2 * PAGE, PAGE) ==
          ACL_MEM_LOCATIONTYPE_HOST);
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 3 * PAGE) == NO_LOC);

    /* Batch errors, in the vendor's order. */
    EXPECT_CODE(aclrtMemManagedPrefetchBatchAsync(NULL, sizes, 3, locs, idxs, 2, 0, s),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedPrefetchBatchAsync(ptrs, NULL, 3, locs, idxs, 2, 0, s),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, NULL, idxs, 2, 0, s),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, NULL, 2, 0, s),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 0, locs, idxs, 2, 0, s),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idxs, 0, 0, s),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idxs, 2, 1, s),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 1, locs, idxs, 2, 0, s),
                ACL_ERROR_INVALID_PARAM);
    size_t bad_first[2] = {1, 2};
    EXPECT_CODE(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, bad_first, 2, 0, s),
                ACL_ERROR_RT_PARAM_INVALID);
    size_t not_rising[2] = {0, 0};
    EXPECT_CODE(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, not_rising, 2, 0, s),
                ACL_ERROR_RT_PARAM_INVALID);
    size_t past[2] = {0, 3};
    EXPECT_CODE(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, past, 2, 0, s),
                ACL_ERROR_RT_PARAM_INVALID);
    const void *with_null[3] = {m, NULL, m + 2 * PAGE};
    EXPECT_CODE(aclrtMemManagedPrefetchBatchAsync(with_null, sizes, 3, locs, idxs, 2, 0, s),
                ACL_ERROR_RT_PARAM_INVALID);
    aclrtMemManagedLocation bad_locs[2] = {DEV0, bad_dev};
    EXPECT_CODE(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, bad_locs, idxs, 2, 0, s),
                ACL_ERROR_RT_PARAM_INVALID);
    size_t odd[3] = {PAGE, 100, PAGE};
    EXPECT_CODE(aclrtMemManagedPrefetchBatchAsync(ptrs, odd, 3, locs, idxs, 2, 0, s),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_OK(aclrtSynchronizeStream(s));
    /* Nothing of the refused batches ran. */
    CHECK(attr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 2 * PAGE) == 0);

    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtFree(m));
}

int main(void)
{
    void *m = NULL;
    EXPECT_CODE(aclrtMemAllocManaged(&m, 8, ACL_RT_MEM_ATTACH_GLOBAL), ACL_ERROR_UNINITIALIZE);
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    allocation();
    advice();
    prefetch();
    REQUIRE_OK(aclrtResetDevice(0));
    REQUIRE_OK(aclFinalize());
    expect_no_live_objects();
    return finish("test_managed");
}
