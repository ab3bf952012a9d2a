/* Stream-ordered allocation through the C ABI (acl/acl_rt_memory_soma.h): pools, their
 * attributes, allocations usable in stream order with exact bytes, reuse after an ordered free
 * and none after an unordered one, trimming, destroying, and every error code. */
#include "check.h"
#include "acl/acl_rt_memory_soma.h"

#include <semaphore.h>

#define MB (1024ull * 1024ull)
#define GRANULE (2 * MB)

static aclrtMemPoolProps props(size_t max_size)
{
    aclrtMemPoolProps p;
    memset(&p, 0, sizeof p);
    p.allocType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    p.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    p.location.id = 0;
    p.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    p.maxSize = max_size;
    return p;
}

static uint64_t attr64(aclrtMemPool pool, aclrtMemPoolAttr attr)
{
    uint64_t v = 0xdeadbeef;
    EXPECT_OK(aclrtMemPoolGetAttr(pool, attr, &v));
    return v;
}

static uint32_t attr32(aclrtMemPool pool, aclrtMemPoolAttr attr)
{
    uint32_t v = 0xdeadbeef;
    EXPECT_OK(aclrtMemPoolGetAttr(pool, attr, &v));
    return v;
}

static void set32(aclrtMemPool pool, aclrtMemPoolAttr attr, uint32_t v)
{
    EXPECT_OK(aclrtMemPoolSetAttr(pool, attr, &v));
}

static size_t device_free(void)
{
    size_t free_bytes = 0, total = 0;
    EXPECT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total));
    return free_bytes;
}

static void create_errors(void)
{
    aclrtMemPool pool = NULL;
    aclrtMemPoolProps p = props(0);
    size_t free_bytes = 0, total = 0;
    EXPECT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total));

    EXPECT_CODE(aclrtMemPoolCreate(NULL, &p), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemPoolCreate(&pool, NULL), ACL_ERROR_INVALID_PARAM);
    p.allocType = (aclrtMemAllocationType)1;
    EXPECT_CODE(aclrtMemPoolCreate(&pool, &p), ACL_ERROR_INVALID_PARAM);
    CHECK(strstr(aclGetRecentErrMsg(), "allocType") != NULL);
    p = props(0);
    p.location.type = ACL_MEM_LOCATION_TYPE_HOST;
    EXPECT_CODE(aclrtMemPoolCreate(&pool, &p), ACL_ERROR_INVALID_PARAM);
    p = props(0);
    p.reserved[31] = 1;
    EXPECT_CODE(aclrtMemPoolCreate(&pool, &p), ACL_ERROR_INVALID_PARAM);
    p = props(0);
    p.location.id = 99;
    EXPECT_CODE(aclrtMemPoolCreate(&pool, &p), ACL_ERROR_RT_INVALID_DEVICEID);
    p = props(total + 1);
    EXPECT_CODE(aclrtMemPoolCreate(&pool, &p), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(pool == NULL);

    /* maxSize 0: the device's whole memory, in 2 MB units; others round up to 2 MB. */
    p = props(0);
    REQUIRE_OK(aclrtMemPoolCreate(&pool, &p));
    uint64_t threshold = total / GRANULE * GRANULE;
    EXPECT_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &threshold));
    threshold += GRANULE;
    EXPECT_CODE(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &threshold),
                ACL_ERROR_RT_INTERNAL_ERROR);
    EXPECT_OK(aclrtMemPoolDestroy(pool));
    p = props(3 * MB);
    REQUIRE_OK(aclrtMemPoolCreate(&pool, &p));
    threshold = 4 * MB;
    EXPECT_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &threshold));
    threshold = 4 * MB + 1;
    EXPECT_CODE(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &threshold),
                ACL_ERROR_RT_INTERNAL_ERROR);
    EXPECT_OK(aclrtMemPoolDestroy(pool));
}

