/* The stream-ordered allocator: default and current pools, allocations usable in stream order
 * with exact bytes, reuse when ordered and none when not, attributes, trimming, destroying a
 * pool with blocks out, and the error codes. */
#include <stdint.h>
#include <string.h>

#include "check.h"

#define MB (1024ull * 1024ull)
#define GRANULE (2 * MB)

static cuuint64_t attr64(CUmemoryPool pool, CUmemPool_attribute attr) {
    cuuint64_t v = 12345;
    OK(cuMemPoolGetAttribute(pool, attr, &v));
    return v;
}

static int attr_int(CUmemoryPool pool, CUmemPool_attribute attr) {
    int v = 12345;
    OK(cuMemPoolGetAttribute(pool, attr, &v));
    return v;
}

static void set_int(CUmemoryPool pool, CUmemPool_attribute attr, int v) {
    OK(cuMemPoolSetAttribute(pool, attr, &v));
}

static CUmemPoolProps props(size_t max_size) {
    CUmemPoolProps p;
    memset(&p, 0, sizeof p);
    p.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = 0;
    p.maxSize = max_size;
    return p;
}

static size_t free_memory(void) {
    size_t f, t;
    OK(cuMemGetInfo(&f, &t));
    return f;
}

static void default_pool(void) {
    CUmemoryPool a = NULL, b = NULL, cur = NULL;
    EXPECT(cuDeviceGetDefaultMemPool(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetDefaultMemPool(&a, 99), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuDeviceGetMemPool(&a, -1), CUDA_ERROR_INVALID_DEVICE);
    OK(cuDeviceGetDefaultMemPool(&a, 0));
    OK(cuDeviceGetDefaultMemPool(&b, 0));
    OK(cuDeviceGetMemPool(&cur, 0));
    ASSERT(a != NULL && a == b && cur == a);
    ASSERT(attr_int(a, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES) == 1);
    ASSERT(attr_int(a, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC) == 1);
    ASSERT(attr_int(a, CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES) == 1);
    ASSERT(attr64(a, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) == 0);
    EXPECT(cuMemPoolDestroy(a), CUDA_ERROR_INVALID_VALUE);
}

/* Allocate on s1, fill there, read on s2 after an event, free on s2: exact bytes. */
static void ordered_data(void) {
    CUstream s1, s2;
    CUevent filled;
    CUmemoryPool pool;
    OK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    OK(cuEventCreate(&filled, 0));
    OK(cuDeviceGetMemPool(&pool, 0));
    unsigned char *in, *out;
    OK(cuMemHostAlloc((void **)&in, 3000, 0));
    OK(cuMemHostAlloc((void **)&out, 3000, 0));
    for (int i = 0; i < 3000; i++) in[i] = (unsigned char)(i * 13 + 1);
    memset(out, 0, 3000);
    size_t before = free_memory();

    CUdeviceptr d = 0;
    OK(cuMemAllocAsync(&d, 3000, s1));
    ASSERT(d != 0 && d % GRANULE == 0);
    ASSERT(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == GRANULE);
    ASSERT(free_memory() == before - GRANULE);
    OK(cuMemcpyHtoDAsync(d, in, 3000, s1));
    OK(cuEventRecord(filled, s1));
    OK(cuStreamWaitEvent(s2, filled, 0));
    OK(cuMemcpyDtoHAsync(out, d, 3000, s2));
    OK(cuMemFreeAsync(d, s2));
    OK(cuStreamSynchronize(s2));
    ASSERT(memcmp(in, out, 3000) == 0);
    ASSERT(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == 0);
    ASSERT(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH) == GRANULE);
    /* The release threshold is 0: the synchronize gave the freed block back. */
    ASSERT(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 0);
    ASSERT(free_memory() == before);

    /* The same stream gets the block back at once. */
    CUdeviceptr e = 0;
    OK(cuMemAllocAsync(&e, 100, s2));
    ASSERT(e == d);
    /* Pool memory is not cuMemFree's; a second free is refused. */
    EXPECT(cuMemFree(e), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFreeAsync(e, s2));
    EXPECT(cuMemFreeAsync(e, s2), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemFreeAsync(e + 64, s2), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr plain;
    OK(cuMemAlloc(&plain, 64));
    EXPECT(cuMemFreeAsync(plain, s2), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(plain));
    EXPECT(cuMemAllocAsync(NULL, 8, s1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocAsync(&e, 0, s1), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamSynchronize(s2));

    /* Trim: only what is not in use goes; asking for less than that does not fail. */
    OK(cuMemAllocAsync(&e, 10, s1));
    OK(cuMemPoolTrimTo(pool, 0));
    ASSERT(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == GRANULE);
    OK(cuMemFreeAsync(e, s1));
    OK(cuStreamSynchronize(s1));
    OK(cuMemPoolTrimTo(pool, 0));
    ASSERT(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 0);
    ASSERT(free_memory() == before);

    OK(cuMemFreeHost(in));
    OK(cuMemFreeHost(out));
    OK(cuEventDestroy(filled));
    OK(cuStreamDestroy(s1));
    OK(cuStreamDestroy(s2));
}

static void created_pools(void) {
    CUmemoryPool pool = NULL, dflt = NULL, cur = NULL;
    CUmemPoolProps p = props(0);
    EXPECT(cuMemPoolCreate(NULL, &p), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemPoolCreate(&pool, NULL), CUDA_ERROR_INVALID_VALUE);
    p.allocType = CU_MEM_ALLOCATION_TYPE_INVALID;
    EXPECT(cuMemPoolCreate(&pool, &p), CUDA_ERROR_INVALID_VALUE);
    p = props(0);
    p.location.type = CU_MEM_LOCATION_TYPE_HOST;
    EXPECT(cuMemPoolCreate(&pool, &p), CUDA_ERROR_INVALID_VALUE);
    p = props(0);
    p.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    EXPECT(cuMemPoolCreate(&pool, &p), CUDA_ERROR_NOT_SUPPORTED);
    p = props(0);
    p.location.id = 99;
    EXPECT(cuMemPoolCreate(&pool, &p), CUDA_ERROR_INVALID_DEVICE);
    p = props(257 * MB);
    EXPECT(cuMemPoolCreate(&pool, &p), CUDA_ERROR_INVALID_VALUE);
    ASSERT(pool == NULL);

    p = props(8 * MB);
    OK(cuMemPoolCreate(&pool, &p));
    ASSERT(attr_int(pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES) == 1);

    CUstream s1, s2;
    OK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));

    /* Reuse on: s2 takes s1's freed block at once, ordered after the free by a wait. */
    CUdeviceptr a, b, c;
    OK(cuMemAllocFromPoolAsync(&a, 100, pool, s1));
    gate_t gate;
    gate_init(&gate, CUDA_SUCCESS);
    OK(aclrtxCuLaunchHostKernel(s1, gate_kernel, &gate));
    OK(cuMemFreeAsync(a, s1));
    OK(cuMemAllocFromPoolAsync(&b, 100, pool, s2));
    ASSERT(b == a);
    EXPECT(cuStreamQuery(s2), CUDA_ERROR_NOT_READY);
    gate_open(&gate);
    OK(cuStreamSynchronize(s2));
    OK(cuMemFreeAsync(b, s2));

    /* Reuse off: another stream gets a fresh block. */
    set_int(pool, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, 0);
    set_int(pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, 0);
    set_int(pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, 0);
    ASSERT(attr_int(pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC) == 0);
    OK(cuMemAllocFromPoolAsync(&c, 100, pool, s1));
    ASSERT(c != b);
    OK(cuMemFreeAsync(c, s1));
    OK(cuStreamSynchronize(s1));
    OK(cuStreamSynchronize(s2));

    /* Attributes. */
    cuuint64_t v = 0;
    EXPECT(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &v), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &v), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &v));
    ASSERT(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH) == 0);
    v = 1;
    EXPECT(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &v), CUDA_ERROR_INVALID_VALUE);
    v = 3 * MB;
    OK(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v));
    ASSERT(attr64(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) == 3 * MB);
    EXPECT(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemPoolSetAttribute(pool, (CUmemPool_attribute)99, &v), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemPoolGetAttribute(pool, (CUmemPool_attribute)99, &v), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, NULL), CUDA_ERROR_INVALID_VALUE);

    /* Sizes: zero, above the pool, and a full pool. */
    EXPECT(cuMemAllocFromPoolAsync(&c, 0, pool, s1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocFromPoolAsync(&c, 9 * MB, pool, s1), CUDA_ERROR_OUT_OF_MEMORY);
    EXPECT(cuMemAllocFromPoolAsync(&c, 8, NULL, s1), CUDA_ERROR_INVALID_VALUE);

    /* The current pool: cuMemAllocAsync allocates from it. */
    OK(cuDeviceGetDefaultMemPool(&dflt, 0));
    EXPECT(cuDeviceSetMemPool(99, pool), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuDeviceSetMemPool(0, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuDeviceSetMemPool(0, pool));
    OK(cuDeviceGetMemPool(&cur, 0));
    ASSERT(cur == pool);
    OK(cuMemPoolTrimTo(pool, 0));
    ASSERT(attr64(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 0);
    OK(cuMemAllocAsync(&c, 100, s1));
    ASSERT(attr64(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == GRANULE);

    /* A stream that captures refuses allocations. */
    OK(cuStreamBeginCapture(s2, CU_STREAM_CAPTURE_MODE_RELAXED));
    EXPECT(cuMemAllocAsync(&a, 8, s2), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    CUgraph graph;
    OK(cuStreamEndCapture(s2, &graph));
    OK(cuGraphDestroy(graph));

    /* Destroyed with a block out: the handle dies, the block lives until freed, the current
     * pool falls back to the default one, and the memory returns with the last free. */
    size_t before = free_memory();
    OK(cuMemPoolDestroy(pool));
    EXPECT(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &v), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemPoolDestroy(pool), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAllocFromPoolAsync(&a, 8, pool, s1), CUDA_ERROR_INVALID_VALUE);
    OK(cuDeviceGetMemPool(&cur, 0));
    ASSERT(cur == dflt);
    unsigned char byte = 0x5a, back = 0;
    OK(cuMemcpyHtoD(c, &byte, 1));
    OK(cuMemcpyDtoH(&back, c, 1));
    ASSERT(back == 0x5a);
    ASSERT(free_memory() == before);
    OK(cuMemFreeAsync(c, s1));
    ASSERT(free_memory() == before + GRANULE);
    EXPECT(cuMemcpyHtoD(c, &byte, 1), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamSynchronize(s1));

    OK(cuStreamDestroy(s1));
    OK(cuStreamDestroy(s2));
}

int main(void) {
    CUdeviceptr d;
    CUmemoryPool pool;
    EXPECT(cuMemAllocAsync(&d, 8, NULL), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuDeviceGetDefaultMemPool(&pool, 0), CUDA_ERROR_NOT_INITIALIZED);
    CUcontext ctx;
    OK(cuInit(0));
    OK(cuCtxCreate(&ctx, 0, 0));
    default_pool();
    ordered_data();
    created_pools();
    OK(cuCtxDestroy(ctx));
    puts("mem_pool: ok");
    return 0;
}