static void attributes(void)
{
    aclrtMemPool pool = NULL;
    aclrtMemPoolProps p = props(64 * MB);
    REQUIRE_OK(aclrtMemPoolCreate(&pool, &p));
    CHECK(pool != NULL);

    /* Defaults: no cross-stream reuse, nothing reserved. */
    CHECK(attr32(pool, ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES) == 0);
    CHECK(attr32(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC) == 0);
    CHECK(attr32(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES) == 0);
    for (int a = ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD; a <= ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH; a++) {
        CHECK(attr64(pool, (aclrtMemPoolAttr)a) == 0);
    }
    /* A reuse switch reads back as 0 or 1; the last set wins. */
    set32(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, 7);
    CHECK(attr32(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC) == 1);
    set32(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, 0);
    CHECK(attr32(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC) == 0);
    uint64_t v = 5 * MB;
    EXPECT_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &v));
    CHECK(attr64(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD) == 5 * MB);

    /* Errors. */
    v = 0;
    EXPECT_CODE(aclrtMemPoolSetAttr(NULL, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &v),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, NULL),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT, &v),
                ACL_ERROR_RT_PARAM_INVALID);
    CHECK(strstr(aclGetRecentErrMsg(), "read-only") != NULL);
    EXPECT_CODE(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT, &v),
                ACL_ERROR_RT_PARAM_INVALID);
    v = 1;
    EXPECT_CODE(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &v),
                ACL_ERROR_RT_INTERNAL_ERROR);
    EXPECT_CODE(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH, &v),
                ACL_ERROR_RT_INTERNAL_ERROR);
    EXPECT_CODE(aclrtMemPoolSetAttr(pool, (aclrtMemPoolAttr)9, &v), ACL_ERROR_RT_INTERNAL_ERROR);
    EXPECT_CODE(aclrtMemPoolSetAttr(pool, (aclrtMemPoolAttr)0, &v), ACL_ERROR_RT_INTERNAL_ERROR);
    EXPECT_CODE(aclrtMemPoolGetAttr(NULL, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &v),
                ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, NULL),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemPoolGetAttr(pool, (aclrtMemPoolAttr)9, &v), ACL_ERROR_RT_INTERNAL_ERROR);

    EXPECT_OK(aclrtMemPoolDestroy(pool));
    /* A destroyed pool, per call as the vendor reports it. */
    EXPECT_CODE(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &v),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &v),
                ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemPoolDestroy(pool), ACL_ERROR_RT_INTERNAL_ERROR);
    EXPECT_CODE(aclrtMemPoolDestroy(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemPoolTrimTo(pool, 0), ACL_ERROR_RT_INTERNAL_ERROR);
    EXPECT_CODE(aclrtMemPoolTrimTo(NULL, 0), ACL_ERROR_INVALID_PARAM);
}

/* Allocate on s1, fill it there, read it on s2 after an event, free on s1 after s2's reads:
 * the bytes arrive exactly, and the pool's sizes follow. */
static void ordered_data_path(void)
{
    aclrtMemPool pool = NULL;
    aclrtMemPoolProps p = props(64 * MB);
    aclrtStream s1 = NULL, s2 = NULL;
    aclrtEvent filled = NULL, read = NULL;
    unsigned char src[1000], dst[1000];
    for (int i = 0; i < 1000; i++) {
        src[i] = (unsigned char)(i * 7 + 3);
    }
    memset(dst, 0, sizeof dst);
    size_t before = device_free();

    REQUIRE_OK(aclrtMemPoolCreate(&pool, &p));
    CHECK(device_free() == before); /* address space only */
    REQUIRE_OK(aclrtCreateStream(&s1));
    REQUIRE_OK(aclrtCreateStream(&s2));
    REQUIRE_OK(aclrtCreateEvent(&filled));
    REQUIRE_OK(aclrtCreateEvent(&read));

    void *buf = NULL;
    REQUIRE_OK(aclrtMemPoolMallocAsync(&buf, sizeof src, pool, s1));
    CHECK(buf != NULL && (uintptr_t)buf % GRANULE == 0);
    CHECK(attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT) == GRANULE);
    CHECK(attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT) == GRANULE);
    CHECK(device_free() == before - GRANULE);
    EXPECT_OK(aclrtMemcpyAsync(buf, sizeof src, src, sizeof src, ACL_MEMCPY_HOST_TO_DEVICE, s1));
    EXPECT_OK(aclrtRecordEvent(filled, s1));
    EXPECT_OK(aclrtStreamWaitEvent(s2, filled));
    EXPECT_OK(aclrtMemcpyAsync(dst, sizeof dst, buf, sizeof src, ACL_MEMCPY_DEVICE_TO_HOST, s2));
    EXPECT_OK(aclrtRecordEvent(read, s2));
    EXPECT_OK(aclrtStreamWaitEvent(s1, read));
    EXPECT_OK(aclrtMemPoolFreeAsync(buf, s1));
    /* After the free the pointer is refused by later calls, and by a second free. */
    EXPECT_CODE(aclrtMemcpyAsync(buf, 8, src, 8, ACL_MEMCPY_HOST_TO_DEVICE, s1), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemPoolFreeAsync(buf, s1), ACL_ERROR_RT_INTERNAL_ERROR);
    CHECK(strstr(aclGetRecentErrMsg(), "already freed") != NULL);
    EXPECT_OK(aclrtSynchronizeStream(s1));
    EXPECT_OK(aclrtSynchronizeStream(s2));
    CHECK(memcmp(src, dst, sizeof src) == 0);
    CHECK(attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT) == 0);
    CHECK(attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH) == GRANULE);
    CHECK(attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT) == GRANULE);

    /* Same stream after its free: the same block, with the bytes it held (not zeroed). */
    void *again = NULL;
    REQUIRE_OK(aclrtMemPoolMallocAsync(&again, 10, pool, s1));
    CHECK(again == buf);
    CHECK(attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT) == GRANULE);
    memset(dst, 0, sizeof dst);
    EXPECT_OK(aclrtMemcpyAsync(dst, 10, again, 10, ACL_MEMCPY_DEVICE_TO_HOST, s1));
    EXPECT_OK(aclrtSynchronizeStream(s1));
    CHECK(memcmp(src, dst, 10) == 0);
    /* The block is 10 bytes to copies. */
    EXPECT_CODE(aclrtMemcpyAsync(dst, 11, again, 11, ACL_MEMCPY_DEVICE_TO_HOST, s1),
                ACL_ERROR_INVALID_PARAM);
    /* aclrtFree refuses pool memory. */
    EXPECT_CODE(aclrtFree(again), ACL_ERROR_RT_MEMORY_FREE);
    CHECK(strstr(aclGetRecentErrMsg(), "memory pool") != NULL);

    /* The high marks reset to 0 only. */
    uint64_t zero = 0;
    EXPECT_OK(aclrtMemPoolFreeAsync(again, s1));
    EXPECT_OK(aclrtSynchronizeStream(s1));
    EXPECT_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &zero));
    CHECK(attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH) == 0);
    EXPECT_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH, &zero));
    CHECK(attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH) == 0);

    EXPECT_OK(aclrtMemPoolDestroy(pool));
    CHECK(device_free() == before);
    EXPECT_OK(aclrtDestroyEvent(filled));
    EXPECT_OK(aclrtDestroyEvent(read));
    EXPECT_OK(aclrtDestroyStream(s1));
    EXPECT_OK(aclrtDestroyStream(s2));
}

static sem_t g_gate;
static int g_order[2];
static int g_order_n;

static void wait_gate(void *arg)
{
    (void)arg;
    sem_wait(&g_gate);
    g_order[g_order_n++] = 1;
}

static void note_second(void *arg)
{
    (void)arg;
    g_order[g_order_n++] = 2;
}

static void hold(void *arg)
{
    (void)arg;
    sem_wait(&g_gate);
}

static void reuse_rules(void)
{
    aclrtMemPool pool = NULL;
    aclrtMemPoolProps p = props(64 * MB);
    aclrtStream s1 = NULL, s2 = NULL, s3 = NULL;
    aclrtEvent ev = NULL;
    REQUIRE_OK(aclrtMemPoolCreate(&pool, &p));
    REQUIRE_OK(aclrtCreateStream(&s1));
    REQUIRE_OK(aclrtCreateStream(&s2));
    REQUIRE_OK(aclrtCreateStream(&s3));
    REQUIRE_OK(aclrtCreateEvent(&ev));

    void *a = NULL, *b = NULL, *c = NULL;
    REQUIRE_OK(aclrtMemPoolMallocAsync(&a, 100, pool, s1));
    EXPECT_OK(aclrtMemPoolFreeAsync(a, s1));
    EXPECT_OK(aclrtSynchronizeStream(s1));
    /* Another stream, nothing ordering it after the free, default attributes: no reuse,
     * even though the free has run. */
    REQUIRE_OK(aclrtMemPoolMallocAsync(&b, 100, pool, s2));
    CHECK(b != a);
    EXPECT_OK(aclrtMemPoolFreeAsync(b, s2));

    /* Event dependencies: reuse only once s3 waits for a record made after the free. */
    set32(pool, ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES, 1);
    EXPECT_OK(aclrtRecordEvent(ev, s2)); /* before a's free on s1: orders nothing about a */
    EXPECT_OK(aclrtStreamWaitEvent(s3, ev));
    REQUIRE_OK(aclrtMemPoolMallocAsync(&c, 100, pool, s3));
    CHECK(c == b); /* b was freed on s2 before that record */
    REQUIRE_OK(aclrtMemPoolMallocAsync(&c, 100, pool, s3));
    CHECK(c != a && c != b);
    void *fresh = c;
    EXPECT_OK(aclrtRecordEvent(ev, s1));
    EXPECT_OK(aclrtStreamWaitEvent(s3, ev));
    REQUIRE_OK(aclrtMemPoolMallocAsync(&c, 100, pool, s3));
    CHECK(c == a);
    EXPECT_OK(aclrtMemPoolFreeAsync(c, s3));
    EXPECT_OK(aclrtMemPoolFreeAsync(b, s3));
    EXPECT_OK(aclrtMemPoolFreeAsync(fresh, s3));
    EXPECT_OK(aclrtSynchronizeStream(s3));
    set32(pool, ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES, 0);

    /* Opportunistic: a block whose free has run (s3 synchronised) goes to any stream. */
    REQUIRE_OK(aclrtMemPoolMallocAsync(&c, 100, pool, s1));
    CHECK(c != a && c != b && c != fresh);
    EXPECT_OK(aclrtMemPoolFreeAsync(c, s1));
    set32(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, 1);
    void *d = NULL;
    REQUIRE_OK(aclrtMemPoolMallocAsync(&d, 100, pool, s1)); /* same stream first */
    CHECK(d == c);
    REQUIRE_OK(aclrtMemPoolMallocAsync(&d, 100, pool, s2));
    CHECK(d == a || d == b || d == fresh);
    EXPECT_OK(aclrtMemPoolFreeAsync(d, s2));
    EXPECT_OK(aclrtMemPoolFreeAsync(c, s1));
    EXPECT_OK(aclrtSynchronizeStream(s1));
    EXPECT_OK(aclrtSynchronizeStream(s2));
    set32(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, 0);
    uint64_t reserved = attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT);
    CHECK(reserved == 4 * GRANULE);

    /* Internal dependencies: s2 takes a block whose free on s1 has not run, and waits for it. */
    REQUIRE_OK(aclrtMemPoolTrimTo(pool, 0));
    CHECK(attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT) == 0);
    set32(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES, 1);
    REQUIRE_OK(sem_init(&g_gate, 0, 0) == 0 ? ACL_SUCCESS : ACL_ERROR_FAILURE);
    void *e = NULL, *f = NULL;
    REQUIRE_OK(aclrtMemPoolMallocAsync(&e, 100, pool, s1));
    EXPECT_OK(aclrtLaunchHostFunc(s1, wait_gate, NULL));
    EXPECT_OK(aclrtMemPoolFreeAsync(e, s1));
    REQUIRE_OK(aclrtMemPoolMallocAsync(&f, 100, pool, s2));
    CHECK(f == e);
    CHECK(attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT) == GRANULE);
    EXPECT_OK(aclrtLaunchHostFunc(s2, note_second, NULL));
    aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
    EXPECT_OK(aclrtStreamQuery(s2, &status));
    CHECK(status == ACL_STREAM_STATUS_NOT_READY); /* held behind s1's free */
    sem_post(&g_gate);
    EXPECT_OK(aclrtSynchronizeStream(s2));
    CHECK(g_order_n == 2 && g_order[0] == 1 && g_order[1] == 2);
    EXPECT_OK(aclrtMemPoolFreeAsync(f, s2));
    EXPECT_OK(aclrtSynchronizeStream(s2));
    sem_destroy(&g_gate);

    EXPECT_OK(aclrtMemPoolDestroy(pool));
    EXPECT_OK(aclrtDestroyEvent(ev));
    EXPECT_OK(aclrtDestroyStream(s1));
    EXPECT_OK(aclrtDestroyStream(s2));
    EXPECT_OK(aclrtDestroyStream(s3));
}

static void malloc_free_errors(void)
{
    aclrtMemPool pool = NULL, other = NULL;
    aclrtMemPoolProps p = props(4 * MB);
    aclrtStream s = NULL;
    REQUIRE_OK(aclrtMemPoolCreate(&pool, &p));
    REQUIRE_OK(aclrtMemPoolCreate(&other, &p));
    REQUIRE_OK(aclrtCreateStream(&s));

    void *ptr = (void *)0x1234;
    EXPECT_CODE(aclrtMemPoolMallocAsync(NULL, 8, pool, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemPoolMallocAsync(&ptr, 8, NULL, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemPoolMallocAsync(&ptr, 8, pool, NULL), ACL_ERROR_INVALID_PARAM);
    /* Size 0 succeeds and leaves *ptr alone. */
    EXPECT_OK(aclrtMemPoolMallocAsync(&ptr, 0, pool, s));
    CHECK(ptr == (void *)0x1234);
    EXPECT_CODE(aclrtMemPoolMallocAsync(&ptr, SIZE_MAX, pool, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtMemPoolMallocAsync(&ptr, 4 * MB + 1, pool, s), ACL_ERROR_RT_INTERNAL_ERROR);
    EXPECT_CODE(aclrtMemPoolMallocAsync(&ptr, 8, (aclrtMemPool)s, s), ACL_ERROR_RT_INTERNAL_ERROR);
    CHECK(ptr == (void *)0x1234);

    /* The pool is full once both blocks are out; another stream's cached block is not reused. */
    void *x = NULL, *y = NULL, *z = NULL;
    REQUIRE_OK(aclrtMemPoolMallocAsync(&x, 1, pool, s));
    REQUIRE_OK(aclrtMemPoolMallocAsync(&y, GRANULE, pool, s));
    EXPECT_CODE(aclrtMemPoolMallocAsync(&z, 1, pool, s), ACL_ERROR_RT_INTERNAL_ERROR);
    CHECK(strstr(aclGetRecentErrMsg(), "no room") != NULL);

    /* Frees: NULL, NULL stream, inside a block, foreign, twice. */
    static char foreign[64];
    EXPECT_CODE(aclrtMemPoolFreeAsync(NULL, s), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemPoolFreeAsync(x, NULL), ACL_ERROR_RT_INTERNAL_ERROR);
    EXPECT_CODE(aclrtMemPoolFreeAsync((char *)x + 64, s), ACL_ERROR_RT_INTERNAL_ERROR);
    CHECK(strstr(aclGetRecentErrMsg(), "inside a block") != NULL);
    EXPECT_CODE(aclrtMemPoolFreeAsync(foreign, s), ACL_ERROR_RT_MEMORY_FREE);
    EXPECT_OK(aclrtMemPoolFreeAsync(x, s));
    EXPECT_CODE(aclrtMemPoolFreeAsync(x, s), ACL_ERROR_RT_INTERNAL_ERROR);

    /* A device allocation from aclrtMalloc is freed when the stream reaches the free; until
     * then no other free may take it. */
    void *dev = NULL;
    size_t before = device_free();
    REQUIRE_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(sem_init(&g_gate, 0, 0) == 0 ? ACL_SUCCESS : ACL_ERROR_FAILURE);
    EXPECT_OK(aclrtLaunchHostFunc(s, hold, NULL));
    EXPECT_OK(aclrtMemPoolFreeAsync(dev, s));
    EXPECT_CODE(aclrtMemPoolFreeAsync(dev, s), ACL_ERROR_RT_MEMORY_FREE);
    CHECK(strstr(aclGetRecentErrMsg(), "already queued") != NULL);
    EXPECT_CODE(aclrtFree(dev), ACL_ERROR_RT_MEMORY_FREE);
    CHECK(strstr(aclGetRecentErrMsg(), "queued aclrtMemPoolFreeAsync") != NULL);
    CHECK(device_free() == before - 4096);
    sem_post(&g_gate);
    EXPECT_OK(aclrtSynchronizeStream(s));
    sem_destroy(&g_gate);
    CHECK(device_free() == before);
    EXPECT_CODE(aclrtFree(dev), ACL_ERROR_RT_MEMORY_FREE);
    CHECK(strstr(aclGetRecentErrMsg(), "was freed") != NULL);
    void *host = NULL;
    REQUIRE_OK(aclrtMallocHost(&host, 64));
    EXPECT_CODE(aclrtMemPoolFreeAsync(host, s), ACL_ERROR_RT_MEMORY_FREE);
    EXPECT_OK(aclrtFreeHost(host));

    /* A stream of another context. */
    aclrtContext ctx = NULL, mine = NULL;
    REQUIRE_OK(aclrtGetCurrentContext(&mine));
    REQUIRE_OK(aclrtCreateContext(&ctx, 0));
    EXPECT_CODE(aclrtMemPoolMallocAsync(&z, 8, pool, s), ACL_ERROR_RT_STREAM_CONTEXT);
    EXPECT_CODE(aclrtMemPoolFreeAsync(y, s), ACL_ERROR_RT_STREAM_CONTEXT);
    REQUIRE_OK(aclrtSetCurrentContext(mine));
    EXPECT_OK(aclrtDestroyContext(ctx));

    /* Trim: above the pool's size or below what is in use. */
    EXPECT_CODE(aclrtMemPoolTrimTo(pool, 4 * MB + 1), ACL_ERROR_RT_INTERNAL_ERROR);
    EXPECT_CODE(aclrtMemPoolTrimTo(pool, GRANULE - 1), ACL_ERROR_RT_INTERNAL_ERROR);
    CHECK(strstr(aclGetRecentErrMsg(), "in use") != NULL);
    size_t held = device_free();
    EXPECT_OK(aclrtMemPoolTrimTo(pool, GRANULE));
    CHECK(attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT) == GRANULE);
    CHECK(device_free() == held + GRANULE);

    /* Destroying with a block still out: the block ends with the pool. */
    aclrtStream dead = NULL;
    REQUIRE_OK(aclrtCreateStream(&dead));
    REQUIRE_OK(aclrtDestroyStream(dead));
    EXPECT_CODE(aclrtMemPoolMallocAsync(&z, 8, other, dead), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtMemPoolDestroy(pool));
    EXPECT_CODE(aclrtMemcpy(y, 8, foreign, 8, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtMemPoolFreeAsync(y, s), ACL_ERROR_RT_MEMORY_FREE);
    EXPECT_OK(aclrtMemPoolDestroy(other));
    EXPECT_OK(aclrtDestroyStream(s));
}

int main(void)
{
    aclrtMemPool pool = NULL;
    aclrtMemPoolProps p = props(0);
    EXPECT_CODE(aclrtMemPoolCreate(&pool, &p), ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclrtMemPoolFreeAsync(&p, NULL), ACL_ERROR_UNINITIALIZE);
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    create_errors();
    attributes();
    ordered_data_path();
    reuse_rules();
    malloc_free_errors();
    REQUIRE_OK(aclrtResetDevice(0));
    REQUIRE_OK(aclFinalize());
    expect_no_live_objects();
    return finish("test_mem_pool");
}
